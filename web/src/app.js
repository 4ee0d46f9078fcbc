// The page's state, declared once: every field the screens read and write (start.js,
// game.js, overlay.js, menu.js, actions.js, match.js, input.js) is here with what it means.
// The table itself is folded from the server's events into `app.state` (state.js); the
// token is api.js's (`sessionToken`), not kept here.
import { loadToggles } from "./auto.js";
import { newState } from "./state.js";

export const MATCH_KEY = "sanma.match"; // the match this browser plays or watches, to resume
export const SPEED_KEY = "sanma.speed";
export const SPEEDS = ["normal", "fast", "instant"];

/** The page's element with this id. */
export const $ = (id) => document.getElementById(id);

/** The hand's pointing state: the riichi toggle, the tile raised by a first tap, the one
 * pointed at (hover, focus) and the keyboard's place in the hand. */
export function newUi(focus = null) {
  return { riichi: false, raised: null, pointed: null, focus };
}

/** The fair-wall frames of a match (match.js): its commitments, the reveal's result, and
 * each hand's events as this seat saw them, for the tile-by-tile check at the end. */
export function newFair() {
  return { match: null, hands: {}, seedResult: null, events: {} };
}

function savedSpeed() {
  const speed = localStorage.getItem(SPEED_KEY);
  return SPEEDS.includes(speed) ? speed : "normal";
}

export const app = {
  // --- the screens
  screen: "start", // "start" or "game": the one on view (game.js `show`)
  showWhenReady: false, // a resumed match's screen waits for its first events (match.js `connect`)
  menuOpen: false, // the table's menu (menu.js)
  rulesOpen: false, // the Rules sheet, over either screen (menu.js)
  confirmLeave: false, // the in-page "leave this match?" question (overlay.js)
  resumable: null, // a match left in play, offered on the start screen
  resumableRoom: null, // its friend room's code when it is a room's match
  online: null, // false while the socket is down (the top bar says so); null before any socket
  notice: "", // a short note in the top bar (game.js `announce`)
  lastPointer: null, // the kind of the last pointer down ("mouse", "touch", "pen"): a tap raises a tile first

  // --- the match at the table
  conn: null, // the Connection to it (conn.js), null on the start screen
  state: newState(), // the table folded from its events (state.js)
  prompt: null, // the prompt to answer, null once answered or overtaken by an event
  backlogUntil: 0, // the last version of the backlog sent at welcome: no motion or sound up to it
  ui: newUi(),
  fair: newFair(),
  fx: [], // motion and sound owed to the next render (live events only, not a backlog)
  ticks: null, // the timer's last-seconds ticks
  lastEnds: [], // the end events of the hand in play (ending.js: why the match ended)
  brk: null, // the break between hands (the server's hand_break frame, `at` when it came, `pressed`)
  breakTimer: null, // the break's countdown, redrawn once a second
  auto: false, // the own seat is on autoplay (after time-outs): the banner says how to take it back
  follow: null, // a spectator's look for the room's next match (overlay.js `followRoom`)
  nextMatch: null, // that match once the host started it

  // --- this browser's choices
  toggles: loadToggles(), // the table's auto-play toggles (auto.js)
  speed: savedSpeed(), // the bots' pace, one of SPEEDS
};

// Settled when the player first has something to click (the start screen, or a table asking
// for a move): the account's modules and calls wait for it.
let firstScreenUp;
export const firstScreen = new Promise((resolve) => {
  firstScreenUp = resolve;
});

/** The player has something to click now (the first call settles `firstScreen`). */
export function firstScreenIsUp() {
  firstScreenUp();
}
