// The quick match (docs/quick.md): the start card's button with the player's rank, the sheet
// that picks length, red fives and the wait before bots, the wait itself on the queue socket
// (/ws/quick) until the server seats the player, and the leaderboard (docs/ranks.md). The
// seat found is opened like a friend room's started match: `enterMatch(match)` (match.js
// `connect`), whose hello on /ws names the match.
import { request, sessionToken } from "./api.js";
import { icon } from "./icons.js";
import { rankName, t } from "./i18n.js";
import { html, mount, nodeOf, points, stylesheet } from "./render/common.js";

stylesheet("assets/quick.css");

const CHOICE_KEY = "sanma.quick"; // this browser's last choices: {length, red_fives, wait_s}
const LENGTHS = ["east", "east-south"];
const INFO_FRESH_MS = 10_000; // GET /api/quick asked again when older (the start card redrawn)
const POLL_MS = 5000; // the sheet's "n waiting" while it is open and not queued
// A lost queue socket is opened again this many times (a server process may have died: the
// queue lives in the bus, another process seats the player), after these pauses.
const RETRY_MS = [400, 1000, 2500];

const quick = {
  enterMatch: null, // (match) => the table opened on that match (main.js wires match.js connect)
  view: null, // null (closed) | "home" | "waiting" | "failed" | "board"
  info: null, // GET /api/quick's answer: wait_s, wait_choices, waiting, ranks
  infoAt: 0, // when it was asked for (performance.now), 0: never
  asking: null, // the call in flight
  error: "", // the home view's message (already queued, refused)
  ws: null, // the queue socket while waiting
  queued: null, // the last `queued` frame
  tries: 0, // sockets lost in a row while waiting
  requeued: false, // `quick_failed` already answered by queueing again once
  retry: null, // the pause before opening the socket again
  poll: null,
  board: { length: null, data: null, error: false },
  opener: null, // the element to give the focus back to
  endOf: null, // the quick match whose end asked for the standing last,
  endAt: 0, // and when: only an answer asked for after that is its standing
};

/** The choices kept in this browser; the wait is the server's default until one is chosen. */
function choices() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(CHOICE_KEY) || "{}") || {};
  } catch {
    saved = {};
  }
  const waits = quick.info?.wait_choices || [];
  const wait = waits.includes(saved.wait_s) ? saved.wait_s : quick.info?.wait_s ?? saved.wait_s ?? 20;
  return {
    length: LENGTHS.includes(saved.length) ? saved.length : "east",
    red_fives: saved.red_fives !== false,
    wait_s: wait,
  };
}

function choose(name, value) {
  const c = choices();
  c[name] = name === "red_fives" ? value === "true" : name === "wait_s" ? Number(value) : value;
  localStorage.setItem(CHOICE_KEY, JSON.stringify(c));
}

// --- the player's standing: GET /api/quick ---------------------------------------------------

/** Ask the server again (the start card, the sheet, after a match); redraws what shows it. */
function refreshInfo(force = false) {
  if (quick.asking || (!force && quick.infoAt && performance.now() - quick.infoAt < INFO_FRESH_MS)) return quick.asking;
  const askedAt = performance.now();
  quick.asking = request("GET", "/api/quick", { token: sessionToken() }).then(({ status, data }) => {
    quick.asking = null;
    if (status !== 200) return;
    quick.info = data;
    quick.infoAt = askedAt; // the standing as it was when asked
    const mini = document.getElementById("quick-mini");
    if (mini) mount(mini, miniHtml());
    if (quick.view === "home") render();
  });
  return quick.asking;
}

/** "2 kyu · 40/60 pts" for `length`, or "" before the server answered. */
export function rankLine(rank) {
  if (!rank) return "";
  const name = rankName(rank.rank);
  const shown = points(rank.points);
  return rank.promote_at === null || rank.promote_at === undefined
    ? t("quick.rank_top", { rank: name, points: shown })
    : t("quick.rank_points", { rank: name, points: shown, target: points(rank.promote_at) });
}

function miniHtml() {
  const rank = quick.info?.ranks?.[choices().length];
  return rank ? html`${rankLine(rank)}` : html``;
}

/** The start card's button: Quick match, with the rank for the chosen length under it. */
export function quickButtonHtml() {
  refreshInfo();
  return html`<button type="button" class="primary quick-open" data-quick-cmd="open">
    <span class="quick-label">${icon("fast")} ${t("quick.open")}</span><span class="quick-mini" id="quick-mini" data-testid="quick-mini">${miniHtml()}</span></button>`;
}

/** The match-end panel's line at a quick match: the player's place on the ladder after it
 * ("East round: 5 kyu · 0/20 pts"). The server moved the rank in the transaction that stored
 * the match's end, so the standing is asked for once the end is shown (`redraw` when it comes);
 * an answer from before the end is not shown. */
export function quickEndHtml(match, length, redraw) {
  if (!LENGTHS.includes(length)) return null;
  if (quick.endOf !== match) {
    quick.endOf = match;
    quick.endAt = performance.now();
    // A call already on its way was asked before the end: this one after it.
    Promise.resolve(quick.asking).then(() => refreshInfo(true)).then(redraw);
  }
  const rank = quick.infoAt > quick.endAt ? quick.info?.ranks?.[length] : null;
  if (!rank) return null;
  return html`<p class="quick-end-rank" data-testid="quick-end-rank" data-rank="${rank.rank}" data-points="${rank.points}">${t("quick.your_rank")} (${t(`length.${length}`)}): <strong>${rankLine(rank)}</strong></p>`;
}

// --- the sheet ------------------------------------------------------------------------------

function sheet() {
  let el = document.getElementById("quick-sheet");
  if (!el) {
    el = nodeOf(html`<div id="quick-sheet" class="overlay sheet quick-sheet" hidden role="dialog" aria-modal="true" aria-labelledby="quick-title"></div>`);
    document.getElementById("app").appendChild(el);
  }
  return el;
}

function choice(name, value, current, label) {
  const on = String(current) === String(value);
  return html`<button type="button" class="choice${on ? " on" : ""}" role="radio" aria-checked="${on}" data-quick-opt="${name}" data-value="${value}">${label}</button>`;
}

function group(name, legend, buttons) {
  return html`<fieldset class="option"><legend>${legend}</legend><div class="choices" role="radiogroup" data-group="${name}">${buttons}</div></fieldset>`;
}

function homeHtml() {
  const c = choices();
  const info = quick.info;
  const waits = info?.wait_choices?.length ? info.wait_choices : [c.wait_s];
  const rank = info?.ranks?.[c.length];
  const waiting = info?.waiting?.[c.length];
  return html`
    <h2 id="quick-title">${t("quick.open")}</h2>
    <p class="hint quick-intro">${t("quick.intro")}</p>
    ${group("length", t("start.length"), LENGTHS.map((v) => choice("length", v, c.length, t(`length.${v}`))))}
    <div class="option-pair">
      ${group("red_fives", t("start.red_fives"), ["true", "false"].map((v) => choice("red_fives", v, String(c.red_fives), t(`onoff.${v}`))))}
      ${group("wait_s", t("quick.wait"), waits.map((n) => choice("wait_s", n, c.wait_s, t("quick.wait_n", { n }))))}
    </div>
    <div class="quick-standing">
      <p class="quick-rank" data-testid="quick-rank" data-rank="${rank?.rank ?? ""}" data-points="${rank?.points ?? ""}"><span class="label">${t("quick.your_rank")}</span> <strong>${rankLine(rank)}</strong></p>
      <p class="quick-waiting" data-testid="quick-waiting">${waiting === undefined ? "" : t("quick.waiting_n", { n: waiting })}</p>
      <button type="button" class="ghost" data-quick-cmd="board">${t("quick.leaderboard")}</button>
    </div>
    <button type="button" class="primary quick-find" data-quick-cmd="queue">${t("quick.find")}</button>`;
}

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The waiting line, redrawn alone at every `queued` frame (the Cancel button keeps the focus).
 * The clock is hidden from screen readers: the polite region speaks when the count changes,
 * not every second. */
function statusHtml() {
  const q = quick.queued;
  const c = choices();
  const waiting = q ? t("quick.waiting_n", { n: q.waiting }) : "";
  const bots = t("quick.bots_after", { n: q?.wait_s ?? c.wait_s });
  return html`<span class="quick-looking">${t("quick.looking")}</span> <span class="quick-clock" aria-hidden="true">${clock(q?.waited_s ?? 0)}</span>${waiting ? html` · <span class="quick-count">${waiting}</span>` : null} · <span>${bots}</span>`;
}

function waitingHtml() {
  const c = choices();
  const what = `${t(`length.${c.length}`)} · ${t("start.red_fives")}: ${t(`onoff.${c.red_fives}`)}`;
  return html`
    <h2 id="quick-title">${t("quick.open")}</h2>
    <div class="quick-spinner" aria-hidden="true"></div>
    <p class="quick-status" id="quick-status" data-testid="quick-status" aria-live="polite">${statusHtml()}</p>
    <p class="hint">${what}</p>
    <button type="button" class="ghost quick-cancel" data-quick-cmd="leave">${t("quick.cancel")}</button>`;
}

function failedHtml() {
  return html`
    <h2 id="quick-title">${t("quick.open")}</h2>
    <p class="error" role="alert" data-testid="quick-failed">${quick.error}</p>
    <div class="quick-foot"><button type="button" class="primary" data-quick-cmd="queue">${t("quick.retry")}</button>
    <button type="button" class="ghost" data-quick-cmd="home">${t("quick.close")}</button></div>`;
}

function entryRow(e, extra = "") {
  return html`<tr class="${e.you ? "you" : ""}${extra}"${e.you ? html` aria-current="true"` : null}><td class="place">${e.place}</td>
    <th scope="row" class="name">${e.name || t("quick.board.guest")}${e.you ? html` <span class="you-tag">${t("quick.board.you")}</span>` : null}</th>
    <td class="rank">${rankName(e.rank)}</td><td class="points">${points(e.points)}</td><td class="games">${points(e.games)}</td></tr>`;
}

function boardHtml() {
  const b = quick.board;
  const length = b.length || choices().length;
  const tabs = LENGTHS.map((v) => choice("board", v, length, t(`length.${v}`)));
  let body;
  if (b.error) body = html`<p class="error" role="alert">${t("quick.board.error")}</p>`;
  else if (!b.data) body = html`<div class="quick-spinner" aria-hidden="true"></div>`;
  else {
    const top = b.data.top || [];
    const you = b.data.you;
    const inTop = top.some((e) => e.you);
    const rows = top.map((e) => entryRow(e));
    // "You are here" below the top 100 too, after a gap.
    if (you && !inTop) rows.push(html`<tr class="gap" aria-hidden="true"><td colspan="5">⋯</td></tr>`, entryRow({ ...you, you: true }, " below"));
    const cols = ["place", "name", "rank", "points", "games"].map((c) => html`<th scope="col" class="${c}">${t(`quick.board.${c}`)}</th>`);
    body = top.length || you
      ? html`<div class="board-scroll"><table class="leaderboard" data-testid="leaderboard" data-length="${length}"><thead><tr>${cols}</tr></thead><tbody>${rows}</tbody></table></div>`
      : html`<p class="hint">${t("quick.board.empty")}</p>`;
  }
  return html`
    <h2 id="quick-title">${t("quick.leaderboard")}</h2>
    <div class="choices board-lengths" role="radiogroup" aria-label="${t("start.length")}">${tabs}</div>
    ${body}`;
}

function render() {
  const el = sheet();
  el.hidden = quick.view === null;
  if (quick.view === null) {
    mount(el, html``);
    return;
  }
  const body = { home: homeHtml, waiting: waitingHtml, failed: failedHtml, board: boardHtml }[quick.view]();
  const error = quick.view === "home" ? html`<p class="error" role="alert" data-testid="quick-error">${quick.error}</p>` : null;
  const close = quick.view === "waiting" ? null : html`<button type="button" class="ghost close" data-quick-cmd="close" aria-label="${t("quick.close")}">${icon("close")}</button>`;
  const panel = html`<div class="panel quick-panel quick-${quick.view}">${close}${body}${error}</div>`;
  const active = el.contains(document.activeElement) ? focusKey(document.activeElement) : null;
  if (mount(el, panel) && active) el.querySelector(active)?.focus();
}

/** A selector for the focused button, to find it again after a redraw. */
function focusKey(node) {
  const d = node.dataset || {};
  if (d.quickCmd) return `[data-quick-cmd="${d.quickCmd}"]`;
  if (d.quickOpt) return `[data-quick-opt="${d.quickOpt}"][data-value="${d.value}"]`;
  return null;
}

function show(view, focus = null) {
  quick.view = view;
  render();
  if (focus) sheet().querySelector(focus)?.focus();
  clearInterval(quick.poll);
  quick.poll = view === "home" ? setInterval(() => refreshInfo(true), POLL_MS) : null;
}

/** Open the sheet (the start card's button, or Quick match again after one). */
export function openQuick(opener = null) {
  quick.opener = opener;
  quick.error = "";
  show("home", "[data-quick-cmd=queue]");
  refreshInfo(true);
}

function close() {
  stopWaiting();
  show(null);
  const back = quick.opener?.isConnected ? quick.opener : document.querySelector("[data-quick-cmd=open]");
  back?.focus();
  refreshInfo(true);
}

// --- the wait: /ws/quick ----------------------------------------------------------------------

/** Queue with the chosen options: the sheet shows the wait until a seat, an error or Cancel. */
export function queue() {
  stopWaiting();
  quick.error = "";
  quick.queued = null;
  quick.tries = 0;
  quick.requeued = false;
  show("waiting", "[data-quick-cmd=leave]");
  openSocket();
}

function openSocket() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws/quick`);
  quick.ws = ws;
  ws.onopen = () => {
    const c = choices();
    ws.send(JSON.stringify({ t: "queue", token: sessionToken(), length: c.length, red_fives: c.red_fives, wait_s: c.wait_s }));
  };
  ws.onmessage = (msg) => {
    let frame;
    try {
      frame = JSON.parse(msg.data);
    } catch {
      return;
    }
    if (quick.ws === ws) onFrame(frame);
  };
  ws.onclose = () => {
    if (quick.ws !== ws) return; // left, seated or refused: this socket is done with
    quick.ws = null;
    lost();
  };
}

function onFrame(frame) {
  if (frame.t === "queued") {
    quick.tries = 0;
    quick.queued = frame;
    const status = document.getElementById("quick-status");
    if (status && quick.view === "waiting") mount(status, statusHtml());
  } else if (frame.t === "seated") {
    finish();
    show(null);
    quick.infoAt = 0; // the rank may move with this match: asked again on the start card
    quick.enterMatch(frame.match);
  } else if (frame.t === "left") {
    finish();
  } else if (frame.t === "error") {
    onError(frame);
  }
}

function onError(frame) {
  finish();
  if (frame.code === "quick_failed" && !quick.requeued) {
    // The table could not be started (docs/quick.md): queue again, once, by itself.
    quick.requeued = true;
    quick.queued = null;
    quick.ws = null;
    openSocket();
    return;
  }
  const known = { already_queued: "quick.already", quick_failed: "quick.failed" };
  quick.error = known[frame.code] ? t(known[frame.code]) : t("quick.refused", { code: frame.code });
  if (frame.code === "quick_failed") show("failed", "[data-quick-cmd=queue]");
  else show("home", "[data-quick-cmd=queue]");
}

/** The socket closed while waiting: open it again after a short pause, a few times; then say so. */
function lost() {
  if (quick.view !== "waiting") return;
  if (quick.tries < RETRY_MS.length) {
    quick.retry = setTimeout(() => {
      quick.retry = null;
      if (quick.view === "waiting" && !quick.ws) openSocket();
    }, RETRY_MS[quick.tries]);
    quick.tries += 1;
    return;
  }
  quick.error = t("quick.lost");
  show("failed", "[data-quick-cmd=queue]");
}

/** This socket is done with (its close is not a loss). */
function finish() {
  const ws = quick.ws;
  quick.ws = null;
  if (ws && ws.readyState <= WebSocket.OPEN) ws.close();
}

/** Cancel: the server is told (`leave`) and the sheet goes back to the choices. */
function leave() {
  const ws = quick.ws;
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: "leave" }));
  quick.ws = null; // its `left` and close are expected: neither is a loss
  if (ws && ws.readyState !== WebSocket.OPEN) ws.close();
  stopWaiting();
  show("home", "[data-quick-cmd=queue]");
  refreshInfo(true);
}

function stopWaiting() {
  clearTimeout(quick.retry);
  quick.retry = null;
  if (quick.ws) finish();
}

// --- the leaderboard ----------------------------------------------------------------------------

async function openBoard(length) {
  quick.board = { length, data: null, error: false };
  show("board", `[data-quick-opt=board][data-value="${length}"]`);
  const { status, data } = await request("GET", `/api/ranks/leaderboard?length=${encodeURIComponent(length)}`, { token: sessionToken() });
  if (quick.view !== "board" || quick.board.length !== length) return;
  quick.board = { length, data: status === 200 ? data : null, error: status !== 200 };
  render();
}

// --- events -----------------------------------------------------------------------------------

const COMMANDS = {
  open: (el) => openQuick(el),
  close: () => close(),
  home: () => show("home", "[data-quick-cmd=queue]"),
  queue: () => queue(),
  leave: () => leave(),
  board: () => openBoard(choices().length),
};

document.addEventListener("click", (ev) => {
  const el = ev.target.closest?.("button");
  if (el?.dataset.quickCmd && Object.hasOwn(COMMANDS, el.dataset.quickCmd)) COMMANDS[el.dataset.quickCmd](el);
  else if (el?.dataset.quickOpt === "board") openBoard(el.dataset.value);
  else if (el?.dataset.quickOpt) {
    choose(el.dataset.quickOpt, el.dataset.value);
    render();
    const mini = document.getElementById("quick-mini");
    if (mini) mount(mini, miniHtml());
  } else if (quick.view && ev.target.id === "quick-sheet" && quick.view !== "waiting") close(); // a click beside the panel
});

document.addEventListener("keydown", (ev) => {
  if (quick.view === null || ev.key !== "Escape") return;
  ev.preventDefault();
  if (quick.view === "waiting") leave();
  else if (quick.view === "board") show("home", "[data-quick-cmd=board]");
  else close();
});

/** Hook the quick match up: `enterMatch(match)` opens a seat at the table. */
export function initQuick({ enterMatch }) {
  quick.enterMatch = enterMatch;
}

/** After a quick match: the sheet again, queueing at once with the same choices. */
export function quickAgain() {
  openQuick();
  queue();
}
