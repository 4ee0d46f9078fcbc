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
  // The called tile lies sideways; a closed kan shows its two outer tiles face down.
  const tiles = meld.tiles.map((tile, i) => {
    if (meld.type === "ankan" && (i === 0 || i === 3)) return tileHtml("?", "small");
    const sideways = meld.type !== "ankan" && tile === meld.called && i === meld.tiles.indexOf(meld.called);
    return tileHtml(tile, `small${sideways ? " sideways" : ""}`);
  });
  return `<span class="meld meld-${meld.type}" data-seat="${seat}">${tiles.join("")}</span>`;
}

export function signed(n) {
  return n > 0 ? `+${n.toLocaleString("en-US")}` : n.toLocaleString("en-US");
}

export function points(n) {
  return n.toLocaleString("en-US");
}
