// Why a match ended, where the table's own rules make it end early: all-last (agari-yame).
// The engine (sanma/engine/match.py, _match_over) ends the match after its last hand's dealer
// (seat 2 in the last round) won or was tenpai at the draw and is then first; without this
// line the match-end panel appeared after a dealer's win as if the match had simply run out.
// An operator's end (MatchEnded.reason "operator", docs/rules-notes.md) is said as well.
import { html } from "./render/common.js";
import { t } from "./i18n.js";

// The last round's wind by match length; a one-hand match ends after its hand whatever happens.
const LAST_ROUND = { east: "1z", "east-south": "2z" };
const LAST_DEALER = 2;
const END_TYPES = new Set(["HandWon", "HandDrawn", "HandAborted"]);

/** Keep in `ends` the end events of the hand in play (one or two HandWon, a HandDrawn or a
 * HandAborted): a new hand clears them. */
export function trackEnds(ends, e) {
  if (e.type === "HandStarted") ends.length = 0;
  else if (END_TYPES.has(e.type)) ends.push(e);
}

/** "operator" when a server operator ended the match (`sanma admin end`: the hand in play was
 * abandoned), "all_last" when `matchEnd` closed the match by all-last, else null. `rules`: the
 * match's (MatchStarted), `hand`: its last hand's table (state.js), `ends`: that hand's end events. */
export function endReason(rules, hand, ends, matchEnd) {
  if (matchEnd?.reason === "operator") return "operator";
  if (!rules || !hand || !matchEnd) return null;
  if (hand.roundWind !== LAST_ROUND[rules.length] || hand.dealer !== LAST_DEALER) return null;
  const dealer = hand.dealer;
  const keeps = ends.some((e) => (e.type === "HandWon" && e.seat === dealer) || (e.type === "HandDrawn" && e.tenpai.includes(dealer)));
  // Points below zero end a match before all-last is asked (and then say so themselves).
  if (!keeps || matchEnd.points.some((p) => p < 0)) return null;
  return matchEnd.placements[dealer] === 1 ? "all_last" : null;
}

/** A spectator's match-end buttons (it has no match to play again and none in its history):
 * Leave, and once the room's host started another match (`next`: its id), Watch it. */
export function watchFootHtml(next) {
  const follow = next
    ? html`<button class="primary" data-panel="follow">${t("match.watch_next")}</button>`
    : html`<p class="hint" data-testid="watch-wait">${t("match.watch_wait")}</p>`;
  return html`<div class="panel-foot match-foot watch-foot" data-testid="watch-foot">${follow}
    <button class="${next ? "ghost" : "primary"}" data-panel="again">${t("match.watch_leave")}</button></div>`;
}

/** The panel's line for `reason` (nothing when the match ran its course). */
export function endReasonHtml(reason) {
  return reason ? html`<p class="end-reason" data-testid="end-reason" data-reason="${reason}">${t(`match.reason.${reason}`)}</p>` : null;
}
