// The coach at the practice table (docs/coach.md): a toggle in the table's menu (off by
// default, kept like the other settings, offered only at practice tables), and a small panel
// beside the board with the master's top three choices for the open prompt, each with its
// reason, and after the player's discard whether it was the master's first choice.
// The server sends the advice as a `coach` frame after the prompt (docs/protocol.md); a frame
// whose prompt is gone is dropped, and play never waits for one.
import { $, app } from "./app.js";
import { t, tileName } from "./i18n.js";
import { html, join, mount, nodeOf, stylesheet, tileHtml } from "./render/common.js";
import { inRoom, seatName } from "./render/table.js";
import { watching } from "./rooms.js";

const COACH_KEY = "sanma.coach";

// The advice on view, and the verdict on the player's last discard (whether it was the master's
// first choice, and that choice): kept under the next advice until the next discard.
const shown = { frame: null, verdict: null, judged: null };

/** Whether the player turned the coach on (a setting of this browser). */
export function coachOn() {
  return localStorage.getItem(COACH_KEY) === "on";
}

/** Whether this table offers the coach: a practice match played, not a room, not watched. */
export function coachOffered() {
  return app.state.seat !== null && app.state.seat !== undefined && !inRoom() && !watching();
}

/** The menu's checkbox for the coach (practice tables only; null elsewhere). */
export function coachToggleHtml() {
  if (!coachOffered()) return null;
  stylesheet("assets/coach.css"); // with the menu first opened, not the first table
  const on = coachOn();
  return html`<button type="button" class="coach-toggle${on ? " on" : ""}" data-coach role="menuitemcheckbox"
    aria-checked="${on}" title="${t("coach.help")}">${t("coach.toggle")}</button>`;
}

/** Turn the coach on or off: kept, sent to the match, the panel redrawn. */
export function setCoach(on) {
  localStorage.setItem(COACH_KEY, on ? "on" : "off");
  if (!on) clearCoach();
  if (coachOffered() && app.conn) app.conn.send({ t: "coach", on });
  renderCoach();
}

/** After a welcome: a practice match's seat gets the coach the player keeps on. */
export function coachWelcome(welcome) {
  clearCoach();
  if (welcome.kind === "practice" && !welcome.spectator && coachOn()) app.conn.send({ t: "coach", on: true });
}

/** A `coach` frame for the open prompt is shown; any other is stale and dropped. True when
 * the frame was the coach's. */
export function coachFrame(frame) {
  if (frame.t === "coach_state") return true;
  if (frame.t !== "coach") return false;
  if (coachOn() && app.prompt && app.prompt.seq === frame.seq) {
    shown.frame = frame;
    renderCoach();
  }
  return true;
}

/** An event: the player's own discard after advice says whether it matched; a new hand clears. */
export function coachEvent(e) {
  if (e.type === "HandStarted" || e.type === "MatchEnded") clearCoach();
  else if (e.type === "TileDiscarded" && e.seat === app.state.seat && shown.frame) {
    // Judged against the advice for this discard's prompt only (none came: no verdict).
    const fresh = shown.judged !== shown.frame.seq;
    const first = shown.frame.choices[0];
    const same = first?.a.type === "discard" && kindOf(first.a.tile) === kindOf(e.tile) && Boolean(first.a.riichi) === Boolean(e.riichi);
    shown.verdict = fresh ? { same, choice: first } : null;
    shown.judged = shown.frame.seq;
  } else return;
  renderCoach();
}

function clearCoach() {
  shown.frame = null;
  shown.verdict = null;
  shown.judged = null;
}

const kindOf = (tile) => (tile && tile[0] === "0" ? `5${tile[1]}` : tile);

/** The panel: drawn when the coach is on at a practice table and has advice to show. */
export function renderCoach() {
  let el = $("coach");
  if (!el) {
    el = nodeOf(html`<aside id="coach" class="coach-panel" aria-live="polite" data-testid="coach" hidden></aside>`);
    document.querySelector("#game .me-area").append(el); // placed just above the hand area
  }
  const frame = shown.frame;
  el.hidden = !frame || !coachOn() || !coachOffered();
  if (!el.hidden) stylesheet("assets/coach.css"); // loaded with the first advice, not the first table
  el.setAttribute("aria-label", t("coach.title"));
  el.dataset.seq = frame ? frame.seq : "";
  mount(el, el.hidden ? html`` : panelHtml(frame, shown.verdict));
}

function panelHtml(frame, verdict) {
  const state = frame.shanten <= 0 ? t("coach.tenpai") : t("coach.shanten", { n: frame.shanten });
  const items = frame.choices.map((c, i) => html`<li class="coach-choice${i === 0 ? " first" : ""}" data-action="${c.action}">
    <span class="coach-act">${actionHtml(c)}</span><span class="coach-why">${reasonText(c)}</span></li>`);
  let last = null;
  if (verdict?.same) last = html`<p class="coach-verdict matched" data-verdict="matched">${t("coach.matched")}</p>`;
  else if (verdict) {
    last = html`<p class="coach-verdict" data-verdict="differed">${t("coach.differed", { choice: actionText(verdict.choice) })}</p>`;
  }
  return html`<header class="coach-head"><b>${t("coach.title")}</b><span class="coach-shanten" data-shanten="${frame.shanten}">${state}</span></header>
    <ol class="coach-list">${join(items)}</ol>${last}`;
}

/** A choice as the table shows it: its tile (riichi named) or the call's name. */
function actionHtml(c) {
  const a = c.a;
  if (a.type === "discard") return html`${a.riichi ? html`<small>${t("action.riichi")}</small>` : null}${tileHtml(a.tile, "small")}`;
  const tile = a.kind ? tileHtml(a.kind, "small") : null;
  return html`<small>${t(`action.${a.type}`)}</small>${tile}`;
}

/** A choice in words (the verdict's line), tiles by their spoken names: "Riichi, 5 of circles". */
function actionText(c) {
  const a = c.a;
  if (a.type === "discard") return a.riichi ? `${t("action.riichi")} ${tileName(a.tile)}` : tileName(a.tile);
  return a.kind ? `${t(`action.${a.type}`)} ${tileName(a.kind)}` : t(`action.${a.type}`);
}

/** One short reason: speed, then safety against each threat, then value. */
function reasonText(c) {
  const parts = [];
  const s = c.speed;
  if (s) {
    parts.push(s.shanten === 0
      ? t("coach.speed_tenpai", { waits: s.waits.join(" "), tiles: s.tiles })
      : t("coach.speed", { shanten: s.shanten, kinds: s.kinds, tiles: s.tiles }));
  }
  for (const x of c.safety) parts.push(t(`coach.safety.${x.class}`, { seat: seatName(x.seat, app.state.seat), seen: x.seen }));
  for (const n of c.value) parts.push(t(`coach.value.${n.code}`, { n: n.n }));
  return parts.join(" · ");
}

// The menu's checkbox (its own attribute: the page's command table is input.js's).
document.addEventListener("click", (ev) => {
  if (!ev.target.closest?.("[data-coach]")) return;
  setCoach(!coachOn());
  import("./menu.js").then((m) => m.renderMenu());
});
