// The seat's answers (design.md "The flow of one action"): a tile or a button is answered only
// when the prompt's legal list has it, sent with the prompt's `seq`, and nothing on the table
// moves until the server's events arrive. Also the answers given for the player (the auto-play
// toggles), "Next hand" on a hand's end, and taking the seat back from autoplay.
import { app, newUi } from "./app.js";
import { autoAction } from "./auto.js";
import { renderAutoBanner, renderGame } from "./game.js";
import { actionButtons, discardFor, myTiles } from "./render/table.js";
import { roomPrompt, watching } from "./rooms.js";

function act(action) {
  if (!app.prompt || !app.conn) return;
  const seq = app.prompt.seq;
  app.prompt = null;
  roomPrompt(null);
  app.ui = newUi(app.ui.focus);
  app.conn.send({ t: "act", seq, a: action });
  renderGame();
}

/** Answer the prompt by itself when a toggle says so (never while a hand-end panel is up). */
export function maybeAuto() {
  const s = app.state;
  if (!app.prompt || !s.hand || s.ending.length || s.matchEnd) return false;
  const action = autoAction(app.prompt, app.toggles, s.hand.riichi[s.seat]);
  if (!action) return false;
  act(action);
  return true;
}

/** The hand's `i`th tile clicked (or Enter on it): its discard, when legal. */
export function onTile(i, pointerType) {
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

/** The `index`th action button pressed (or its hotkey): Riichi toggles, the others answer. */
export function onButton(index) {
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

/** "Next hand": the next of several results of one hand, or the match's end, is local; the
 * last result before a new hand tells the server this seat has read it (the deal waits). */
export function nextHand() {
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

/** On autoplay, the first tap or key anywhere takes the seat back. */
export function takeSeatBack() {
  if (!app.auto || app.screen !== "game" || watching()) return;
  app.auto = false; // the server's presence frame confirms it
  app.conn?.send({ t: "resume" });
  renderAutoBanner();
}
