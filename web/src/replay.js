// The replay viewer: a match from the history, an opened tenhou.net/6 log or a shared link, on
// the table's own renderer (render/*).  A list of hands with their results; jump to a hand;
// step by turn or by event; autoplay at a speed; each hand's result panel and the final
// standings as at the table; open hands only when the server sent them (the match has ended).
// Keyboard: arrows (Shift: one event; Up/Down: a hand), Space; touch: the buttons or a swipe.
import { api, errorText } from "./account-core.js";
import { request } from "./api.js";
import { has, t, tileName } from "./i18n.js";
import { delegate, html, join, meldHtml, mount, nodeOf, signed, stylesheet, tileHtml } from "./render/common.js";
import { endReason, endReasonHtml, trackEnds } from "./ending.js";
import { checkReplay } from "./fairness.js";
import { fairHtml, handEndHtml, matchEndHtml } from "./render/panels.js";
import { boardHtml, myTiles, seatName, withPlayers } from "./render/table.js";
import { handAt, handStart, indexHands, nextStop, prevStop, stateAt, turnStops } from "./replay-model.js";
import { reviewActions, reviewHtml } from "./review.js";

// The viewer's stylesheet comes with it, not with the first table: the module is ready once
// the sheet has loaded, so the viewer never shows unstyled.
await stylesheet("assets/replay.css");

const SPEEDS = [0.5, 1, 2, 4, 8, 16];
const TURN_MS = 900; // one turn at speed 1
const SWIPE_PX = 40;

const view = {
  data: null, // {seat, open, events, names, bots, ...} from the server
  hands: [],
  stops: [],
  pos: 1,
  players: null, // render/table.js players (null: practice, whose bots keep their names)
  spectator: false, // nobody at the table is "You" (a shared link, an opened log)
  openHands: true,
  speed: 1,
  timer: null,
  title: "",
  when: "", // the match's end, in the page's language (data, not a text of ours)
  log: null, // an opened file: {text, preset} (for "Save to my history"), else null
  saved: "", // what saving the opened file answered (shown under the controls)
  fair: [], // per hand, its tiles checked against the wall rebuilt from the seed (fairness.js)
  back: null, // the element to focus when the viewer closes
  review: null, // the master's review of the seat (review.js), listed beside the table
  say: () => {},
  onSaved: () => {}, // called once the opened file is kept (the history redraws its list)
};

/** Whether the viewer is open (Escape closes it before the account sheet). */
export function replayOpen() {
  return Boolean(document.getElementById("replay-view"));
}

/**
 * Open the viewer on `data` (a replay answer of the server).  `players`: the seats' names for
 * the renderer (null: practice); `spectator`: no seat is "You"; `log`: {text, preset} of an
 * opened file, offered for saving, and `onSaved()` called once it is kept; `say(note, error)`:
 * where messages go; `review`: the master's review of the seat (review.js), listed beside the
 * table.
 */
export function openViewer(data, { players = null, spectator = false, title = "", when = "", log = null, say = () => {}, review = null, onSaved = () => {} } = {}) {
  stopPlay();
  Object.assign(view, { data, players, spectator, title, when, log, say, review, onSaved, openHands: data.open, saved: "", fair: [] });
  view.hands = indexHands(data.events);
  view.stops = turnStops(data.events);
  view.pos = view.hands.length ? handStart(view.hands, 0) : Math.min(1, data.events.length);
  view.back = document.activeElement;
  draw();
  document.getElementById("replay-next-turn")?.focus();
  checkWalls(data);
}

/** A finished match's walls, rebuilt from its seed, against every tile of the replay (in the
 * background: SHA-256 is asynchronous); each hand's result panel gets its line. */
async function checkWalls(data) {
  const checks = await checkReplay(data.events, view.hands);
  if (view.data !== data || !checks.length) return;
  view.fair = checks;
  draw();
}

/** Players for the renderer from a replay answer's names and bot levels. */
export function playersOf(data) {
  return [0, 1, 2].map((seat) => ({ seat, name: data.names?.[seat] || null, bot_level: data.bots?.[seat] || null }));
}

/** A share link's replay (/?replay=<id>), opened over the page. */
export async function openSharedReplay(share) {
  const { status, data } = await request("GET", `/api/shared/${encodeURIComponent(share)}`);
  if (status !== 200) {
    openMessage(errorText(data, status));
    return;
  }
  openViewer(data, { players: playersOf(data), spectator: true, title: t("replay.shared") });
}

export function closeViewer() {
  stopPlay();
  document.getElementById("replay-view")?.remove();
  view.data = null;
  if (view.back && document.contains(view.back)) view.back.focus();
}

// --- moving -----------------------------------------------------------------------------------

function n() {
  return view.data.events.length;
}

function go(pos) {
  view.pos = Math.max(1, Math.min(n(), pos));
  draw();
}

const moves = {
  nextTurn: () => go(nextStop(view.stops, view.pos, n())),
  prevTurn: () => go(prevStop(view.stops, view.pos)),
  nextEvent: () => go(view.pos + 1),
  prevEvent: () => go(view.pos - 1),
  nextHand: () => {
    const i = handAt(view.hands, view.pos);
    go(i + 1 < view.hands.length ? handStart(view.hands, i + 1) : n());
  },
  prevHand: () => {
    const i = handAt(view.hands, view.pos);
    if (i < 0) return go(1);
    const start = handStart(view.hands, i);
    go(view.pos > start || i === 0 ? start : handStart(view.hands, i - 1));
  },
  hand: (i) => go(handStart(view.hands, i)),
};

/** Autoplay: a turn every TURN_MS / speed, stopping at each hand's result and at the end. */
function togglePlay() {
  if (view.timer) stopPlay();
  else {
    view.timer = true;
    tick();
  }
  draw();
}

function tick() {
  if (!view.timer) return;
  view.timer = setTimeout(() => {
    if (!view.timer || !view.data) return;
    moves.nextTurn();
    if (atResult() || view.pos >= n()) {
      stopPlay();
      draw();
      return;
    }
    tick();
  }, TURN_MS / view.speed);
}

function stopPlay() {
  if (view.timer && view.timer !== true) clearTimeout(view.timer);
  view.timer = null;
}

function atResult() {
  const e = view.data.events[view.pos - 1];
  return Boolean(e) && ["HandWon", "HandDrawn", "HandAborted", "MatchEnded"].includes(e.type) && !isDoubleRonFirst(view.pos - 1);
}

/** A double ron is two HandWon in a row: the first is not yet the hand's result. */
function isDoubleRonFirst(i) {
  return view.data.events[i].type === "HandWon" && view.data.events[i + 1]?.type === "HandWon";
}

// --- drawing ----------------------------------------------------------------------------------

function draw() {
  if (!view.data) return;
  withPlayers(view.players, drawNow, view.spectator);
}

function root() {
  let el = document.getElementById("replay-view");
  if (!el) {
    el = nodeOf(html`<div id="replay-view" class="overlay sheet replay-view" role="dialog" aria-modal="true" aria-labelledby="replay-title"></div>`);
    el.addEventListener("keydown", onKey);
    el.addEventListener("click", onPanelClick);
    delegate(el, "click", ACTIONS);
    delegate(el, "change", ACTIONS);
    el.addEventListener("pointerdown", onSwipeStart);
    el.addEventListener("pointerup", onSwipeEnd);
    document.body.append(el);
  }
  return el;
}

/** What the viewer's controls do (data-act; clicks, and the speed's change). */
const ACTIONS = {
  close: (el, ev) => ev.type === "click" && closeViewer(),
  "close-message": (el, ev) => ev.type === "click" && root().remove(),
  "prev-hand": (el, ev) => ev.type === "click" && moves.prevHand(),
  "prev-turn": (el, ev) => ev.type === "click" && moves.prevTurn(),
  "prev-event": (el, ev) => ev.type === "click" && moves.prevEvent(),
  play: (el, ev) => ev.type === "click" && togglePlay(),
  "next-event": (el, ev) => ev.type === "click" && moves.nextEvent(),
  "next-turn": (el, ev) => ev.type === "click" && moves.nextTurn(),
  "next-hand": (el, ev) => ev.type === "click" && moves.nextHand(),
  hand: (el, ev) => ev.type === "click" && moves.hand(Number(el.dataset.hand) - 1),
  speed: (el, ev) => ev.type === "change" && setSpeed(Number(el.value)),
  "open-hands": (el, ev) => {
    if (ev.type !== "click") return;
    view.openHands = !view.openHands;
    draw();
  },
  save: (el, ev) => ev.type === "click" && saveLog(),
  ...reviewActions((pos) => {
    stopPlay();
    go(pos);
  }, draw),
};

function drawNow() {
  const el = root();
  const inside = el.contains(document.activeElement);
  const focused = inside ? document.activeElement.id : "";
  const state = stateAt(view.data.events, view.hands, view.pos, view.data.seat);
  state.openHands = view.data.open && view.openHands;
  const at = handAt(view.hands, view.pos);
  const event = view.data.events[view.pos - 1];
  const said = event ? describe(event, view.data.seat) : "";
  const saved = view.saved ? html`<p class="acct-note" id="replay-saved" role="status">${view.saved}</p>` : null;
  mount(
    el,
    html`<div class="panel acct replay-panel"><div id="replay">${headRow(at)}<div class="replay-main">${handList(at)}<div class="replay-stage">${stage(state)}</div>${reviewHtml(view.review, view.pos, view.data.rules)}</div><p class="replay-event" id="replay-event" aria-live="polite">${said}</p>${controls()}${saved}${notes(at)}</div></div>`,
  );
  if (focused && document.activeElement?.id !== focused) document.getElementById(focused)?.focus();
  // A control that is gone (Save, once the file is kept) leaves the focus in the viewer, whose
  // keys listen on it: on the page's body they would reach nothing.
  if (inside && !el.contains(document.activeElement)) document.getElementById("replay-next-turn")?.focus();
}

function headRow(at) {
  const title = view.title || t("replay.title");
  const when = view.when ? html`<small class="hist-when"> ${view.when}</small>` : null;
  const handOf = view.hands.length ? html`<span id="replay-hand-of">${t("replay.hand_of", { i: Math.max(1, at + 1), n: view.hands.length })}</span>` : null;
  return html`<div class="acct-row replay-nav"><button type="button" class="ghost" id="replay-close" data-act="close">← ${t("replay.close")}</button><h2 id="replay-title">${title}${when}</h2><span class="spacer"></span>${handOf}<strong id="replay-step">${t("replay.step", { i: view.pos, n: n() })}</strong></div>`;
}

function handLabel(hand) {
  const s = hand.started;
  const round = t("round.name", { wind: t(`wind.${s.round_wind}`), n: s.dealer + 1 });
  return s.honba ? `${round} · ${t("replay.honba", { n: s.honba })}` : round;
}

function resultLabel(hand) {
  if (!hand.ends.length) return "";
  const me = view.spectator ? null : view.data.seat;
  return hand.ends
    .map((e, k) => {
      if (e.type === "HandDrawn") return t("end.draw");
      if (e.type === "HandAborted") return t("end.abort");
      // The winner's change as the result panel counts it: a riichi stick they paid this hand
      // and won back is no gain (the deltas alone would count it).
      const gain = signed(hand.changes[k][e.seat]);
      if (e.seat === e.from_seat) return t("replay.result.tsumo", { winner: seatName(e.seat, me), points: gain });
      return t("replay.result.ron", { winner: seatName(e.seat, me), from: seatName(e.from_seat, me), points: gain });
    })
    .join(" · ");
}

function handList(at) {
  const items = view.hands.map(
    (hand, i) =>
      html`<li><button type="button" class="choice${i === at ? " on" : ""}" id="replay-hand-${i + 1}" data-act="hand" data-hand="${i + 1}"${i === at ? html` aria-current="true"` : null}><span class="hand-name">${i + 1}. ${handLabel(hand)}</span><small class="hand-result">${resultLabel(hand)}</small></button></li>`,
  );
  return html`<nav class="replay-hands" aria-label="${t("replay.hands")}"><ol>${items}</ol></nav>`;
}

function stage(state) {
  if (!state.hand) return null;
  const me = state.seat;
  const result = resultHtml(state);
  const mine = myTiles(state).map((x) => tileHtml(x.tile, x.drawn ? "drawn" : ""));
  const melds = state.hand.melds[me].map((m) => meldHtml(m, me));
  return html`<div class="replay-board" role="group" aria-label="${t("replay.board")}"><div class="board">${boardHtml(state)}</div></div><div class="replay-hand" id="replay-hand">${mine}${melds}</div>${result ? html`<div class="replay-result" id="replay-result">${result}</div>` : null}`;
}

/** Why the match ended (ending.js), from its last hand's end events. */
function endReasonOf(state) {
  const ends = [];
  for (const e of view.data.events) trackEnds(ends, e); // a new hand clears them: the last hand's stay
  return endReason(state.rules, state.hand, ends, state.matchEnd);
}

/** The result panel at a hand's end (every result of a double ron), or the final standings.
 * A match end's buttons (play again ...) belong to the live table, not to a replay. */
function resultHtml(state) {
  if (!atResult()) return null;
  const me = view.spectator ? null : state.seat; // a shared link or an opened log: nobody is "you"
  if (state.matchEnd && view.pos >= n()) {
    const uma = (state.rules?.uma || []).map((u) => (u > 0 ? `+${u}` : String(u))).join(" / ");
    const umaLine = uma && state.rules?.length !== "one-hand" ? html`<p class="replay-uma">${t("replay.uma", { uma })}</p>` : null;
    const why = endReasonHtml(endReasonOf(state)); // all-last, as the live table's panel says it
    return html`${matchEndHtml(state.matchEnd, me, false, state.rules, why || "", { buttons: false, subtitle: !view.spectator })}${umaLine}`;
  }
  const last = handAt(view.hands, view.pos) === view.hands.length - 1 && view.data.events[n() - 1]?.type === "MatchEnded";
  const fair = fairHtml("replay", view.fair[handAt(view.hands, view.pos)]);
  return join(state.ending.map((item, i) => handEndHtml(item, me, last && i === state.ending.length - 1, i === 0 ? fair : "")));
}

// The controls' pictures, drawn here (a font may lack the media symbols ⏮ ⏭ ⏸).
const ICONS = {
  prevHand: html`<path d="M6 5v14"/><path d="M19 5l-10 7 10 7z" fill="currentColor"/>`,
  prevTurn: html`<path d="M12 6l-8 6 8 6zM20 6l-8 6 8 6z" fill="currentColor"/>`,
  prevEvent: html`<path d="M16 6l-8 6 8 6z" fill="currentColor"/>`,
  play: html`<path d="M8 5l11 7-11 7z" fill="currentColor"/>`,
  pause: html`<path d="M8 5v14M16 5v14" stroke-width="3"/>`,
  nextEvent: html`<path d="M8 6l8 6-8 6z" fill="currentColor"/>`,
  nextTurn: html`<path d="M4 6l8 6-8 6zM12 6l8 6-8 6z" fill="currentColor"/>`,
  nextHand: html`<path d="M18 5v14"/><path d="M5 5l10 7-10 7z" fill="currentColor"/>`,
};

function iconOf(name) {
  return html`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${ICONS[name]}</svg>`;
}

function button(id, act, icon, label, pressed = null) {
  const extra = pressed === null ? null : html` aria-pressed="${pressed}"`;
  return html`<button type="button" class="choice" id="${id}" data-act="${act}" title="${label}" aria-label="${label}"${extra}>${iconOf(icon)}</button>`;
}

function controls() {
  const playing = Boolean(view.timer);
  const speeds = SPEEDS.map((s) => html`<option value="${s}"${s === view.speed ? html` selected` : null}>${s}×</option>`);
  const open = view.data.open
    ? html`<button type="button" class="choice${view.openHands ? " on" : ""}" id="replay-open-hands" data-act="open-hands" aria-pressed="${view.openHands}" title="${t("replay.open_hands_help")}">${t("replay.open_hands")}</button>`
    : null;
  const save = view.log ? html`<button type="button" class="choice" id="replay-save" data-act="save">${t("replay.save")}</button>` : null;
  return html`<div class="acct-row replay-controls" role="group" aria-label="${t("replay.controls")}">${[
    button("replay-prev-hand", "prev-hand", "prevHand", t("replay.prev_hand")),
    button("replay-prev-turn", "prev-turn", "prevTurn", t("replay.prev_turn")),
    button("replay-prev-event", "prev-event", "prevEvent", t("replay.prev_event")),
    button("replay-play", "play", playing ? "pause" : "play", playing ? t("replay.pause") : t("replay.play"), playing),
    button("replay-next-event", "next-event", "nextEvent", t("replay.next_event")),
    button("replay-next-turn", "next-turn", "nextTurn", t("replay.next_turn")),
    button("replay-next-hand", "next-hand", "nextHand", t("replay.next_hand")),
  ]}<label class="replay-speed">${t("replay.speed")}<select id="replay-speed" data-act="speed" aria-label="${t("replay.speed")}">${speeds}</select></label>${open}${save}</div>`;
}

function notes(at) {
  const check = view.data.hands?.[at];
  const closed = view.data.open ? null : html`<p class="acct-note" id="replay-closed">${t("replay.closed_note")}</p>`;
  const differs = check && !check.match ? html`<p class="acct-error" id="replay-differs">${t("replay.differs", { detail: check.differences.join("; ") })}</p>` : null;
  return html`${closed}${differs}<p class="hint replay-keys">${t("replay.keys")}</p>`;
}

function setSpeed(speed) {
  view.speed = SPEEDS.includes(speed) ? speed : 1;
  if (view.timer) {
    stopPlay();
    view.timer = true;
    tick();
  }
}

async function saveLog() {
  const query = view.log.preset ? `?preset=${encodeURIComponent(view.log.preset)}` : "";
  const { status, data } = await api("POST", `/api/replays${query}`, undefined, { raw: view.log.text });
  view.saved = status === 201 ? t("replay.saved") : errorText(data, status);
  if (status === 201) view.log = null;
  draw();
  view.say(status === 201 ? t("replay.saved") : "", status === 201 ? "" : errorText(data, status));
  if (status === 201) view.onSaved();
}

// --- input ------------------------------------------------------------------------------------

function onKey(ev) {
  if (ev.target.closest?.("select")) return;
  const keys = {
    ArrowRight: ev.shiftKey ? moves.nextEvent : moves.nextTurn,
    ArrowLeft: ev.shiftKey ? moves.prevEvent : moves.prevTurn,
    ArrowDown: moves.nextHand,
    ArrowUp: moves.prevHand,
    Home: () => go(1),
    End: () => go(n()),
    " ": togglePlay,
    Escape: closeViewer,
  };
  const action = keys[ev.key];
  if (!action) return;
  ev.preventDefault();
  ev.stopPropagation(); // the table's and the account sheet's keys stay out of the viewer
  action();
}

/** The panels' own buttons (Next hand, To the results) move the replay instead of the table. */
function onPanelClick(ev) {
  ev.stopPropagation(); // input.js acts on [data-panel] clicks for the live table
  const which = ev.target.closest?.("[data-panel]")?.dataset.panel;
  if (which === "next") {
    const i = handAt(view.hands, view.pos);
    go(i + 1 < view.hands.length ? handStart(view.hands, i + 1) : n());
  } else if (which) go(n());
}

let swipe = null;
function onSwipeStart(ev) {
  swipe = ev.pointerType === "touch" && ev.target.closest?.(".replay-stage") ? { x: ev.clientX, y: ev.clientY } : null;
}

function onSwipeEnd(ev) {
  if (!swipe) return;
  const dx = ev.clientX - swipe.x;
  const dy = ev.clientY - swipe.y;
  swipe = null;
  if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) < Math.abs(dy)) return;
  if (dx < 0) moves.nextTurn();
  else moves.prevTurn();
}

/** A viewer with only a message (a share link that does not work). */
function openMessage(text) {
  view.back = document.activeElement;
  mount(
    root(),
    html`<div class="panel acct replay-panel"><div class="acct-row replay-nav"><button type="button" class="ghost" id="replay-close" data-act="close-message">← ${t("replay.close")}</button></div><p class="acct-error" id="replay-error" role="alert">${text}</p></div>`,
  );
  document.getElementById("replay-close")?.focus();
}

// --- the step in words --------------------------------------------------------------------------

/** One event in words (a hidden tile is not named). */
function describe(e, seat) {
  const me = view.spectator ? null : seat;
  const who = typeof e.seat === "number" ? seatName(e.seat, me) : "";
  // "You discard", not "You discards": the seat's own events have texts of their own.
  const told = (key, vars) => t(me !== null && e.seat === me && has(`${key}_you`) ? `${key}_you` : key, vars);
  const tile = (x) => (typeof x === "string" && x !== "?" ? tileName(x) : "");
  switch (e.type) {
    case "MatchStarted":
      return told("replay.ev.match_started");
    case "HandStarted":
      return told("replay.ev.hand_started");
    case "TileDrawn":
      return tile(e.tile) && (view.openHands || e.seat === seat) ? told("replay.ev.drew_tile", { who, tile: tile(e.tile) }) : told("replay.ev.drew", { who });
    case "TileDiscarded":
      return told(e.riichi ? "replay.ev.riichi_discard" : "replay.ev.discard", { who, tile: tile(e.tile) });
    case "RiichiAccepted":
      return told("replay.ev.riichi", { who });
    case "MeldCalled":
      return told("replay.ev.call", { who, call: t(e.meld?.type === "pon" ? "action.pon" : "action.kan") });
    case "KitaDeclared":
      return told("replay.ev.kita", { who });
    case "DoraRevealed":
      return told("replay.ev.dora", { tile: tile(e.indicator) });
    case "HandWon":
      return told(e.from_seat === e.seat ? "replay.ev.tsumo" : "replay.ev.ron", { who });
    case "HandDrawn":
      return t("end.draw");
    case "HandAborted":
      return t("end.abort");
    case "MatchEnded":
      return told("replay.ev.match_ended");
    default:
      return "";
  }
}
