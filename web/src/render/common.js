// Small DOM helpers shared by the renderers.
import { tileSvg } from "./tiles.js";
import { getLang, tileName } from "../i18n.js";

export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Markup of one tile; `cls` adds classes (sideways, called, small ...), `note` words for
 * screen readers after its name. */
export function tileHtml(tile, cls = "", note = "") {
  const label = note ? `${tileName(tile)}, ${note}` : tileName(tile);
  return `<span class="tile ${cls}" role="img" aria-label="${esc(label)}">${tileSvg(tile)}</span>`;
}

export function meldHtml(meld, seat) {
  // A closed kan shows its two outer tiles face down.
  if (meld.type === "ankan") {
    const tiles = meld.tiles.map((tile, i) => tileHtml(i === 0 || i === 3 ? "?" : tile, "small"));
    return `<span class="meld meld-ankan" data-seat="${seat}">${tiles.join("")}</span>`;
  }
  // The called tile lies sideways on the side of the seat that gave it: the next seat sits on
  // the right, the one before on the left.  An added kan (kakan) lays the added tile sideways
  // on top of the called one.
  const rest = [...meld.tiles];
  rest.splice(rest.indexOf(meld.called), 1);
  if (meld.type === "kakan") rest.splice(rest.lastIndexOf(meld.added), 1);
  const called = meld.type === "kakan" ? stackedHtml(meld.added, meld.called) : tileHtml(meld.called, "small sideways");
  const plain = rest.map((tile) => tileHtml(tile, "small"));
  const fromRight = (meld.from_seat - seat + 3) % 3 === 1;
  const tiles = fromRight ? [...plain, called] : [called, ...plain];
  return `<span class="meld meld-${meld.type}" data-seat="${seat}" data-from="${fromRight ? "right" : "left"}">${tiles.join("")}</span>`;
}

/** The added tile of a kakan lying on the called tile, both sideways. */
export function stackedHtml(added, called) {
  return `<span class="kakan-stack">${tileHtml(added, "small sideways added")}${tileHtml(called, "small sideways")}</span>`;
}

/** The number format of the page's language: 35,000 in English, 35.000 in Indonesian. */
export function numberLocale() {
  return getLang() === "id" ? "id-ID" : "en-US";
}

const formats = new Map();
function format(n) {
  const locale = numberLocale();
  if (!formats.has(locale)) formats.set(locale, new Intl.NumberFormat(locale));
  return formats.get(locale).format(n);
}

export function signed(n) {
  return n > 0 ? `+${format(n)}` : format(n);
}

export function points(n) {
  return format(n);
}
