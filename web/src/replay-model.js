// The replay's positions, from the events alone (no DOM): which hands a log holds, where each
// starts and ends, what each of its ends changed (as the result panel counts it: state.js), and where a "turn" stops (a draw and its discard, calls, kita and kans in
// between).  A position `pos` means "the first `pos` events folded" (state.js).
import { fold, newState } from "./state.js";

const ENDS = new Set(["HandWon", "HandDrawn", "HandAborted"]);

/** The hands: [{start (index of its HandStarted), end (index of its last end event, or of its
 * last event when the log stops inside it), ends: [end events], changes: [each end's change of
 * each seat], started: the HandStarted}]. */
export function indexHands(events) {
  const hands = [];
  let scores = [0, 0, 0];
  let from = null;
  events.forEach((e, i) => {
    if (e.type === "HandStarted") {
      hands.push({ start: i, end: i, ends: [], changes: [], started: e });
      scores = [...e.scores];
      from = [...e.scores];
    } else if (hands.length && e.type !== "MatchEnded") {
      const hand = hands[hands.length - 1];
      hand.end = i;
      if (e.type === "RiichiAccepted") scores[e.seat] -= 1000;
      if (!ENDS.has(e.type)) return;
      hand.ends.push(e);
      (e.deltas || [0, 0, 0]).forEach((d, s) => (scores[s] += d));
      hand.changes.push(scores.map((x, s) => x - from[s]));
      from = [...scores];
    }
  });
  return hands;
}

/** The positions a turn step stops at, in order: after each deal, discard and hand end, and
 * after the match end. */
export function turnStops(events) {
  const stops = [];
  events.forEach((e, i) => {
    if (e.type === "HandStarted" || e.type === "TileDiscarded" || ENDS.has(e.type) || e.type === "MatchEnded") stops.push(i + 1);
  });
  return stops;
}

/** The first stop after `pos` (or the last position), and the last stop before it (or 1). */
export function nextStop(stops, pos, n) {
  return stops.find((s) => s > pos) ?? n;
}

export function prevStop(stops, pos) {
  for (let i = stops.length - 1; i >= 0; i -= 1) if (stops[i] < pos) return stops[i];
  return 1;
}

/** The index of the hand on the table at `pos` (-1 before the first deal). */
export function handAt(hands, pos) {
  let found = -1;
  hands.forEach((hand, i) => {
    if (hand.start < pos) found = i;
  });
  return found;
}

/** The position that shows hand `i` just dealt. */
export function handStart(hands, i) {
  return hands[i].start + 1;
}

/** The table at `pos` as `seat` sees it: the match's first event (its rules), then the hand on
 * the table from its deal, so `ending` holds only this hand's results. */
export function stateAt(events, hands, pos, seat) {
  const state = newState();
  state.seat = seat;
  if (events[0] && events[0].type === "MatchStarted") fold(state, events[0]);
  const i = handAt(hands, pos);
  const from = i < 0 ? 1 : hands[i].start;
  for (let k = from; k < pos; k += 1) fold(state, events[k]);
  return state;
}
