// The panels over the table: a hand's end (with the break between hands), the match's end
// (with the fair-wall line and, for a spectator, the room's next match) and the in-page
// question before leaving a match in play.
import { $, app, MATCH_KEY } from "./app.js";
import { endReason, endReasonHtml, watchFootHtml } from "./ending.js";
import { t } from "./i18n.js";
import { html, join, mount } from "./render/common.js";
import { fairHtml, handEndHtml, matchEndHtml } from "./render/panels.js";
import { seatName } from "./render/table.js";
import { inQuickMatch, inRoomMatch, nextRoomMatch, watching } from "./rooms.js";
import { quickEndHtml } from "./quick.js";

const FOLLOW_MS = 5000; // a spectator's look for the room's next match (12 a minute: under the join limit)

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
  if ((brk.pressed || spectator || inRoomMatch() || inQuickMatch()) && waiting.length) {
    parts.push(html`<span class="break-waiting">${t("end.ready_waiting", { names: waiting.map((s) => seatName(s, me)).join(", ") })}</span>`);
  }
  const line = parts.length ? html`<p class="break-line" data-testid="break-line">${join(parts)}</p>` : null;
  return { line, button: !spectator, pressed: brk.pressed };
}

/** The countdown on the panel moves once a second while a break is open. */
export function breakTicks() {
  clearInterval(app.breakTimer);
  app.breakTimer = null;
  if (app.brk && app.brk.left_s !== null) app.breakTimer = setInterval(renderOverlay, 1000);
}

/** The in-page question before leaving a match in play (Escape or Stay keeps playing). */
function leaveConfirmHtml() {
  return html`<div class="panel confirm" data-testid="leave-confirm" role="alertdialog" aria-modal="true" aria-labelledby="leave-q">
    <p id="leave-q">${t("game.leave_confirm")}</p>
    <div class="panel-foot"><button class="primary" data-panel="leave-no">${t("game.leave_no")}</button>
    <button class="ghost" data-panel="leave-yes">${t("game.leave_yes")}</button></div></div>`;
}

/** The leave question asked, or taken back (`open` false). */
export function askLeave(open) {
  app.confirmLeave = open;
  renderOverlay();
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

export function stopFollowing() {
  clearInterval(app.follow);
  app.follow = null;
}

export function renderOverlay() {
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
    // A quick match's player sees where the ladder put it (docs/ranks.md).
    const ladder = inQuickMatch() ? quickEndHtml(localStorage.getItem(MATCH_KEY), s.rules?.length, renderOverlay) : null;
    panel = matchEndHtml(s.matchEnd, me, inQuickMatch() ? "quick" : inRoomMatch(), s.rules, html`${why}${ladder}${fair}${foot}`, { subtitle: me !== null, buttons: me !== null });
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
