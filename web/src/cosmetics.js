// The equipped cosmetics on the page: CSS variables read by the style sheet (docs/accounts.md
// "At the table"), and the tile-back pattern both the table and the shop's swatches draw.
import { api, session } from "./account-core.js";
import { rememberLook } from "./early.js";

/** The shop's catalogue, read once per page. */
export async function loadShop() {
  if (!session.shop) {
    const { status, data } = await api("GET", "/api/shop");
    if (status === 200) session.shop = data.items;
  }
  return session.shop || [];
}

/** Set the CSS variables of the profile's tile back and cloth on the document. */
export async function applyEquipment() {
  const p = session.profile;
  if (!p) return;
  const items = await loadShop();
  const back = items.find((i) => i.id === p.tile_back);
  const cloth = items.find((i) => i.id === p.cloth);
  const vars = {};
  if (back) {
    vars["--back-a"] = back.colors[0];
    vars["--back-b"] = back.colors[1];
    vars["--back-c"] = back.colors[2];
    vars["--back-pattern"] = patternCss(back.pattern, back.colors[2]);
  }
  if (cloth) {
    vars["--cloth-a"] = cloth.colors[0];
    vars["--felt"] = cloth.colors[1];
    vars["--felt-dark"] = cloth.colors[2];
  }
  const root = document.documentElement;
  for (const [name, value] of Object.entries(vars)) root.style.setProperty(name, value);
  const data = { tileBack: p.tile_back, cloth: p.cloth };
  Object.assign(root.dataset, data);
  rememberLook(vars, data); // the next page load starts with it (early.js)
}

/** The CSS background of a tile back's pattern ("none" for a plain back). */
export function patternCss(pattern, color) {
  if (pattern === "stripes") return `repeating-linear-gradient(45deg, transparent 0 4px, ${color}55 4px 6px)`;
  if (pattern === "dots") return `radial-gradient(${color}88 18%, transparent 20%) 0 0 / 8px 8px`;
  return "none";
}
