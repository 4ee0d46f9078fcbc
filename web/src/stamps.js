// Stamps at the table (docs/rooms.md, "Stamps"): eight friendly reactions drawn by our own SVG
// (no free text with strangers), sent from a table whose welcome says `stamps: true` (a friend
// room's seat), shown beside the sender's seat for a few seconds, and read out by the page's
// polite live region (`#app`).  A picker opens from a button just above the own area's right
// end, by the hand and not in the crowded top bar (Tab, Enter or Space; Escape closes it and
// the focus goes back to the button).  "Mute others' stamps" in the
// table's menu (kept in localStorage) hides and silences everyone's stamps but one's own.
// The server refuses, limits and shows (docs/protocol.md); a refused stamp shows nothing.
import { $, app } from "./app.js";
import { t } from "./i18n.js";
import { html, join, mount, nodeOf, stylesheet } from "./render/common.js";
import { inRoom, seatName } from "./render/table.js";
import { watching } from "./rooms.js";

/** The stamps, in the picker's order: the server's `protocol.STAMPS` (tests/test_stamps_e2e.py). */
export const STAMP_IDS = ["hello", "nice", "thanks", "sorry", "wow", "think", "gg", "cry"];
const MUTE_KEY = "sanma.stamps_mute";
const SHOWN_MS = 3000;

// Whether this seat may send (its welcome said so), the picker, and the bubbles on view by seat.
const stamps = { allowed: false, open: false, shown: new Map() };

// -- the drawings: 48x48, a gold face (or a badge) in the table's palette ------------------------

const INK = "#2a1d05";
const face = (body) => html`<circle cx="24" cy="25" r="19" fill="#f0c35a" stroke="#7a5614" stroke-width="2"/>${body}`;
const eyes = html`<circle cx="17.5" cy="21" r="2.4" fill="${INK}"/><circle cx="30.5" cy="21" r="2.4" fill="${INK}"/>`;
const line = (d, width = 2.6) => html`<path d="${d}" fill="none" stroke="${INK}" stroke-width="${width}" stroke-linecap="round" stroke-linejoin="round"/>`;

const DRAWINGS = {
  hello: () => face(html`${eyes}${line("M16 29q8 8 16 0")}<path d="M40 6l3 -3M43 12h4M37 3v-3" stroke="#fbf7ec" stroke-width="2.4" stroke-linecap="round"/>`),
  nice: () => html`<circle cx="24" cy="24" r="21" fill="#2e9e6a" stroke="#0f5b3e" stroke-width="2"/>
    <path d="M12 22h5v13h-5zM19 34V22l5.5-9.5c2.2 0 3.5 1.6 3.1 3.8L26.5 22h7.3c1.9 0 3.2 1.7 2.8 3.5l-1.8 7.2c-.4 1.4-1.6 2.3-3 2.3z" fill="#fbf7ec" stroke="#0f5b3e" stroke-width="1.6" stroke-linejoin="round"/>`,
  thanks: () => face(html`${line("M14 21q3.5 -4 7 0M27 21q3.5 -4 7 0")}${line("M17 29q7 6 14 0")}<circle cx="13" cy="28" r="2.6" fill="#e98a6a" opacity=".7"/><circle cx="35" cy="28" r="2.6" fill="#e98a6a" opacity=".7"/>
    <path d="M38 4c2-3 7-2 6 2-.5 2.5-4 5-6 6.5-2-1.5-5.5-4-6-6.5-1-4 4-5 6-2z" fill="#d64545"/>`),
  sorry: () => face(html`${line("M13 18.5l7 -2.5M35 18.5l-7 -2.5", 2.2)}${eyes}${line("M18 32q6 -3 12 0")}<path d="M38 10c2 3.2 3.5 5.2 3.5 7a3.5 3.5 0 0 1 -7 0c0-1.8 1.5-3.8 3.5-7z" fill="#6fb7e8" stroke="#2c6f9e" stroke-width="1.2"/>`),
  wow: () => face(html`<circle cx="17.5" cy="20" r="3.4" fill="#fbf7ec" stroke="${INK}" stroke-width="2"/><circle cx="30.5" cy="20" r="3.4" fill="#fbf7ec" stroke="${INK}" stroke-width="2"/>
    <circle cx="17.5" cy="20.5" r="1.4" fill="${INK}"/><circle cx="30.5" cy="20.5" r="1.4" fill="${INK}"/><ellipse cx="24" cy="32" rx="3.6" ry="4.6" fill="${INK}"/>`),
  think: () => face(html`<circle cx="18.5" cy="20" r="2.4" fill="${INK}"/><circle cx="31.5" cy="20" r="2.4" fill="${INK}"/>${line("M13 14.5l7 -1.5", 2.2)}${line("M18 32h10l3 -2")}
    <rect x="28" y="1" width="19" height="11" rx="5.5" fill="#fbf7ec" stroke="#7a5614" stroke-width="1.4"/><circle cx="32.5" cy="6.5" r="1.5" fill="${INK}"/><circle cx="37.5" cy="6.5" r="1.5" fill="${INK}"/><circle cx="42.5" cy="6.5" r="1.5" fill="${INK}"/>`),
  gg: () => html`<path d="M24 3l5 4.5 6.5-.8 1.6 6.4 5.9 2.9-1.9 6.3 3 5.8-5.3 3.8-.5 6.6-6.6.2-4.3 5-4.3-5-6.6-.2-.5-6.6-5.3-3.8 3-5.8-1.9-6.3 5.9-2.9 1.6-6.4 6.5.8z" fill="#d64545" stroke="#7a1f1f" stroke-width="1.6" stroke-linejoin="round"/>
    <text x="24" y="29.5" text-anchor="middle" font-family="Georgia, 'DejaVu Serif', serif" font-weight="900" font-size="15" fill="#fbf7ec">GG</text>`,
  cry: () => face(html`${line("M14 20q3.5 2.5 7 0M27 20q3.5 2.5 7 0")}${line("M18 33q6 -5 12 0")}<path d="M15 24c-1.8 4-3 6.4-3 8.2a3 3 0 0 0 6 0c0-1.8-1.2-4.2-3-8.2zM33 24c-1.8 4-3 6.4-3 8.2a3 3 0 0 0 6 0c0-1.8-1.2-4.2-3-8.2z" fill="#6fb7e8" stroke="#2c6f9e" stroke-width="1.2"/>`),
};

/** Stamp `id` as inline SVG, decorative (its name is said beside it). */
export function stampSvg(id) {
  const draw = DRAWINGS[id];
  return html`<svg class="stamp-art" viewBox="0 0 48 48" aria-hidden="true" focusable="false">${draw ? draw() : null}</svg>`;
}

// -- the setting -----------------------------------------------------------------------------------

/** Whether others' stamps are muted (a setting of this browser). */
export function stampsMuted() {
  return localStorage.getItem(MUTE_KEY) === "on";
}

/** The menu's checkbox, at tables where stamps may be seen (a friend room's, played or watched). */
export function stampsMuteHtml() {
  if (!stamps.allowed && !inRoom()) return null;
  const on = stampsMuted();
  return html`<button type="button" class="menu-toggle stamps-mute${on ? " on" : ""}" data-stamps-mute role="menuitemcheckbox"
    aria-checked="${on}" title="${t("stamps.mute.help")}">${t("stamps.mute")}</button>`;
}

function setMuted(on) {
  localStorage.setItem(MUTE_KEY, on ? "on" : "off");
  if (on) for (const seat of [...stamps.shown.keys()]) if (!isMine(seat)) unshow(seat);
}

// -- the match's frames ----------------------------------------------------------------------------

/** After a welcome: whether this seat may send (the server's `stamps`), nothing left on view. */
export function stampsWelcome(welcome) {
  stamps.allowed = Boolean(welcome.stamps) && !welcome.spectator;
  closePicker(false);
  renderStampButton();
  for (const seat of [...stamps.shown.keys()]) unshow(seat);
  if (stamps.allowed || welcome.players) stylesheet("assets/stamps.css");
}

/** A `stamp` frame is shown beside its seat (others' only when not muted). True when the
 * frame was a stamp. */
export function stampFrame(frame) {
  if (frame.t !== "stamp") return false;
  if (STAMP_IDS.includes(frame.id) && (isMine(frame.seat) || !stampsMuted())) show(frame.seat, frame.id);
  return true;
}

const isMine = (seat) => !watching() && seat === app.state.seat;

/** Where a seat's stamp goes: an opponent's box (beside its name plate), or the own area. */
function anchorOf(seat) {
  if (seat === app.state.seat) return document.querySelector("#game .me-area");
  return document.querySelector(`#game .opponent[data-seat="${seat}"]`);
}

function show(seat, id) {
  const game = $("game");
  const anchor = anchorOf(seat);
  if (!game || game.hidden || !anchor) return;
  stylesheet("assets/stamps.css");
  unshow(seat);
  const name = t(`stamps.name.${id}`);
  // Inserted into the page's polite live region (#app): read out as "Sari: Nice!".
  const el = nodeOf(html`<div class="stamp-shown" data-testid="stamp-shown" data-seat="${seat}" data-stamp="${id}">${stampSvg(id)}<span class="stamp-word"><span class="sr-only">${seatName(seat, watching() ? null : app.state.seat)}: </span>${name}</span></div>`);
  game.append(el);
  place(el, anchor, seat === app.state.seat);
  const timer = setTimeout(() => unshow(seat), SHOWN_MS);
  stamps.shown.set(seat, { el, timer });
}

/** Beside the anchor, never past the table's edge: just above the own area's left end; an
 * opponent's on the side of its box that faces the table, level with its name plate, where
 * that covers no other seat nor the centre (else under the name plate, over the backs). */
function place(el, anchor, own) {
  const g = $("game").getBoundingClientRect();
  const r = anchor.getBoundingClientRect();
  const w = el.offsetWidth;
  const h = el.offsetHeight;
  let x = r.left + 12;
  let y = r.top - h - 6;
  if (!own) {
    const plate = anchor.querySelector(".nameplate")?.getBoundingClientRect() || r;
    const inward = r.left + r.width / 2 < g.left + g.width / 2 ? r.right + 8 : r.left - w - 8;
    const others = [...document.querySelectorAll("#game .opponent, #game .centre")].filter((b) => b !== anchor);
    const clear = inward >= g.left && inward + w <= g.right && !others.some((b) => overlaps(b.getBoundingClientRect(), inward, plate.top, w, h));
    [x, y] = clear ? [inward, plate.top] : [plate.left + plate.width / 2 - w / 2, plate.bottom + 4];
  }
  el.style.left = `${Math.max(4, Math.min(g.width - w - 4, x - g.left))}px`;
  el.style.top = `${Math.max(4, Math.min(g.height - h - 4, y - g.top))}px`;
}

const overlaps = (b, x, y, w, h) => b.left < x + w && x < b.right && b.top < y + h && y < b.bottom;

function unshow(seat) {
  const shown = stamps.shown.get(seat);
  if (!shown) return;
  clearTimeout(shown.timer);
  shown.el.remove();
  stamps.shown.delete(seat);
}

// -- the button and the picker ---------------------------------------------------------------------

/** The button above the own area's right end, shown where this seat may send (each render of
 * the table; one element for the page, so the focus can come back to it). */
export function renderStampButton() {
  let el = $("stamp-btn");
  if (!el) {
    el = nodeOf(html`<button type="button" id="stamp-btn" class="stamp-btn" data-stamp-open aria-haspopup="menu"
      aria-controls="stamp-picker" aria-expanded="false" hidden></button>`);
    document.querySelector("#game .me-area").append(el);
  }
  el.hidden = !stamps.allowed;
  el.setAttribute("aria-label", t("stamps.send"));
  el.setAttribute("title", t("stamps.send"));
  mount(el, stamps.allowed ? stampSvg("hello") : html``);
}

function picker() {
  let el = $("stamp-picker");
  if (!el) {
    el = nodeOf(html`<div id="stamp-picker" class="stamp-picker" role="menu" data-testid="stamp-picker" hidden></div>`);
    $("game").append(el);
  }
  return el;
}

function renderPicker() {
  const el = picker();
  el.hidden = !stamps.open;
  el.setAttribute("aria-label", t("stamps.picker"));
  const items = STAMP_IDS.map((id) => {
    const name = t(`stamps.name.${id}`);
    return html`<button type="button" class="stamp-choice" role="menuitem" data-stamp-send="${id}" aria-label="${name}" title="${name}">${stampSvg(id)}</button>`;
  });
  mount(el, stamps.open ? join(items) : html``);
  $("stamp-btn")?.setAttribute("aria-expanded", String(stamps.open));
  if (!stamps.open) return;
  // Above the button, its right edges in line (kept inside the table).
  const button = $("stamp-btn").getBoundingClientRect();
  const g = $("game").getBoundingClientRect();
  const x = Math.max(4, Math.min(g.width - el.offsetWidth - 4, button.right - g.left - el.offsetWidth));
  el.style.left = `${x}px`;
  el.style.top = `${Math.max(4, button.top - g.top - el.offsetHeight - 6)}px`;
}

async function openPicker() {
  if (!stamps.allowed) return;
  await stylesheet("assets/stamps.css"); // laid out with its styles: placed by its size
  stamps.open = true;
  renderPicker();
  picker().querySelector("button")?.focus();
}

/** Close the picker; `refocus`: the focus back on the stamp button (a pick, Escape). */
function closePicker(refocus = true) {
  if (!stamps.open) return;
  stamps.open = false;
  renderPicker();
  if (refocus) $("stamp-btn")?.focus();
}

function send(id) {
  closePicker(); // nothing else happens here: the server's frame shows it, a refusal shows nothing
  if (stamps.allowed && app.conn) app.conn.send({ t: "stamp", id });
}

// -- events (registered when the module loads, before input.js's: see keydown) -------------------

document.addEventListener("click", (ev) => {
  const el = ev.target.closest?.("button");
  if (el?.dataset.stampOpen !== undefined) {
    if (stamps.open) closePicker();
    else openPicker();
  } else if (el?.dataset.stampSend) send(el.dataset.stampSend);
  else if (el?.dataset.stampsMute !== undefined) {
    setMuted(!stampsMuted());
    import("./menu.js").then((m) => m.renderMenu());
  } else if (stamps.open && !ev.composedPath().some((x) => x.id === "stamp-picker")) closePicker(false);
});

// While the picker is open its keys are its own: Escape closes it (not Skip), the arrows move
// between stamps, and no key reaches the table's hotkeys (Tab, Enter and Space do their usual).
document.addEventListener("keydown", (ev) => {
  if (!stamps.open) return;
  const items = [...picker().querySelectorAll("button")];
  const at = items.indexOf(document.activeElement);
  const step = { ArrowRight: 1, ArrowDown: 4, ArrowLeft: -1, ArrowUp: -4 }[ev.key];
  if (ev.key === "Escape") {
    ev.preventDefault();
    closePicker();
  } else if (step && at >= 0) {
    ev.preventDefault();
    items[(at + step + items.length) % items.length].focus();
  }
  ev.stopImmediatePropagation();
});

// Tabbing out of the picker closes it (the focus stays where it went).
document.addEventListener("focusout", (ev) => {
  if (!stamps.open || !ev.target.closest?.("#stamp-picker")) return;
  const to = ev.relatedTarget;
  if (to && !to.closest?.("#stamp-picker") && to.id !== "stamp-btn") closePicker(false);
});
