// Match history (a tab of the account sheet): the server's list of finished matches, a copy
// kept in this browser (localStorage, part of the backup), and a step-through replay of a
// match's log as the player's seat saw it (the server redacts it; state.js folds it).
import { api, errorText, h, tr } from "./account-core.js";
import { t } from "./i18n.js";
import { tileHtml } from "./render/common.js";
import { boardHtml, myTiles } from "./render/table.js";
import { fold, newState } from "./state.js";

const LOCAL_KEY = "sanma.history";
const replay = { match: null, data: null, step: 0 };

/** Every match this browser knows, newest first. */
export function localHistory() {
  try {
    const list = JSON.parse(localStorage.getItem(LOCAL_KEY) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Add `entries` (history items) to the local copy; how many were new. */
export function mergeLocal(entries) {
  const byId = new Map(localHistory().map((e) => [e.match, e]));
  let added = 0;
  for (const e of entries) {
    if (!e || typeof e.match !== "string") continue;
    if (!byId.has(e.match)) added += 1;
    byId.set(e.match, e);
  }
  const list = [...byId.values()].sort((a, b) => String(b.ended_at).localeCompare(String(a.ended_at)));
  localStorage.setItem(LOCAL_KEY, JSON.stringify(list));
  return added;
}

/** Copy the account's finished matches from the server into the local history. */
export async function syncHistory() {
  const { status, data } = await api("GET", "/api/account/history?limit=200");
  if (status === 200) mergeLocal(data.matches);
  return status === 200 ? data.matches : null;
}

function seatsText(entry) {
  return entry.seats
    .map((s) => {
      if (s.you) return tr("history.you");
      if (s.bot_level) return tr("history.bot", { level: t(`level.${s.bot_level}`) });
      return s.name || tr("history.guest");
    })
    .join(" · ");
}

function rulesText(rules) {
  const length = rules?.length ? t(`length.${rules.length}`) : "";
  return `${length}${rules?.red_fives === false ? "" : " · 🟥5"}`;
}

function row(entry, withReplay, say) {
  const when = new Date(entry.ended_at);
  return h(
    "tr",
    { dataset: { match: entry.match } },
    h("td", {}, Number.isNaN(when.getTime()) ? "" : when.toLocaleString()),
    h("td", {}, rulesText(entry.rules)),
    h("td", { class: "hist-seats" }, seatsText(entry)),
    h("td", {}, entry.placement ? tr("history.place", { n: entry.placement }) : ""),
    h("td", {}, entry.points !== null && entry.points !== undefined ? entry.points.toLocaleString("en-US") : ""),
    h(
      "td",
      {},
      withReplay
        ? h("button", { type: "button", class: "choice", dataset: { replay: entry.match }, on: { click: () => openReplay(entry.match, say) } }, tr("history.replay"))
        : null,
    ),
  );
}

/** The tab's content: the list, or the replay viewer when one is open. */
export async function historyTab(say) {
  replay.match = null;
  replay.data = null;
  const server = (await syncHistory()) || [];
  const known = new Set(server.map((e) => e.match));
  const localOnly = localHistory().filter((e) => !known.has(e.match));
  const table = (entries, withReplay, id) =>
    entries.length
      ? h("table", { class: "hist", id }, h("tbody", {}, entries.map((e) => row(e, withReplay, say))))
      : h("p", {}, tr("history.empty"));
  return [
    h("section", {}, h("h3", {}, tr("history.server")), table(server, true, "hist-server")),
    localOnly.length ? h("section", {}, h("h3", {}, tr("history.local")), table(localOnly, false, "hist-local")) : null,
  ];
}

async function openReplay(match, say) {
  const { status, data } = await api("GET", `/api/matches/${encodeURIComponent(match)}/replay`);
  if (status !== 200) return say("", errorText(data, status));
  replay.match = match;
  replay.data = data;
  replay.step = Math.min(data.events.length, 2);
  drawReplay();
}

function stateAt(step) {
  const state = newState();
  state.seat = replay.data.seat;
  for (const e of replay.data.events.slice(0, step)) fold(state, e);
  return state;
}

function markup(html) {
  const box = document.createElement("template");
  // render/ builds this markup from tiles and fixed texts (escaped there).  The back's
  // gradient gets its own id: url(#back) would find the first one, maybe in the hidden table.
  box.innerHTML = html.replaceAll('id="back"', 'id="replay-back"').replaceAll("url(#back)", "url(#replay-back)");
  return box.content;
}

function drawReplay() {
  const holder = document.querySelector("#account-panel .acct-body");
  if (!holder || !replay.data) return;
  const n = replay.data.events.length;
  const step = replay.step;
  const state = stateAt(step);
  const go = (to) => () => {
    replay.step = Math.max(1, Math.min(n, to));
    drawReplay();
  };
  const event = replay.data.events[step - 1];
  const board = state.hand
    ? h("div", { class: "replay-board" }, h("div", { class: "board" }, markup(boardHtml(state))))
    : null;
  const hand = state.hand
    ? h("div", { class: "replay-hand", id: "replay-hand" }, markup(myTiles(state).map((x) => tileHtml(x.tile)).join("")))
    : null;
  const view = h(
    "div",
    { id: "replay" },
    h(
      "div",
      { class: "acct-row" },
      h("button", { type: "button", class: "ghost", id: "replay-close", on: { click: closeReplay } }, tr("replay.close")),
      h("button", { type: "button", class: "choice", id: "replay-first", on: { click: go(1) } }, tr("replay.first")),
      h("button", { type: "button", class: "choice", id: "replay-prev", on: { click: go(step - 1) } }, tr("replay.prev")),
      h("strong", { id: "replay-step" }, tr("replay.step", { i: step, n })),
      h("button", { type: "button", class: "choice", id: "replay-next", on: { click: go(step + 1) } }, tr("replay.next")),
      h("button", { type: "button", class: "choice", id: "replay-last", on: { click: go(n) } }, tr("replay.last")),
    ),
    h("p", { class: "replay-event", id: "replay-event" }, event ? describe(event) : ""),
    board,
    hand,
  );
  holder.replaceChildren(view);
}

function describe(e) {
  const parts = Object.entries(e)
    .filter(([k]) => k !== "type")
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${e.type} ${parts.join(" ")}`.slice(0, 300);
}

function closeReplay() {
  document.querySelector("[data-acct-tab=history]")?.click();
}
