// The game screen: the top bar, the board, the own hand with its buttons and aids, drawn from
// `app.state` and `app.prompt` once per animation frame, with the motion and sounds the live
// events owe; and the switch between the two screens.
import { $, app, firstScreenIsUp, SPEED_KEY, SPEEDS } from "./app.js";
import { renderCoach } from "./coach.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";
import { langSwitchHtml, renderMenu, togglesHtml } from "./menu.js";
import { motionSpeed, runEffects } from "./motion.js";
import { renderOverlay } from "./overlay.js";
import { html, join, mount, nodeOf } from "./render/common.js";
import { actionButtons, actionsHtml, aidsHtml, boardParts, handHtml, handIsOpen, inRoom, myTiles, openWaitsWithYaku, statusSpot, turnCueHtml } from "./render/table.js";
import { watching, watchingOpenHands } from "./rooms.js";
import { isMuted, play } from "./sound.js";
import { renderStampButton } from "./stamps.js";
import { renderStart } from "./start.js";

export function show(screen) {
  app.screen = screen;
  if (screen === "start") firstScreenIsUp();
  $("start").hidden = screen !== "start";
  $("game").hidden = screen !== "game";
  if (screen === "start") renderStart();
  else renderGame();
}

/** The screen on view drawn again (a language, a setting changed). */
export function rerender() {
  if (app.screen === "start") renderStart();
  else renderGame();
}

/** A resumed match's screen, shown once its backlog is in (or after a second without it). */
export function showGameNow() {
  if (!app.showWhenReady) return;
  app.showWhenReady = false;
  show("game");
}

/** Replace an element's markup only when it changed (`mount` compares): most frames change
 * the board alone, and rebuilding the hand, the buttons and the top bar each time cost layout
 * on phones. */
const setHtml = mount;

/** The board as six parts in `display: contents` wrappers (the grid still places the parts
 * themselves), each replaced only when its markup changed: a discard redraws one river and
 * the centre, not the opponents. */
function setBoard(parts) {
  const board = $("board");
  if (board.children.length !== parts.length || !board.firstElementChild.classList.contains("part")) {
    mount(board, join(parts.map(() => html`<div class="part"></div>`)), true);
  }
  parts.forEach((part, i) => setHtml(board.children[i], part));
}

export function renderGame() {
  const s = app.state;
  setHtml($("menu-btn"), html`${icon("menu")}<span class="label-text">${t("game.menu")}</span>`);
  $("menu-btn").setAttribute("aria-label", t("game.menu"));
  setHtml($("game-lang"), langSwitchHtml());
  // A spectator answers nothing: no auto-play toggles.
  setHtml($("toggles"), html`${soundHtml()}${speedHtml()}${watching() ? null : togglesHtml()}`);
  renderMenu();
  renderAutoBanner();
  $("conn").textContent = app.online === false ? t("game.offline") : app.notice || "";
  if (!s.hand) {
    // An open-hands spectator sees nothing of the first hand until it is over.
    setHtml($("board"), html`<div class="waiting">${t(watchingOpenHands() ? "rooms.open_first_hand" : "game.connecting")}</div>`);
    setHtml($("hand"), html``);
    setHtml($("actions"), html``);
    setHtml($("aids"), html``);
  } else {
    setBoard(boardParts(s));
    setHtml($("hand"), handHtml(s, app.prompt, app.ui));
    setHtml($("actions"), actionsHtml(actionButtons(app.prompt, app.ui)));
    setHtml($("aids"), aidsHtml(app.prompt, pointedTile(), openYaku()));
  }
  // Your turn is marked like an opponent's: the area glows while the turn is yours.
  document.querySelector(".me-area").classList.toggle("on-turn", Boolean(s.hand && s.hand.turn === s.seat && !s.ending.length));
  // ... and says so in words beside the hand: a glow alone is colour alone.
  setHtml(statusSpot("turn-cue"), s.hand && !s.ending.length && !s.matchEnd ? turnCueHtml(app.prompt, app.ui) : html``);
  renderOverlay();
  renderCoach();
  renderStampButton();
}

function speedHtml() {
  const label = `${t("speed.label")}: ${t(`speed.${app.speed}`)}`;
  // A friend room's pace is the room's: the server takes no speed frame there, so no button.
  if (inRoom()) return null;
  const glyph = { normal: "play", fast: "fast", instant: "instant" }[app.speed];
  return html`<button type="button" class="toggle speed on" data-cmd="speed" data-speed="${app.speed}" aria-label="${label}"
    title="${t("speed.help")}">${icon(glyph)}<span class="label-text">${t(`speed.${app.speed}`)}</span></button>`;
}

function soundHtml() {
  const off = isMuted();
  const label = t(off ? "sound.off" : "sound.on");
  return html`<button type="button" class="toggle sound${off ? "" : " on"}" data-cmd="mute" aria-pressed="${off}" aria-label="${t("sound.mute")}"
    title="${label}">${icon(off ? "mute" : "sound")}</button>`;
}

/** Next bot speed (normal -> fast -> instant -> normal), kept and sent to the match. */
export function cycleSpeed() {
  setSpeed(SPEEDS[(SPEEDS.indexOf(app.speed) + 1) % SPEEDS.length]);
}

/** The bots' pace (one of SPEEDS), kept and sent to the match; the animations have their own. */
export function setSpeed(speed) {
  if (!SPEEDS.includes(speed)) return;
  app.speed = speed;
  localStorage.setItem(SPEED_KEY, app.speed);
  if (app.conn) app.conn.send({ t: "speed", speed: app.speed });
  if (app.screen === "game") renderGame();
}

/**
 * The hand tile being pointed at: raised by a first tap, else hovered or focused. A tap is
 * the player's choice and wins over a hover: when the tap redraws the hand, the browser sends
 * a hover event for whatever tile now lies under a mouse that has not moved (a touch laptop's
 * resting cursor, or where an earlier click left it), and that tile is not the one tapped.
 */
function pointedTile() {
  if (!app.state.hand) return null;
  const tiles = myTiles(app.state);
  const i = app.ui.raised ?? app.ui.pointed;
  return i !== null && i !== undefined && tiles[i] ? tiles[i].tile : null;
}

/** For an open hand, the waits on which a win has a yaku (null: a closed hand, which may
 * always win by riichi or menzen tsumo - the server's why-not says when it cannot). The
 * server says which (`yaku_waits`); without it, the waits where the tiles make one certain. */
function openYaku() {
  const aids = app.prompt?.aids;
  if (!handIsOpen(app.state)) return null;
  return aids?.yaku_waits ? new Set(aids.yaku_waits) : openWaitsWithYaku(app.state, aids?.waits || []);
}

/** The aids strip alone (the wait preview of the tile pointed at): the hand stays in place. */
export function renderAids() {
  if (app.screen === "game" && app.state.hand) setHtml($("aids"), aidsHtml(app.prompt, pointedTile(), openYaku()));
}

/** Autoplay after time-outs: a banner where the player looks; any tap or key takes the seat back. */
export function renderAutoBanner() {
  let el = $("autoplay");
  if (!el) {
    el = nodeOf(html`<button type="button" id="autoplay" class="autoplay-banner" data-testid="autoplay" hidden></button>`);
    $("game").append(el);
  }
  el.hidden = !app.auto || watching();
  if (!el.hidden) setHtml(el, html`<b>${t("autoplay.banner")}</b><small>${t("autoplay.back")}</small>`);
}

let pending = false;
export function schedule() {
  // One render per animation frame, however many frames arrived.
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    if (app.backlogUntil > 0 && app.state.v >= app.backlogUntil) showGameNow(); // the whole backlog is in
    if (app.screen !== "game") return;
    renderGame();
    if (app.prompt) firstScreenIsUp();
    const fx = app.fx;
    app.fx = [];
    if (!fx.length) return;
    const start = performance.now();
    runEffects(fx, { me: app.state.seat, speed: motionSpeed(), t });
    for (const name of new Set(fx.map((f) => f.sound).filter(Boolean))) play(name);
    performance.measure("sanma:fx", { start }); // the effects' script time (bench/web_perf.py)
  });
}

/** A timed prompt ticks once a second over its last five seconds (turn time plus bank). */
export function timerTicks(p) {
  clearInterval(app.ticks);
  app.ticks = null;
  if (!p || !p.timer) return;
  const end = Date.now() + 1000 * ((p.timer.turn_s || 0) + (p.timer.bank_s || 0));
  app.ticks = setInterval(() => {
    const left = end - Date.now();
    if (!app.prompt || app.prompt.seq !== p.seq || left <= 0) {
      clearInterval(app.ticks);
      app.ticks = null;
    } else if (left <= 5000) play("tick");
  }, 1000);
}

/** The socket's state in the top bar: "offline" while it is down, else any note. */
export function showOnline(online) {
  app.online = online;
  if (app.screen === "game") $("conn").textContent = app.online ? app.notice || "" : t("game.offline");
}

/** A short note in the top bar (where "Reconnecting…" shows), gone after a few seconds. */
export function announce(text) {
  app.notice = text;
  if (app.screen === "game" && app.online !== false) $("conn").textContent = text;
  setTimeout(() => {
    app.notice = "";
    if (app.screen === "game" && app.online !== false) $("conn").textContent = "";
  }, 4000);
}
