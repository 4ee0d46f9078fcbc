// Small DOM helpers shared by the renderers.
import { tileSvg } from "./tiles.js";
import { localeOf, tileName } from "../i18n.js";

// --- the client's one DOM builder -----------------------------------------------------------
// Every screen is markup from the `html` template, put in the page by `mount` (or made a node
// by `nodeOf`); events are caught by delegation (`delegate`, `data-act` attributes), not by
// listeners on each element.  Markup strings suit the table's hot path: a part is replaced only
// when its markup changed, and comparing two strings is cheap (docs/architecture.md, "One DOM
// builder").  These three are the only places that parse HTML (tests/test_web_builder.py).

/** Markup made by `html`: a string whose every interpolated value was escaped. */
export class Markup {
  constructor(text) {
    this.text = text;
  }

  toString() {
    return this.text;
  }
}

const EMPTY = new Markup("");

// What needs escaping, tested before replacing: most values (classes, numbers, tile codes)
// have none of these, and the table builds its markup on every frame.
const SPECIAL = /[&<>"']/;

function piece(value) {
  if (value instanceof Markup) return value.text;
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) {
    let out = "";
    for (const item of value) out += piece(item);
    return out;
  }
  const text = String(value);
  return SPECIAL.test(text) ? esc(text) : text;
}

/** Tagged template: `html\`<b>${name}</b>\`` escapes `name` (a player's name stays text)
 * unless it is Markup already; arrays are joined; null and undefined add nothing (a boolean
 * is written out: aria-pressed="${on}"). */
export function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new Markup(out);
}

/** Markup made of `parts` (Markup, text or arrays of them), in order. */
export function join(parts) {
  return parts.length ? new Markup(piece(parts)) : EMPTY;
}

function checked(markup) {
  if (!(markup instanceof Markup)) throw new TypeError(`mount takes markup made by html\`\`, not ${typeof markup}`);
  return markup.text;
}

/** Put `markup` in `el`, unless `el` already shows exactly that markup (most table frames
 * change one part: the others are left alone).  `force`: replace even then (the element was
 * changed since by other means).  Whether it replaced anything. */
export function mount(el, markup, force = false) {
  const text = checked(markup);
  if (!force && el.sanmaHtml === text) return false;
  el.innerHTML = text;
  el.sanmaHtml = text;
  return true;
}

/** The first element of `markup`, as a node not yet in the page. */
export function nodeOf(markup) {
  const box = document.createElement("template");
  box.innerHTML = checked(markup);
  return box.content.firstElementChild;
}

const sheets = new Map();

/** Add the stylesheet at `href` (relative to the page) to the page once; settles when it has
 * loaded (or failed: the page goes on unstyled rather than stuck). */
export function stylesheet(href) {
  if (!sheets.has(href)) {
    sheets.set(href, new Promise((resolve) => {
      const link = nodeOf(html`<link rel="stylesheet" href="${href}">`);
      link.addEventListener("load", resolve);
      link.addEventListener("error", resolve);
      document.head.append(link);
    }));
  }
  return sheets.get(href);
}

/** Call `handlers[name](el, ev)` for each `type` event (click, change, keydown ...) inside
 * `root` on or under an element with `data-act="name"`. */
export function delegate(root, type, handlers) {
  root.addEventListener(type, (ev) => {
    const el = ev.target.closest?.("[data-act]");
    if (!el || !root.contains(el)) return;
    const handler = handlers[el.dataset.act];
    if (handler) handler(el, ev);
  });
}

export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// The tile pictures are SVG drawn in tiles.js from constants and the tile's code alone: the one
// text taken as markup without escaping.  A code that is not a tile shows as a back.
const TILE_CODE = /^(\?|[0-9][mpsz])$/;
const pictures = new Map();

/** The SVG picture of a wire tile ("1m", "0p", "7z"; "?" a back). */
export function tilePicture(tile) {
  const code = TILE_CODE.test(tile) ? tile : "?";
  if (!pictures.has(code)) pictures.set(code, new Markup(tileSvg(code)));
  return pictures.get(code);
}

/** Markup of one tile; `cls` adds classes (sideways, called, small ...), `note` words for
 * screen readers after its name. */
export function tileHtml(tile, cls = "", note = "") {
  const label = note ? `${tileName(tile)}, ${note}` : tileName(tile);
  return html`<span class="tile ${cls}" role="img" aria-label="${label}">${tilePicture(tile)}</span>`;
}

export function meldHtml(meld, seat) {
  // A closed kan shows its two outer tiles face down.
  if (meld.type === "ankan") {
    const tiles = meld.tiles.map((tile, i) => tileHtml(i === 0 || i === 3 ? "?" : tile, "small"));
    return html`<span class="meld meld-ankan" data-seat="${seat}">${tiles}</span>`;
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
  return html`<span class="meld meld-${meld.type}" data-seat="${seat}" data-from="${fromRight ? "right" : "left"}">${tiles}</span>`;
}

/** The added tile of a kakan lying on the called tile, both sideways. */
export function stackedHtml(added, called) {
  return html`<span class="kakan-stack">${tileHtml(added, "small sideways added")}${tileHtml(called, "small sideways")}</span>`;
}

/** The number format of the page's language (i18n.js LOCALES): 35,000 in English and Japanese,
 * 35.000 in Indonesian, 35 000 in Russian. */
export function numberLocale() {
  return localeOf("number");
}

// Points are whole numbers: grouped by hand rather than by Intl.NumberFormat, whose first use
// in a page loads the locale data (about 45 ms on this machine, all of it before the first
// table could show its scores).  The panels' one-decimal uma still uses Intl, after the table.
// Each locale's separator, as Intl writes it: Russian's is a no-break space, so a score never
// breaks across lines (tests/test_i18n.py holds the two to the same text).
const GROUP_SEPARATOR = { "en-US": ",", "id-ID": ".", "ja-JP": ",", "ru-RU": "\u00a0" };
function format(n) {
  const digits = String(Math.abs(Math.trunc(n))).replace(/\B(?=(\d{3})+$)/g, GROUP_SEPARATOR[numberLocale()]);
  return n < 0 ? `-${digits}` : digits;
}

export function signed(n) {
  return n > 0 ? `+${format(n)}` : format(n);
}

export function points(n) {
  return format(n);
}
