// The master's review of the player's own seat in a finished match (docs/protocol.md,
// "Reviews"): asked for from the history (its progress shown in the match's row while a worker
// computes it), then shown beside the replay as a list of the mistakes, the biggest loss first;
// choosing one moves the replay to that decision.  The server computes a review once and keeps
// it, so asking again opens it at once.
import { api, errorText } from "./account-core.js";
import { localeOf, t, tileName } from "./i18n.js";
import { html, mount, nodeOf, points } from "./render/common.js";

const POLL_MS = 700;
// Losses below this are rounding: the master's choice and the one made are worth the same.
const MIN_LOSS = 0.005;
const WIDE = "(min-width: 900px) and (min-height: 521px)";

// --- asking, from the history -------------------------------------------------------------------

/** Ask for the review of `match` (the Review button `pressed` in its row): the row tells its
 * progress until it is done, then `open(result)` shows it beside the replay.  `say(note, error)`
 * reports under the account sheet's tabs. */
export async function askReview(match, pressed, say, open) {
  if (asking.has(match)) return; // a second press while it is computed: the row already tells
  asking.add(match);
  try {
    const found = await progressOf(match, pressed);
    if (!found) return;
    const { status, data } = found;
    if (status !== 200) return say("", errorText(data, status));
    if (data.state === "failed") return say("", t("review.failed"));
    say("");
    await open(data.result);
  } finally {
    asking.delete(match);
  }
}

const asking = new Set(); // matches whose review this page is waiting for

/** Ask, then poll until the review is done or failed ({status, data}); null when the history
 * was closed meanwhile (asking again resumes it: the server kept it). */
async function progressOf(match, pressed) {
  const path = `/api/matches/${encodeURIComponent(match)}/review`;
  let { status, data } = await api("POST", path);
  const line = statusLine(pressed, match);
  while (status === 202 || (status === 200 && (data.state === "queued" || data.state === "running"))) {
    showProgress(line, data);
    await new Promise((done) => setTimeout(done, POLL_MS));
    if (!document.contains(line)) return null;
    ({ status, data } = await api("GET", path));
  }
  line.remove();
  return { status, data };
}

/** An expected-points loss in the page's language's way: 0.25, 0,25. */
function lossText(loss) {
  return new Intl.NumberFormat(localeOf("number"), { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(loss);
}

/** The progress line after the row's Review button (made once). */
function statusLine(pressed, match) {
  const id = `review-status-${match}`;
  let line = document.getElementById(id);
  if (!line) {
    line = nodeOf(html`<span class="review-status" id="${id}" role="status"></span>`);
    pressed.after(line);
  }
  return line;
}

function showProgress(line, data) {
  if (data.state === "queued") {
    mount(line, html`${t("review.queued")}`);
    return;
  }
  const pct = data.total ? Math.min(100, Math.floor((100 * data.done) / data.total)) : 0;
  mount(line, html`<progress max="100" value="${pct}" aria-hidden="true"></progress> ${t("review.running", { pct })}`);
}

// --- shown beside the replay --------------------------------------------------------------------

// Open or folded: open on a wide screen, folded on a phone (the list must not hide the table).
const panel = { open: null };

/** The mistakes worth listing: a priced loss, the biggest first (the server's order). */
export function mistakesOf(result) {
  return (result?.mistakes || []).filter((d) => typeof d.loss === "number" && d.loss >= MIN_LOSS);
}

/** The review panel's markup for the replay at position `pos` (null without a review); `rules`:
 * the match's (its return points and uma give a placement point its scale). */
export function reviewHtml(result, pos, rules = null) {
  if (!result) return null;
  if (panel.open === null) panel.open = window.matchMedia?.(WIDE).matches ?? true;
  const mistakes = mistakesOf(result);
  const lost = mistakes.reduce((sum, d) => sum + d.loss, 0);
  // A placement point is a point of the final score, 1,000 points at the match's end: the
  // summary says both, so "0.80" has a scale.
  const summary = t("review.summary", { n: mistakes.length, loss: lossText(lost), points: points(Math.round(lost * 1000)) });
  const head = html`<button type="button" class="ghost review-fold" id="review-fold" data-act="review-fold" aria-expanded="${panel.open}" aria-controls="review-body"><span>${t("review.title")}</span> <small id="review-summary">${summary}</small></button>`;
  if (!panel.open) return html`<aside class="review-panel folded" id="review-panel" aria-label="${t("review.title")}">${head}</aside>`;
  const items = mistakes.map((d, k) => item(d, k, pos));
  const list = items.length ? html`<ol class="review-list" id="review-list">${items}</ol>` : html`<p class="review-none">${t("review.none")}</p>`;
  return html`<aside class="review-panel" id="review-panel" aria-label="${t("review.title")}">${head}<div class="review-body" id="review-body"><p class="review-agreed">${t("review.agreed", { agreed: result.agreed, decisions: result.decisions })}</p>${list}<p class="hint review-note">${t("review.note")}</p>${scaleHtml(rules)}</div></aside>`;
}

/** What a placement point is, in the match's own rules: (points - return points) / 1,000 + uma. */
function scaleHtml(rules) {
  const uma = (rules?.uma || [15, 0, -15]).map((u) => (u > 0 ? `+${u}` : u < 0 ? `−${-u}` : "0")).join(" / ");
  const back = points(Number.isFinite(rules?.return_points) ? rules.return_points : 35000);
  return html`<p class="hint review-scale" id="review-scale">${t("review.scale", { back, uma })}</p>`;
}

function item(d, k, pos) {
  const at = d.index + 1; // the replay after the event that asked for the decision
  const on = at === pos;
  return html`<li><button type="button" class="review-item${on ? " on" : ""}" id="review-item-${k + 1}" data-act="review-jump" data-pos="${at}"${on ? html` aria-current="true"` : null}><span class="review-where">${handName(d.hand)} · ${t("review.turn", { n: d.turn + 1 })}</span><strong class="review-loss">${t("review.loss", { loss: lossText(d.loss) })}</strong><span class="review-you">${t("review.you", { action: actionText(d.choice) })}</span><span class="review-master">${t("review.master", { action: actionText(d.master) })}</span></button></li>`;
}

/** "E2-1" (round wind, dealer seat + 1, honba) in words, as the replay's hand list says it. */
export function handName(hand) {
  const m = /^([ES])(\d)-(\d+)$/.exec(hand || "");
  if (!m) return hand || "";
  const round = t("round.name", { wind: t(m[1] === "E" ? "wind.1z" : "wind.2z"), n: Number(m[2]) });
  return m[3] !== "0" ? `${round} · ${t("replay.honba", { n: Number(m[3]) })}` : round;
}

// The review names actions as the engine prints them: "discard 5p", "riichi 0p", "pon 7s",
// "pon 5s with red", "kan 2p", or one word.
const WORDS = { kita: "action.kita", tsumo: "action.tsumo", ron: "action.ron", pass: "action.pass", "nine terminals": "action.nine_terminals" };
const WITH_TILE = { discard: "review.act.discard", riichi: "review.act.riichi", pon: "review.act.pon", kan: "review.act.kan" };

/** An action of the review in the page's language. */
export function actionText(action) {
  if (WORDS[action]) return t(WORDS[action]);
  const m = /^(discard|riichi|pon|kan) ([0-9][mpsz])( with red)?$/.exec(action || "");
  return m ? t(WITH_TILE[m[1]], { tile: tileName(m[2]) }) : action || "";
}

/** The replay's handlers of the panel (data-act): `jump(pos)` moves the replay, `redraw()`. */
export function reviewActions(jump, redraw) {
  return {
    "review-jump": (el, ev) => {
      if (ev.type !== "click") return;
      jump(Number(el.dataset.pos));
      // On a phone the list lies under the table: bring the table back into view.
      if (!window.matchMedia?.(WIDE).matches) document.querySelector("#replay-view .replay-stage")?.scrollIntoView({ block: "nearest" });
    },
    "review-fold": (el, ev) => {
      if (ev.type !== "click") return;
      panel.open = !panel.open;
      redraw();
    },
  };
}
