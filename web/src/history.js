// Match history (a tab of the account sheet): the server's list of finished matches, a copy
// kept in this browser (localStorage, part of the backup), and a step-through replay of a
// match's log as the player's seat saw it (the server redacts it; state.js folds it).
import { api, errorText, h, tr } from "./account-core.js";
import { getLang, t, tileName } from "./i18n.js";
import { tileHtml } from "./render/common.js";
import { boardHtml, myTiles, seatName, withPlayers } from "./render/table.js";
import { fold, newState } from "./state.js";

const LOCAL_KEY = "sanma.history";
const replay = { match: null, data: null, step: 0, players: null };

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
  return rules?.red_fives === false ? length : `${length} · ${t("start.red_fives")}`;
}

const WHEN = { dateStyle: "medium", timeStyle: "short" };

function row(entry, withReplay, say) {
  const when = new Date(entry.ended_at);
  return h(
    "tr",
    { dataset: { match: entry.match } },
    h("td", { class: "hist-when" }, Number.isNaN(when.getTime()) ? "" : when.toLocaleString(getLang() === "en" ? "en-GB" : "id-ID", WHEN)),
    h("td", {}, rulesText(entry.rules)),
    h("td", { class: "hist-seats" }, seatsText(entry)),
    h("td", { class: `hist-place place-${entry.placement}` }, entry.placement ? t(`place.${entry.placement}`) : ""),
    h("td", {}, entry.points !== null && entry.points !== undefined ? entry.points.toLocaleString("en-US") : ""),
    h(
      "td",
      {},
      withReplay
        ? h("button", { type: "button", class: "choice", dataset: { replay: entry.match }, on: { click: () => openReplay(entry, say) } }, tr("history.replay"))
        : null,
    ),
  );
}

function head() {
  const cols = ["when", "rules", "players", "placement", "points"].map((c) => h("th", { scope: "col" }, tr(`history.col.${c}`)));
  return h("thead", {}, h("tr", {}, cols, h("td", {})));
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
      ? h("table", { class: "hist", id }, head(), h("tbody", {}, entries.map((e) => row(e, withReplay, say))))
      : h("p", {}, tr("history.empty"));
  return [
    h("section", {}, h("h3", {}, tr("history.server")), table(server, true, "hist-server")),
    localOnly.length ? h("section", {}, h("h3", {}, tr("history.local")), table(localOnly, false, "hist-local")) : null,
  ];
}

async function openReplay(entry, say) {
  const match = entry.match;
  const { status, data } = await api("GET", `/api/matches/${encodeURIComponent(match)}/replay`);
  if (status !== 200) return say("", errorText(data, status));
  // A room match names its seats as they were at the table; practice keeps its bots' names.
  replay.players = entry.kind === "room" ? entry.seats.map((s) => ({ seat: s.seat, name: s.name, bot_level: s.bot_level })) : null;
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
  withPlayers(replay.players, drawReplayNow);
}

function drawReplayNow() {
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
      { class: "acct-row replay-nav" },
      h("button", { type: "button", class: "ghost", id: "replay-close", on: { click: closeReplay } }, `← ${tr("replay.close")}`),
      h("span", { class: "spacer" }),
      h("button", { type: "button", class: "choice", id: "replay-first", "aria-label": tr("replay.first_label"), on: { click: go(1) } }, tr("replay.first")),
      h("button", { type: "button", class: "choice", id: "replay-prev", on: { click: go(step - 1) } }, tr("replay.prev")),
      h("strong", { id: "replay-step" }, tr("replay.step", { i: step, n })),
      h("button", { type: "button", class: "choice", id: "replay-next", on: { click: go(step + 1) } }, tr("replay.next")),
      h("button", { type: "button", class: "choice", id: "replay-last", "aria-label": tr("replay.last_label"), on: { click: go(n) } }, tr("replay.last")),
      h("span", { class: "spacer" }),
    ),
    h("p", { class: "replay-event", id: "replay-event", "aria-live": "polite" }, event ? describe(event, replay.data.seat) : ""),
    board,
    hand,
  );
  // Redrawn on every step: the pressed button keeps the keyboard focus; the arrows step too.
  const focused = holder.contains(document.activeElement) ? document.activeElement.id : "";
  view.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowLeft" || ev.key === "ArrowRight") {
      ev.preventDefault();
      go(step + (ev.key === "ArrowLeft" ? -1 : 1))();
      document.getElementById(ev.key === "ArrowLeft" ? "replay-prev" : "replay-next")?.focus();
    }
  });
  holder.replaceChildren(view);
  if (focused) document.getElementById(focused)?.focus();
}

/** One event in words, as the replay's seat saw it (a hidden tile is not named). */
function describe(e, me) {
  const who = typeof e.seat === "number" ? seatName(e.seat, me) : "";
  const tile = (x) => (typeof x === "string" && x !== "?" ? tileName(x) : "");
  switch (e.type) {
    case "MatchStarted":
      return tr("replay.ev.match_started");
    case "HandStarted":
      return tr("replay.ev.hand_started");
    case "TileDrawn":
      return tile(e.tile) ? tr("replay.ev.drew_tile", { who, tile: tile(e.tile) }) : tr("replay.ev.drew", { who });
    case "TileDiscarded":
      return tr(e.riichi ? "replay.ev.riichi_discard" : "replay.ev.discard", { who, tile: tile(e.tile) });
    case "RiichiAccepted":
      return tr("replay.ev.riichi", { who });
    case "MeldCalled":
      return tr("replay.ev.call", { who, call: t(e.meld?.type === "pon" ? "action.pon" : "action.kan") });
    case "KitaDeclared":
      return tr("replay.ev.kita", { who });
    case "DoraRevealed":
      return tr("replay.ev.dora", { tile: tile(e.indicator) });
    case "HandWon":
      return tr(e.from_seat === e.seat ? "replay.ev.tsumo" : "replay.ev.ron", { who });
    case "HandDrawn":
      return t("end.draw");
    case "HandAborted":
      return t("end.abort");
    case "MatchEnded":
      return tr("replay.ev.match_ended");
    default:
      return "";
  }
}

function closeReplay() {
  document.querySelector("[data-acct-tab=history]")?.click();
}
