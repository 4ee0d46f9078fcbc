// The player's statistics (a tab of the account sheet): the server's figures by mode and length
// (GET /api/account/stats, docs/stats.md), the matches kept only in this browser folded in where
// the server has nothing of them, and the trend of the average placement drawn as our own SVG.
import { api, errorText } from "./account-core.js";
import { localHistory, syncHistory } from "./history.js";
import { t } from "./i18n.js";
import { html, nodeOf, numberLocale, points as formatPoints, stylesheet } from "./render/common.js";

await stylesheet("assets/stats.css");

/** The group shown ("all", or a group's key), kept while the sheet is open. */
const view = { group: "all" };
/** The last answer, folded with the local matches: the group selector redraws from it. */
let shown = null;

const WINDOWS = [50, 200];

const keyOf = (g) => `${g.kind}|${g.bot_level ?? ""}|${g.length}${g.coached ? "|coached" : ""}`;

/** The tab's content. */
export async function statsTab() {
  const { status, data } = await api("GET", "/api/account/stats");
  if (status !== 200) return html`<p class="acct-error">${errorText(data, status)}</p>`;
  shown = withLocal(data, await localOnly());
  if (!shown.groups.some((g) => keyOf(g) === view.group)) view.group = "all";
  return body();
}

/** What the tab's controls do (the account sheet delegates its events here). */
export function statsActions() {
  return {
    "stats-group": (el, ev) => {
      if (ev.type !== "change" || !shown) return;
      view.group = el.value;
      const place = document.getElementById("stats-figures");
      if (place) place.replaceWith(nodeOf(figuresSection(current())));
    },
  };
}

function current() {
  return shown.groups.find((g) => keyOf(g) === view.group) || shown.total;
}

function body() {
  if (!shown.total.matches) return html`<p id="stats-empty">${t("acct.stats.empty")}</p>`;
  const options = [shown.total, ...shown.groups].map((g) => {
    const key = g === shown.total ? "all" : keyOf(g);
    return html`<option value="${key}"${key === view.group ? html` selected` : null}>${groupName(g)} (${count(g.matches)})</option>`;
  });
  const local = shown.local ? html`<p class="stats-note" id="stats-local">${t("acct.stats.local", { n: count(shown.local) })}</p>` : null;
  return html`<section class="stats"><label class="stats-pick">${t("acct.stats.mode")}<select id="stats-group" data-act="stats-group">${options}</select></label>${local}${figuresSection(current())}</section>${trendSection(shown.recent)}`;
}

function groupName(g) {
  if (g.coached) return t("acct.stats.coached", { group: groupName({ ...g, coached: false }) }); // apart (docs/coach.md)
  if (g.kind === "all") return t("acct.stats.all");
  const length = t(`length.${g.length}`);
  if (g.kind === "practice" && g.bot_level) return t("acct.stats.practice", { level: t(`level.${g.bot_level}`), length });
  return t("acct.stats.room", { length });
}

// --- the figures ----------------------------------------------------------------------------

const count = (n) => formatPoints(n);

function decimal(value, digits) {
  return new Intl.NumberFormat(numberLocale(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

const FORMATS = {
  // Intl's percent: each language's own sign and spacing (12.5%, 12,5%, 12,5 %).
  rate: (v) => new Intl.NumberFormat(numberLocale(), { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(v),
  place: (v) => decimal(v, 2),
  score: (v) => (v > 0 ? "+" : "") + decimal(v, 1),
  perHand: (v) => decimal(v, 2),
  points: (v) => formatPoints(Math.round(v)),
};

// (figure, format): the order the tab shows them in, beside the counts they come from.
const FIGURES = [
  ["avg_placement", "place"],
  ["avg_final_score", "score"],
  ["win_rate", "rate"],
  ["deal_in_rate", "rate"],
  ["tsumo_share", "rate"],
  ["riichi_rate", "rate"],
  ["call_rate", "rate"],
  ["kita_per_hand", "perHand"],
  ["avg_win", "points"],
  ["avg_deal_in", "points"],
  ["draw_tenpai_rate", "rate"],
];

function figure(name, value, format) {
  const text = value === null || value === undefined ? t("acct.stats.none") : FORMATS[format](value);
  return html`<div class="stat" data-figure="${name}"><dt>${t(`acct.stats.${name}`)}</dt><dd>${text}</dd></div>`;
}

function placements(g) {
  const bars = g.placements.map((n, i) => {
    const share = g.matches ? n / g.matches : 0;
    return html`<div class="place-bar place-${i + 1}"><span class="place-name">${t(`place.${i + 1}`)}</span><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"><rect class="bar-back" width="100" height="10"></rect><rect class="bar-fill" width="${(100 * share).toFixed(1)}" height="10"></rect></svg><span class="place-count">${count(n)} · ${FORMATS.rate(share)}</span></div>`;
  });
  return html`<div class="stat stat-wide" data-figure="placements"><dt>${t("acct.stats.placements")}</dt><dd>${bars}</dd></div>`;
}

function figuresSection(g) {
  const counts = html`${figure("matches", g.matches, "points")}${figure("hands", g.hands, "points")}`;
  const cards = FIGURES.map(([name, format]) => figure(name, g.figures[name], format));
  return html`<dl class="stats-grid" id="stats-figures" data-group="${g === shown.total ? "all" : keyOf(g)}">${counts}${placements(g)}${cards}</dl>`;
}

// --- the trend ------------------------------------------------------------------------------

/** The running average of `placements` (oldest first): at each match, the mean up to it. */
export function runningAverage(placements) {
  let sum = 0;
  return placements.map((p, i) => (sum += p) / (i + 1));
}

const W = 600;
const H = 180;
const PAD = 24;

function line(values, offset, total, cls) {
  if (!values.length) return null;
  const x = (i) => PAD + ((W - 2 * PAD) * (offset + i)) / Math.max(1, total - 1);
  const y = (v) => PAD + ((H - 2 * PAD) * (v - 1)) / 2; // 1st at the top, 3rd at the bottom
  const path = values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const last = values.length - 1;
  return html`<path class="${cls}" d="${path}"></path><circle class="${cls}" cx="${x(last).toFixed(1)}" cy="${y(values[last]).toFixed(1)}" r="3.5"></circle>`;
}

/** The two windows' lines, the longer under the shorter (they are one line until 50 matches). */
function trendSection(recent) {
  if (recent.length < 2) return null;
  const lines = WINDOWS.map((n) => {
    const window = recent.slice(-n);
    return { n, values: runningAverage(window), offset: recent.length - window.length };
  });
  const grid = [1, 2, 3].map((p) => {
    const y = PAD + ((H - 2 * PAD) * (p - 1)) / 2;
    return html`<line class="grid${p === 2 ? " mid" : ""}" x1="${PAD}" x2="${W - PAD}" y1="${y}" y2="${y}"></line>`;
  });
  const label = lines.map((l) => t("acct.stats.trend_line", { n: l.n, avg: decimal(l.values.at(-1), 2) })).join(" · ");
  const svg = html`<svg class="trend" id="stats-trend" viewBox="0 0 ${W} ${H}" role="img" aria-label="${t("acct.stats.trend")}: ${label}">${grid}${[...lines].reverse().map((l) => line(l.values, l.offset, recent.length, `w${l.n}`))}</svg>`;
  const legend = lines.map((l) => html`<li class="w${l.n}"><span class="trend-key"></span>${t("acct.stats.trend_line", { n: l.n, avg: decimal(l.values.at(-1), 2) })}</li>`);
  return html`<section class="stats-trend-box"><h3>${t("acct.stats.trend")}</h3><p class="stats-note">${t("acct.stats.trend_help")}</p>${svg}<ul class="trend-legend">${legend}</ul></section>`;
}

// --- matches kept only in this browser ------------------------------------------------------

/** The local history's entries the server does not list (its last 200, as the history tab):
 * a match kept from a backup of another account, or from before this browser changed account. */
async function localOnly() {
  const server = (await syncHistory()) || [];
  const known = new Set(server.map((e) => e.match));
  // The server lists its newest 200: an older local entry may be among the server's rest, so it
  // is counted only when the server's list is whole.
  const whole = server.length < 200;
  const oldest = server.at(-1)?.ended_at ?? "";
  return localHistory().filter((e) => !known.has(e.match) && typeof e.placement === "number" && (whole || String(e.ended_at) > oldest));
}

/** A local entry's group: a practice match's level is its bots' (every bot seat has it). */
function localKey(e) {
  const level = e.kind === "practice" ? (e.seats || []).find((s) => !s.you && s.bot_level)?.bot_level ?? null : null;
  return { kind: e.kind || "practice", bot_level: level, length: e.rules?.length || "" };
}

function blank(labels) {
  const figures = Object.fromEntries(FIGURES.map(([name]) => [name, null]));
  return { ...labels, matches: 0, placements: [0, 0, 0], placement_sum: 0, final_score_sum: 0, hands: 0, scored: 0, figures };
}

/** Add local entries to the server's answer: they carry a placement and a final score, not the
 * hands, so only the match counts, placements and the two averages move (docs/stats.md). */
function withLocal(data, entries) {
  const groups = new Map(data.groups.map((g) => [keyOf(g), { ...g, scored: g.matches }]));
  const total = { ...data.total, scored: data.total.matches };
  for (const e of entries) {
    const labels = localKey(e);
    const key = keyOf(labels);
    if (!groups.has(key)) groups.set(key, blank(labels));
    for (const g of [groups.get(key), total]) addLocal(g, e);
  }
  for (const g of [...groups.values(), total]) averages(g);
  // The trend is the server's when it has one (its placements carry no dates to interleave the
  // local ones with); a browser whose matches the server does not know draws its own.
  const local = [...entries].sort((a, b) => String(a.ended_at).localeCompare(String(b.ended_at))).map((e) => e.placement);
  const sorted = [...groups.values()].sort((a, b) => b.matches - a.matches);
  return { groups: sorted, total, recent: data.recent.length ? data.recent : local.slice(-200), local: entries.length };
}

function addLocal(g, e) {
  g.matches += 1;
  g.placements = g.placements.map((n, i) => n + (e.placement === i + 1 ? 1 : 0));
  g.placement_sum += e.placement;
  if (typeof e.final_score === "number") {
    g.final_score_sum += e.final_score;
    g.scored += 1;
  }
}

function averages(g) {
  g.figures = { ...g.figures, avg_placement: g.matches ? g.placement_sum / g.matches : null, avg_final_score: g.scored ? g.final_score_sum / g.scored : null };
}
