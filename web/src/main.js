// Sanma in the browser: start screen, table, hand-end and match-end panels.
// Flow of one action (design.md): a click is allowed only if it is in the prompt's legal
// list; nothing changes on screen until the server's events arrive.
import { autoAction, loadToggles, saveToggles, TOGGLES } from "./auto.js";
import { currentMatch, ensureToken, newToken, saveToken, startPractice } from "./api.js";
import { Connection } from "./conn.js";
import { getLang, LANGS, loadI18n, setLang, t } from "./i18n.js";
import { html, join, mount, nodeOf, tileHtml } from "./render/common.js";
import { icon } from "./icons.js";
import { effectsOf, motionSpeed, runEffects } from "./motion.js";
import { initSound, isMuted, play, setMuted } from "./sound.js";
import { guideHintHtml, initSettings, openSettings } from "./settings.js";
import { earlyCurrent, takeEarlySocket } from "./early.js";
import { endReason, endReasonHtml, trackEnds, watchFootHtml } from "./ending.js";
import { fairHtml, handEndHtml, matchEndHtml } from "./render/panels.js";
import { actionButtons, actionsHtml, aidsHtml, boardParts, discardFor, handHtml, handIsOpen, HOTKEYS, inRoom, myTiles, openWaitsWithYaku, seatName, statusSpot, turnCueHtml } from "./render/table.js";
import { fold, newState } from "./state.js";
import { accountButtonHtml } from "./account-core.js";
import { backToRoom, initRooms, inRoomMatch, nextRoomMatch, roomFrame, roomLeave, roomPrompt, roomsButtonHtml, roomWelcome, savedRoomCode, watching, watchingOpenHands } from "./rooms.js";

const OPTIONS_KEY = "sanma.options";
const SPEED_KEY = "sanma.speed";
const SPEEDS = ["normal", "fast", "instant"];
const MATCH_KEY = "sanma.match";
const FOLLOW_MS = 5000; // a spectator's look for the room's next match (12 a minute: under the join limit)
const DEFAULT_OPTIONS = { length: "east", red_fives: true, level: "normal", timer: false };
const $ = (id) => document.getElementById(id);

const app = {
  token: null,
  conn: null,
  state: newState(),
  prompt: null,
  backlogUntil: 0,
  ui: { riichi: false, raised: null, focus: null },
  fair: newFair(),
  screen: "start",
  showWhenReady: false, // a resumed match's screen waits for its first events (connect)
  toggles: loadToggles(),
  speed: SPEEDS.includes(localStorage.getItem(SPEED_KEY)) ? localStorage.getItem(SPEED_KEY) : "normal",
  fx: [], // motion and sound owed to the next render (live events only, not a backlog)
  ticks: null, // the timer's last-seconds ticks
  lastEnds: [], // the end events of the hand in play (ending.js: why the match ended)
  follow: null, // a spectator's look for the room's next match (followRoom)
  nextMatch: null, // that match once the host started it
  brk: null, // the break between hands (the server's hand_break frame, `at` when it came, `pressed`)
  auto: false, // the own seat is on autoplay (after time-outs): the banner says how to take it back
};

function loadOptions() {
  try {
    return { ...DEFAULT_OPTIONS, ...JSON.parse(localStorage.getItem(OPTIONS_KEY) || "{}") };
  } catch {
    return { ...DEFAULT_OPTIONS };
  }
}

function langSwitchHtml() {
  return join(LANGS.map((code) => html`<button class="lang${getLang() === code ? " on" : ""}" data-lang="${code}" aria-pressed="${getLang() === code}">${code.toUpperCase()}</button>`));
}

function choiceGroup(name, values, current, labelKey) {
  const items = values
    .map((value) => {
      const on = String(current) === String(value);
      return html`<button type="button" class="choice${on ? " on" : ""}" role="radio" aria-checked="${on}" data-opt="${name}" data-value="${value}">${t(`${labelKey}.${value}`)}</button>`;
    });
  return html`<fieldset class="option"><legend>${t(`start.${name}`)}</legend><div class="choices" role="radiogroup">${items}</div></fieldset>`;
}

function renderStart() {
  const o = loadOptions();
  const fan = ["1z", "0p", "7z", "9m", "5s"].map((x) => tileHtml(x));
  mount(
    $("start"),
    html`
    <div class="start-card">
      <div class="start-top">${accountButtonHtml()}<button type="button" class="ghost" data-cmd="rules">${icon("book")} ${t("rules.open")}</button><span class="lang-switch">${langSwitchHtml()}</span>
        <button type="button" class="ghost" data-cmd="settings" aria-label="${t("settings.title")}" title="${t("settings.title")}">${icon("settings")}</button></div>
      <div class="logo"><div class="fan">${fan}</div><h1>Sanma</h1><p class="tagline">${t("start.tagline")}</p></div>
      ${guideHintHtml()}
      <div class="options">
        ${choiceGroup("length", ["one-hand", "east", "east-south"], o.length, "length")}
        <div class="option-pair">
          ${choiceGroup("red_fives", ["true", "false"], String(o.red_fives), "onoff")}
          ${choiceGroup("timer", ["false", "true"], String(Boolean(o.timer)), "onoff")}
        </div>
        ${choiceGroup("level", ["beginner", "normal", "expert", "master"], o.level, "level")}
      </div>
      ${app.resumable ? html`<button class="primary resume" id="resume" data-cmd="resume">${icon("resume")} ${app.resumableRoom ? t("start.resume_room", { code: app.resumableRoom }) : t("start.resume")}</button>` : null}
      <button class="primary play${app.resumable ? " second" : ""}" id="play" data-cmd="play">${t("start.play")}</button>
      ${roomsButtonHtml()}
      <p class="hint">${t("start.hint")}</p>
      <p class="error" id="start-error" role="alert"></p>
    </div>`,
    true, // forced: a failed start's message and the Play button's state are reset
  );
}

// Settled when the player first has something to click (the start screen, or a table asking
// for a move): the account's modules and calls wait for it.
let firstScreenUp;
const firstScreen = new Promise((resolve) => {
  firstScreenUp = resolve;
});

// The account sheet, with the shop and the history (account.js and what it imports), is not
// part of the first table: it loads once the first screen is up (at most two seconds after
// boot asks), or at the first need of it, whichever is sooner.
let accountModule = null;

/** `use(module)` once the account module is loaded (and wired to the app); a failed load
 * (offline) is asked again at the next need. */
function withAccount(use) {
  accountModule ??= import("./account.js").then((a) => {
    a.initAccount({ getToken: () => app.token, setToken: switchToken, switched: () => leaveToStart() });
    return a;
  });
  accountModule.then(use, (err) => {
    accountModule = null;
    console.warn(err);
  });
}

function show(screen) {
  app.screen = screen;
  if (screen === "start") firstScreenUp();
  $("start").hidden = screen !== "start";
  $("game").hidden = screen !== "game";
  if (screen === "start") renderStart();
  else renderGame();
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

function renderGame() {
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
function cycleSpeed() {
  setSpeed(SPEEDS[(SPEEDS.indexOf(app.speed) + 1) % SPEEDS.length]);
}

/** The bots' pace (one of SPEEDS), kept and sent to the match; the animations have their own. */
function setSpeed(speed) {
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

function renderAids() {
  if (app.screen === "game" && app.state.hand) setHtml($("aids"), aidsHtml(app.prompt, pointedTile(), openYaku()));
}

function togglesHtml(inMenu = false) {
  return TOGGLES.map((name) => {
    const on = app.toggles[name];
    const cls = inMenu ? "menu-toggle" : "toggle";
    const role = inMenu ? html` role="menuitemcheckbox" aria-checked="${on}"` : html` aria-pressed="${on}"`;
    return html`<button type="button" class="${cls}${on ? " on" : ""}" data-toggle="${name}"${role}
      title="${t(`toggle.${name}.help`)}">${t(`toggle.${name}`)}</button>`;
  });
}

/** Answer the prompt by itself when a toggle says so (never while a hand-end panel is up). */
function maybeAuto() {
  const s = app.state;
  if (!app.prompt || !s.hand || s.ending.length || s.matchEnd) return false;
  const action = autoAction(app.prompt, app.toggles, s.hand.riichi[s.seat]);
  if (!action) return false;
  act(action);
  return true;
}

function renderMenu() {
  const menu = $("menu");
  menu.hidden = !app.menuOpen;
  mount(
    menu,
    app.menuOpen
      ? html`<button type="button" data-cmd="rules" role="menuitem">${icon("book")} ${t("menu.rules")}</button>
      <button type="button" data-cmd="settings" role="menuitem">${icon("settings")} ${t("settings.title")}</button>
      <div class="menu-compact">${watching() ? null : togglesHtml(true)}<span class="lang-switch">${langSwitchHtml()}</span></div>
      <button type="button" data-cmd="leave" role="menuitem">${icon("leave")} ${t("menu.leave")}</button>`
      : html``,
  );
}

// The Rules panel and its guide load on first open, not before the first table.
let rules = null;

async function openRules() {
  app.menuOpen = false;
  if (app.screen === "game") renderMenu();
  app.rulesOpen = true;
  rules = rules || (await import("./rules.js"));
  await rules.loadRules();
  renderRules();
  $("sheet").querySelector("[data-cmd=close-rules]")?.focus();
}

function renderRules() {
  const sheet = $("sheet");
  sheet.hidden = !app.rulesOpen;
  mount(sheet, app.rulesOpen && rules ? rules.rulesHtml(langSwitchHtml()) : html``, true);
}

function closeRules() {
  app.rulesOpen = false;
  renderRules();
}

/** The hand-end panel's part of the break between hands: who is still reading and the room's
 * countdown; a spectator's panel has no "Next hand" (it deals nothing, it waits with the table). */
function breakWait(me) {
  const brk = app.brk;
  const spectator = me === null;
  // Several results of one hand, or the match's end: the button is the panel's own.
  if (app.state.ending.length !== 1 || app.state.matchEnd) return null;
  if (!brk) return spectator ? { line: html`<p class="break-line">${t("end.watch_waiting")}</p>`, button: false } : null;
  const parts = [];
  if (brk.left_s !== null) {
    const left = Math.max(0, Math.ceil(brk.left_s - (performance.now() - brk.at) / 1000));
    parts.push(html`<span class="break-countdown" data-testid="break-countdown" data-left="${left}">${t("end.next_in", { n: left })}</span>`);
  }
  const waiting = brk.waiting.filter((s) => s !== me);
  if (spectator && !waiting.length && brk.left_s === null) parts.push(t("end.watch_waiting"));
  if ((brk.pressed || spectator || inRoomMatch()) && waiting.length) {
    parts.push(html`<span class="break-waiting">${t("end.ready_waiting", { names: waiting.map((s) => seatName(s, me)).join(", ") })}</span>`);
  }
  const line = parts.length ? html`<p class="break-line" data-testid="break-line">${join(parts)}</p>` : null;
  return { line, button: !spectator, pressed: brk.pressed };
}

/** The countdown on the panel moves once a second while a break is open. */
function breakTicks() {
  clearInterval(app.breakTimer);
  app.breakTimer = null;
  if (app.brk && app.brk.left_s !== null) app.breakTimer = setInterval(renderOverlay, 1000);
}

/** "Next hand": the next of several results of one hand, or the match's end, is local; the
 * last result before a new hand tells the server this seat has read it (the deal waits). */
function nextHand() {
  const s = app.state;
  const last = s.ending.length === 1 && !s.matchEnd; // a new hand is to come
  if (last) app.conn.send({ t: "next_hand", v: s.v });
  if (!last || !app.brk) {
    s.ending.shift();
    if (!maybeAuto()) renderGame();
    return;
  }
  app.brk.pressed = true;
  // Nobody else to wait for (practice): the panel goes now, the deal follows at once.
  if (!app.brk.waiting.some((seat) => seat !== s.seat)) s.ending.shift();
  renderGame();
}

/** Autoplay after time-outs: a banner where the player looks; any tap or key takes the seat back. */
function renderAutoBanner() {
  let el = $("autoplay");
  if (!el) {
    el = nodeOf(html`<button type="button" id="autoplay" class="autoplay-banner" data-testid="autoplay" hidden></button>`);
    $("game").append(el);
  }
  el.hidden = !app.auto || watching();
  if (!el.hidden) setHtml(el, html`<b>${t("autoplay.banner")}</b><small>${t("autoplay.back")}</small>`);
}

function takeSeatBack() {
  if (!app.auto || app.screen !== "game" || watching()) return;
  app.auto = false; // the server's presence frame confirms it
  app.conn?.send({ t: "resume" });
  renderAutoBanner();
}

function renderOverlay() {
  const s = app.state;
  const me = watching() ? null : s.seat; // a spectator is nobody's "You"
  const overlay = $("overlay");
  let panel = null;
  if (s.ending.length) {
    // Nothing is revealed before the match's end: the line only says the wall was committed to.
    const fair = fairHtml("hand", app.fair.hands[s.ending[0].hand.index] ? "committed" : null);
    panel = handEndHtml(s.ending[0], me, s.ending.length === 1 && s.matchEnd !== null, fair, breakWait(me));
  } else if (s.matchEnd) {
    const fair = fairHtml(me === null ? "watch" : "match", app.fair.seedResult); // "watch": no "tile you saw"
    const why = endReasonHtml(endReason(s.rules, s.hand, app.lastEnds, s.matchEnd));
    // A spectator's own buttons (ending.js watchFootHtml): nothing to play again, no history.
    const foot = me === null ? watchFootHtml(app.nextMatch) : null;
    panel = matchEndHtml(s.matchEnd, me, inRoomMatch(), s.rules, html`${why}${fair}${foot}`, { subtitle: me !== null, buttons: me !== null });
    if (me === null) followRoom();
  } else if (app.confirmLeave) panel = leaveConfirmHtml();
  overlay.hidden = !panel;
  // (Only with a panel: scrolling an empty overlay would force a layout of the whole page.)
  if (mount(overlay, panel || html``) && panel) {
    // A new panel opens at its title, even on a short phone screen; its button takes the
    // focus (Enter continues) without scrolling the title away.
    overlay.scrollTop = 0;
    overlay.querySelector("[data-panel]")?.focus({ preventScroll: true });
  }
}

// --- connection -------------------------------------------------------------

/** Open `match` at the table.  `whenReady` (a page load resuming its match): the game screen
 * is shown with the first frame that has the match's backlog, not empty before it (that
 * extra frame of a bare board was laid out and painted on the first table's path), or after
 * a second without them (offline: the screen says so). */
function connect(match, whenReady = false) {
  if (app.conn) app.conn.close();
  stopFollowing();
  app.nextMatch = null;
  app.resumable = null;
  app.confirmLeave = false;
  app.state = newState();
  app.lastEnds = [];
  app.brk = null;
  app.auto = false;
  app.prompt = null;
  app.ui = { riichi: false, raised: null, focus: null };
  app.fair = newFair();
  localStorage.setItem(MATCH_KEY, match);
  app.conn = new Connection({
    token: app.token,
    match,
    getV: () => app.state.v,
    onWelcome: (w) => {
      app.conn.send({ t: "speed", speed: app.speed });
      app.state.seat = w.seat;
      app.state.botLevel = w.bot_level;
      app.backlogUntil = w.v;
      app.state.seat = roomWelcome(w); // a spectator's: the seat it chose to see at the bottom
      app.state.openHands = watchingOpenHands();
    },
    onEvent: (frame) => {
      fold(app.state, frame.e);
      trackEnds(app.lastEnds, frame.e);
      keepForFair(frame.e);
      if (frame.v > app.backlogUntil) app.fx.push(...effectsOf(frame.e, app.state.seat));
      performance.mark("sanma:event"); // counted by bench/web_perf.py (busy time per event)
      if (frame.e.type === "MatchEnded") withAccount((a) => a.syncHistory()); // the local history keeps a copy
      app.state.v = frame.v;
      // Hand ends already dismissed before a reload are not shown again; a live deal ends the
      // break (the server deals only once every player is ready, or at the room's countdown).
      if (frame.e.type === "HandStarted") {
        if (frame.v <= app.backlogUntil || app.brk || watching()) app.state.ending = [];
        app.brk = null;
        breakTicks();
      }
      app.prompt = null;
      schedule();
    },
    onPrompt: (p) => {
      const turn = p.legal.some((a) => a.type === "discard");
      if (turn && p.v > app.backlogUntil) app.fx.push({ kind: "turn", sound: "turn" });
      timerTicks(p);
      app.prompt = p;
      roomPrompt(p);
      app.ui.raised = null;
      if (!p.legal.some((a) => a.type === "discard" && a.riichi)) app.ui.riichi = false;
      if (!maybeAuto()) schedule();
    },
    onError: (err) => {
      console.warn("server error", err);
      if (err.code === "no_match" || err.code === "unauthorized") {
        localStorage.removeItem(MATCH_KEY);
        app.conn.close();
        show("start");
      }
    },
    // Friend rooms: presence, and a prompt whose time ran out (the server played its default).
    onOther: (frame) => {
      if (frame.t.startsWith("fair_")) onFair(frame);
      else if (frame.t === "hand_break") {
        app.brk = { ...frame, at: performance.now(), pressed: Boolean(app.brk?.pressed) || frame.ready.includes(app.state.seat) };
        breakTicks();
        renderOverlay();
      } else if (frame.t === "presence" && frame.seat === app.state.seat && !watching()) {
        app.auto = frame.state === "auto"; // the banner, not a badge "Player N · autoplay"
        renderAutoBanner();
        schedule();
      } else if (roomFrame(frame) && app.prompt?.seq === frame.seq) {
        app.prompt = null;
        schedule();
      }
    },
    onStatus: (status) => {
      app.online = status === "online";
      if (app.screen === "game") $("conn").textContent = app.online ? app.notice || "" : t("game.offline");
    },
  });
  if (whenReady) {
    app.showWhenReady = true;
    setTimeout(showGameNow, 1000);
  } else show("game");
  app.conn.open(takeEarlySocket(match));
}

function showGameNow() {
  if (!app.showWhenReady) return;
  app.showWhenReady = false;
  show("game");
}

// --- fair walls: the server's commitments, checked when it reveals them at the match's end ---

/** The checks load with the reveal (the match's end), not with the first table. */
const fairness = () => import("./fairness.js");

function newFair() {
  // events: each hand's events as this seat saw them, for the tile-by-tile check at the end.
  return { match: null, hands: {}, seedResult: null, events: {} };
}

/** Each event of a hand, kept under the hand's index (every hand played counts, as the fair
 * frames count them) until the match-end reveal is checked. */
function keepForFair(e) {
  const index = app.state.hand?.index;
  if (index === undefined || e.type === "MatchStarted" || e.type === "MatchEnded") return;
  (app.fair.events[index] ||= []).push(e);
}

/** Commitments are kept; the match-end reveal (fair_seed) is checked against all of them
 * and against every tile this seat saw (asynchronously: SHA-256 in the browser), and the
 * match-end panel gets its line. */
function onFair(frame) {
  const fair = app.fair;
  if (frame.t === "fair_match") fair.match = frame;
  else if (frame.t === "fair_hand") fair.hands[frame.hand] = frame;
  else if (frame.t === "fair_seed" && fair.match && fair.seedResult === null) {
    fair.seedResult = "checking";
    const events = fair.events;
    fair.events = {}; // checked once: the hands' events are not kept longer
    const redFives = app.state.rules?.red_fives !== false;
    fairness()
      .then((f) => f.checkMatch(fair.match, frame, fair.hands, events, redFives))
      .then((result) => {
        if (app.fair === fair) {
          fair.seedResult = result;
          renderOverlay();
        }
      });
  }
}

let pending = false;
function schedule() {
  // One render per animation frame, however many frames arrived.
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    if (app.backlogUntil > 0 && app.state.v >= app.backlogUntil) showGameNow(); // the whole backlog is in
    if (app.screen !== "game") return;
    renderGame();
    if (app.prompt) firstScreenUp();
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
function timerTicks(p) {
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

function act(action) {
  if (!app.prompt || !app.conn) return;
  const seq = app.prompt.seq;
  app.prompt = null;
  roomPrompt(null);
  app.ui = { riichi: false, raised: null, focus: app.ui.focus };
  app.conn.send({ t: "act", seq, a: action });
  renderGame();
}

// --- input ------------------------------------------------------------------

function onTile(i, pointerType) {
  const tiles = myTiles(app.state);
  const x = tiles[i];
  if (!x) return;
  const action = discardFor(app.prompt, app.ui, x.tile);
  if (!action) return;
  // Touch: the first tap raises the tile, the second discards it.
  if (pointerType === "touch" && app.ui.raised !== i) {
    app.ui.raised = i;
    renderGame();
    return;
  }
  act(action);
}

function onButton(index) {
  const b = actionButtons(app.prompt, app.ui)[index];
  if (!b) return;
  if (b.type === "riichi") {
    app.ui.riichi = !app.ui.riichi;
    app.ui.raised = null;
    renderGame();
    return;
  }
  act(b.action);
}

async function onPlay() {
  const o = loadOptions();
  $("play").disabled = true;
  try {
    const res = await startPractice(app.token, { length: o.length, red_fives: o.red_fives, level: o.level, timer: Boolean(o.timer) });
    connect(res.match);
  } catch (err) {
    $("start-error").textContent = t("start.failed");
    $("play").disabled = false;
    console.warn(err);
  }
}

function onOption(name, value) {
  const o = loadOptions();
  o[name] = name === "red_fives" || name === "timer" ? value === "true" : value;
  localStorage.setItem(OPTIONS_KEY, JSON.stringify(o));
  renderStart();
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest("button");
  if (!el) return;
  if (el.dataset.lang) {
    setLang(el.dataset.lang);
    if (app.screen === "start") renderStart();
    else renderGame();
    if (app.rulesOpen) renderRules();
  } else if (el.dataset.cmd === "account") withAccount((a) => a.openAccount());
  else if (el.dataset.cmd === "rules") openRules();
  else if (el.dataset.cmd === "close-rules") closeRules();
  else if (el.dataset.cmd === "speed") cycleSpeed();
  else if (el.dataset.cmd === "settings") {
    app.menuOpen = false;
    if (app.screen === "game") renderMenu();
    openSettings();
  }
  else if (el.dataset.cmd === "mute") {
    setMuted(!isMuted());
    renderGame();
  }
  else if (el.dataset.rulesGo) document.getElementById(`rules-${el.dataset.rulesGo}`)?.scrollIntoView({ block: "start" });
  else if (el.dataset.toggle) {
    app.toggles[el.dataset.toggle] = !app.toggles[el.dataset.toggle];
    saveToggles(app.toggles);
    if (!maybeAuto()) renderGame();
  } else if (el.dataset.opt) onOption(el.dataset.opt, el.dataset.value);
  else if (el.dataset.cmd === "play") onPlay();
  else if (el.dataset.cmd === "menu") {
    app.menuOpen = !app.menuOpen;
    renderMenu();
  } else if (el.dataset.cmd === "leave") {
    app.menuOpen = false;
    renderMenu();
    if (app.state.matchEnd || watching()) leaveToStart(); // a spectator has nothing to resume
    else {
      app.confirmLeave = true; // asked in the page, not by the browser's confirm()
      renderOverlay();
    }
  } else if (el.dataset.cmd === "resume" && app.resumable) connect(app.resumable);
  else if (el.dataset.panel === "leave-yes") {
    app.confirmLeave = false;
    leaveToStart();
  } else if (el.dataset.panel === "leave-no") {
    app.confirmLeave = false;
    renderOverlay();
    $("menu-btn").focus();
  } else if (el.dataset.action !== undefined) onButton(Number(el.dataset.action));
  else if (el.dataset.i !== undefined) onTile(Number(el.dataset.i), app.lastPointer || "mouse");
  else if (el.dataset.panel === "next") nextHand();
  else if (el.dataset.panel === "again") leaveToStart();
  else if (el.dataset.panel === "rematch") rematch();
  else if (el.dataset.panel === "follow" && app.nextMatch) connect(app.nextMatch); // the room's next match, watched
  else if (el.dataset.panel === "history") {
    leaveToStart();
    withAccount((a) => a.openAccount("history")); // the finished match is listed there with its replay
  }
  else if (el.dataset.panel === "room") {
    leaveToStart();
    backToRoom(); // the room's lobby again, its seats kept, for a rematch
  }
});

document.addEventListener("pointerdown", (ev) => {
  app.lastPointer = ev.pointerType;
});

// On autoplay, the first tap or key anywhere takes the seat back (before it does anything else).
document.addEventListener("pointerdown", takeSeatBack, true);
document.addEventListener("keydown", takeSeatBack, true);

// The wait preview: pointing at a hand tile (mouse hover or keyboard focus) shows what its
// discard would leave; only the aids strip is redrawn, so the hovered tile stays in place.
function pointAt(ev) {
  const el = ev.target.closest?.(".hand-tile");
  const i = el ? Number(el.dataset.i) : null;
  if (ev.type === "pointerover" && ev.pointerType === "touch") return; // a tap raises instead
  if (app.ui.pointed === i) return;
  app.ui.pointed = i;
  renderAids();
}
document.addEventListener("pointerover", pointAt);
document.addEventListener("focusin", pointAt);
document.addEventListener("pointerout", (ev) => {
  if (ev.target.closest?.(".hand-tile") && !ev.relatedTarget?.closest?.(".hand-tile")) {
    app.ui.pointed = null;
    renderAids();
  }
});

/** The in-page question before leaving a match in play (Escape or Stay keeps playing). */
function leaveConfirmHtml() {
  return html`<div class="panel confirm" data-testid="leave-confirm" role="alertdialog" aria-modal="true" aria-labelledby="leave-q">
    <p id="leave-q">${t("game.leave_confirm")}</p>
    <div class="panel-foot"><button class="primary" data-panel="leave-no">${t("game.leave_no")}</button>
    <button class="ghost" data-panel="leave-yes">${t("game.leave_yes")}</button></div></div>`;
}

/** After a watched match: ask every few seconds whether the room's host started another
 * (the panel then offers to watch it); stops when the page leaves the match. */
function followRoom() {
  if (app.follow) return;
  const ended = localStorage.getItem(MATCH_KEY);
  app.follow = setInterval(async () => {
    const next = await nextRoomMatch(ended);
    if (!next || !app.follow || !app.state.matchEnd) return;
    stopFollowing();
    app.nextMatch = next;
    renderOverlay();
  }, FOLLOW_MS);
}

function stopFollowing() {
  clearInterval(app.follow);
  app.follow = null;
}

/** Play again: a new practice match with the same options, straight from the results. */
async function rematch() {
  leaveToStart();
  await onPlay();
}

function leaveToStart() {
  // A match left in play, practice or a friend room's, can be resumed from the start screen
  // (a spectator has nothing to resume: it may watch again from the rooms sheet).
  const match = localStorage.getItem(MATCH_KEY);
  app.resumable = match && app.state.hand && !app.state.matchEnd && !watching() ? match : null;
  app.resumableRoom = app.resumable && inRoomMatch() ? savedRoomCode() : null;
  stopFollowing();
  app.nextMatch = null;
  if (app.conn) app.conn.close();
  roomLeave();
  app.conn = null;
  app.state = newState();
  app.prompt = null;
  show("start");
  renderOverlay(); // the match-end panel must not stay over the start screen
}

/** The menu closed, as its button or a pick in it closes it. */
function closeMenu() {
  app.menuOpen = false;
  renderMenu();
}

// The open menu closes on a click anywhere outside it (its own button toggles it).  The
// path is the one at the click: a toggle in the menu is redrawn (detached) by then.
document.addEventListener("click", (ev) => {
  if (app.menuOpen && !ev.composedPath().some((el) => el.id === "menu" || el.id === "menu-btn")) closeMenu();
});

document.addEventListener("keydown", (ev) => {
  if (app.menuOpen && ev.key === "Escape") {
    // Escape closes the menu first, not the prompt (Escape is also Pass) nor the match.
    closeMenu();
    $("menu-btn").focus();
    ev.preventDefault();
    return;
  }
  if (app.rulesOpen) {
    if (ev.key === "Escape") closeRules();
    return;
  }
  if (app.confirmLeave && ev.key === "Escape") {
    app.confirmLeave = false;
    renderOverlay();
    return;
  }
  if (app.screen !== "game" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (!$("overlay").hidden) return;
  const n = app.state.hand ? myTiles(app.state).length : 0;
  if (ev.key === "ArrowLeft" || ev.key === "ArrowRight") {
    const step = ev.key === "ArrowLeft" ? -1 : 1;
    const at = app.ui.focus === null ? (step > 0 ? -1 : n) : app.ui.focus;
    app.ui.focus = Math.max(0, Math.min(n - 1, at + step));
    renderGame();
    document.querySelector(`.hand-tile[data-i="${app.ui.focus}"]`)?.focus();
    ev.preventDefault();
    return;
  }
  if (ev.key === "Enter" && app.ui.focus !== null && document.activeElement?.classList.contains("hand-tile")) {
    onTile(app.ui.focus, "keyboard");
    ev.preventDefault();
    return;
  }
  const key = ev.key.toLowerCase();
  const type = Object.keys(HOTKEYS).find((k) => HOTKEYS[k] === key) || (key === "escape" ? "pass" : null);
  if (!type) return;
  const b = actionButtons(app.prompt, app.ui).find((x) => x.type === type);
  if (b) {
    onButton(b.index);
    ev.preventDefault();
  }
});

/** A short note in the top bar (where "Reconnecting…" shows), gone after a few seconds. */
function announce(text) {
  app.notice = text;
  if (app.screen === "game" && app.online !== false) $("conn").textContent = text;
  setTimeout(() => {
    app.notice = "";
    if (app.screen === "game" && app.online !== false) $("conn").textContent = "";
  }, 4000);
}

/** Another account's token for this browser (account recovery, backup import). */
function switchToken(token) {
  app.token = token;
  saveToken(token); // api.js holds the one token key
  localStorage.removeItem(MATCH_KEY);
}

async function boot() {
  initSound();
  initSettings({
    botSpeed: () => app.speed,
    setBotSpeed: setSpeed,
    roomPace: inRoom, // a friend room's pace is the room's
    changed: () => (app.screen === "start" ? renderStart() : renderGame()),
  });
  // The dictionaries and the guest's current match are fetched side by side: one round trip
  // less before the first table.
  const dictionaries = loadI18n();
  const known = ensureToken();
  const asked = known.then((token) => (earlyCurrent?.token === token ? earlyCurrent.answer : currentMatch(token)));
  asked.catch(() => {}); // an error is met below, after the dictionaries
  await dictionaries;
  try {
    app.token = await known;
    let current = await asked;
    if (current.unauthorized) {
      app.token = await newToken();
      current = await currentMatch(app.token);
    }
    Promise.race([firstScreen, new Promise((resolve) => setTimeout(resolve, 2000))]).then(() => withAccount(() => {}));
    // Friend rooms: an invite link opens its lobby; a room match in play is resumed first.
    const viewFrom = (seat) => {
      app.state.seat = seat;
      if (app.screen === "game") renderGame();
    };
    const rooms = await initRooms({ getToken: () => app.token, enterMatch: (match) => connect(match), viewFrom });
    if (app.conn) return; // the invited room was already playing, with this guest seated: it is open
    const resume = rooms.lobby ? null : rooms.match || current.match;
    if (resume) {
      connect(resume, true);
      announce(t("game.resumed")); // the page came back to a match in play: say so
      return;
    }
  } catch (err) {
    console.warn(err);
  }
  takeEarlySocket(null); // the current match is not opened: the socket to it closes
  show("start");
}

boot();
