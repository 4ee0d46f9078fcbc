// A match at the table: started (practice) or opened (resumed, a room's, watched), its
// socket's frames folded into `app` (conn.js does the order and the reconnects), the fair
// walls' commitments checked at its end, and left for the start screen; and the browser's
// account switched, with the account sheet loaded late (after the first screen).
import { maybeAuto } from "./actions.js";
import { app, MATCH_KEY, newFair, newUi } from "./app.js";
import { saveToken, sessionToken, startPractice } from "./api.js";
import { coachEvent, coachFrame, coachWelcome } from "./coach.js";
import { Connection } from "./conn.js";
import { takeEarlySocket } from "./early.js";
import { trackEnds } from "./ending.js";
import { renderAutoBanner, schedule, show, showGameNow, showOnline, timerTicks } from "./game.js";
import { effectsOf } from "./motion.js";
import { breakTicks, renderOverlay, stopFollowing } from "./overlay.js";
import { inRoomMatch, roomFrame, roomLeave, roomPrompt, roomWelcome, savedRoomCode, watching, watchingOpenHands } from "./rooms.js";
import { stampFrame, stampsWelcome } from "./stamps.js";
import { loadOptions, startAsked, startFailed } from "./start.js";
import { fold, newState } from "./state.js";

/** Open `match` at the table.  `whenReady` (a page load resuming its match): the game screen
 * is shown with the first frame that has the match's backlog, not empty before it (that
 * extra frame of a bare board was laid out and painted on the first table's path), or after
 * a second without them (offline: the screen says so). */
export function connect(match, whenReady = false) {
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
  app.ui = newUi();
  app.fair = newFair();
  localStorage.setItem(MATCH_KEY, match);
  app.conn = new Connection({
    token: sessionToken(),
    match,
    getV: () => app.state.v,
    onWelcome,
    onEvent,
    onPrompt,
    onError: (err) => {
      console.warn("server error", err);
      if (err.code === "no_match" || err.code === "unauthorized") {
        localStorage.removeItem(MATCH_KEY);
        app.conn.close();
        show("start");
      }
    },
    onOther,
    onStatus: (status) => showOnline(status === "online"),
  });
  if (whenReady) {
    app.showWhenReady = true;
    setTimeout(showGameNow, 1000);
  } else show("game");
  app.conn.open(takeEarlySocket(match));
}

function onWelcome(w) {
  app.conn.send({ t: "speed", speed: app.speed });
  app.state.seat = w.seat;
  app.state.botLevel = w.bot_level;
  app.backlogUntil = w.v;
  app.state.seat = roomWelcome(w); // a spectator's: the seat it chose to see at the bottom
  app.state.openHands = watchingOpenHands();
  coachWelcome(w);
  stampsWelcome(w);
}

function onEvent(frame) {
  fold(app.state, frame.e);
  trackEnds(app.lastEnds, frame.e);
  coachEvent(frame.e);
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
}

function onPrompt(p) {
  const turn = p.legal.some((a) => a.type === "discard");
  if (turn && p.v > app.backlogUntil) app.fx.push({ kind: "turn", sound: "turn" });
  timerTicks(p);
  app.prompt = p;
  roomPrompt(p);
  app.ui.raised = null;
  if (!p.legal.some((a) => a.type === "discard" && a.riichi)) app.ui.riichi = false;
  if (!maybeAuto()) schedule();
}

/** Friend rooms: presence, and a prompt whose time ran out (the server played its default);
 * the fair walls' frames; the break between hands. */
function onOther(frame) {
  if (coachFrame(frame)) return; // the coach's advice (practice, docs/coach.md)
  if (stampFrame(frame)) return; // a player's stamp, shown beside its seat (docs/rooms.md)
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
}

// --- fair walls: the server's commitments, checked when it reveals them at the match's end ---

/** The checks load with the reveal (the match's end), not with the first table. */
const fairness = () => import("./fairness.js");

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

// --- leaving, starting ------------------------------------------------------------------------

export function leaveToStart() {
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

/** Play: a new practice match with the start card's options. */
export async function playPractice() {
  const o = loadOptions();
  startAsked();
  try {
    const res = await startPractice(sessionToken(), { length: o.length, red_fives: o.red_fives, level: o.level, timer: Boolean(o.timer) });
    connect(res.match);
  } catch (err) {
    startFailed();
    console.warn(err);
  }
}

/** Play again: a new practice match with the same options, straight from the results. */
export async function rematch() {
  leaveToStart();
  await playPractice();
}

// --- the account ------------------------------------------------------------------------------

/** Another account's token for this browser (account recovery, backup import). */
function switchToken(token) {
  saveToken(token);
  localStorage.removeItem(MATCH_KEY);
}

// The account sheet, with the shop and the history (account.js and what it imports), is not
// part of the first table: it loads once the first screen is up (at most two seconds after
// boot asks), or at the first need of it, whichever is sooner.
let accountModule = null;

/** `use(module)` once the account module is loaded (and wired to the app); a failed load
 * (offline) is asked again at the next need. */
export function withAccount(use) {
  accountModule ??= import("./account.js").then((a) => {
    a.initAccount({ setToken: switchToken, switched: () => leaveToStart() });
    return a;
  });
  accountModule.then(use, (err) => {
    accountModule = null;
    console.warn(err);
  });
}
