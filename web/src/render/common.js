// Small DOM helpers shared by the renderers.
import { tileSvg } from "./tiles.js";
import { tileName } from "../i18n.js";

export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Markup of one tile; `cls` adds classes (sideways, called, small ...). */
export function tileHtml(tile, cls = "") {
  return `<span class="tile ${cls}" role="img" aria-label="${esc(tileName(tile))}">${tileSvg(tile)}</span>`;
}

export function meldHtml(meld, seat) {
  // The called tile lies sideways; a closed kan shows its two outer tiles face down; an added
  // kan (kakan) lays the added tile sideways on top of the called one.
  const added = meld.type === "kakan" ? meld.tiles.lastIndexOf(meld.added) : -1;
  const tiles = meld.tiles.map((tile, i) => {
    if (meld.type === "ankan" && (i === 0 || i === 3)) return tileHtml("?", "small");
    if (i === added) return "";
    const sideways = meld.type !== "ankan" && tile === meld.called && i === meld.tiles.indexOf(meld.called);
    if (sideways && added >= 0) return stackedHtml(meld.tiles[added], tile);
    return tileHtml(tile, `small${sideways ? " sideways" : ""}`);
  });
  return `<span class="meld meld-${meld.type}" data-seat="${seat}">${tiles.join("")}</span>`;
}

/** The added tile of a kakan lying on the called tile, both sideways. */
export function stackedHtml(added, called) {
  return `<span class="kakan-stack">${tileHtml(added, "small sideways added")}${tileHtml(called, "small sideways")}</span>`;
}

export function signed(n) {
  return n > 0 ? `+${n.toLocaleString("en-US")}` : n.toLocaleString("en-US");
}

export function points(n) {
  return n.toLocaleString("en-US");
}
