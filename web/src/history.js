// Match history (a tab of the account sheet): the server's list of finished matches with their
// replay, downloads (tenhou.net/6, our JSON-lines log) and share link; a copy of the list kept
// in this browser (localStorage, part of the backup); opening a tenhou.net/6 file (picked or
// dropped) in the replay viewer, and the logs the player kept.
import { api, errorText, h } from "./account-core.js";
import { getLang, t } from "./i18n.js";
import { BOT_NAMES } from "./render/table.js";

/** The replay viewer, loaded on its first use: the first table does not wait for it. */
const viewer = () => import("./replay.js");

const LOCAL_KEY = "sanma.history";
const PRESETS = ["", "tenhou", "mahjongsoul", "default"];
const picked = { preset: "" };

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
  const me = entry.seats.find((s) => s.you)?.seat;
  return entry.seats
    .map((s) => {
      if (s.you) return t("acct.history.you");
      if (s.bot_level) {
        const level = t(`level.${s.bot_level}`);
        // A practice match's bots by the names the table gave them (Kenji after you, Sari before).
        if (entry.kind !== "room" && me !== undefined) return t("acct.history.named_bot", { name: BOT_NAMES[(s.seat - me + 3) % 3 - 1], level });
        return t("acct.history.bot", { level });
      }
      return s.name || t("acct.history.guest");
    })
    .join(" · ");
}

function rulesText(rules) {
  const length = rules?.length ? t(`length.${rules.length}`) : "";
  return rules?.red_fives === false ? length : `${length} · ${t("start.red_fives")}`;
}

const WHEN = { dateStyle: "medium", timeStyle: "short" };

function whenText(at) {
  const when = new Date(at);
  return Number.isNaN(when.getTime()) ? "" : when.toLocaleString(getLang() === "en" ? "en-GB" : "id-ID", WHEN);
}

function row(entry, withReplay, say) {
  const tools = withReplay
    ? h(
        "td",
        { class: "hist-tools" },
        h("button", { type: "button", class: "choice", dataset: { replay: entry.match }, on: { click: () => openReplay(entry, say) } }, t("acct.history.replay")),
        h("button", { type: "button", class: "choice", dataset: { download: "tenhou6" }, "aria-label": `${t("acct.history.download")}: ${t("acct.history.tenhou6")}`, on: { click: () => download(entry.match, "tenhou6", say) } }, `⬇ ${t("acct.history.tenhou6")}`),
        h("button", { type: "button", class: "choice", dataset: { download: "jsonl" }, "aria-label": `${t("acct.history.download")}: ${t("acct.history.jsonl")}`, on: { click: () => download(entry.match, "jsonl", say) } }, `⬇ ${t("acct.history.jsonl")}`),
        h("button", { type: "button", class: "choice", dataset: { share: entry.match }, on: { click: (ev) => share(entry.match, ev.currentTarget, say) } }, t("acct.history.share")),
      )
    : h("td", {});
  return h(
    "tr",
    { dataset: { match: entry.match } },
    h("td", { class: "hist-when" }, whenText(entry.ended_at)),
    h("td", {}, rulesText(entry.rules)),
    h("td", { class: "hist-seats" }, seatsText(entry)),
    h("td", { class: `hist-place place-${entry.placement}` }, entry.placement ? t(`place.${entry.placement}`) : ""),
    h("td", {}, entry.points !== null && entry.points !== undefined ? entry.points.toLocaleString("en-US") : ""),
    tools,
  );
}

function head() {
  const cols = ["when", "rules", "players", "placement", "points"].map((c) => h("th", { scope: "col" }, t(`acct.history.col.${c}`)));
  return h("thead", {}, h("tr", {}, cols, h("td", {})));
}

/** The tab's content: opening a log, the finished matches, the logs kept, the local-only ones. */
export async function historyTab(say) {
  const server = (await syncHistory()) || [];
  const known = new Set(server.map((e) => e.match));
  const localOnly = localHistory().filter((e) => !known.has(e.match));
  const saved = await api("GET", "/api/replays");
  const logs = saved.status === 200 ? saved.data.logs : [];
  const table = (entries, withReplay, id) =>
    entries.length
      ? h("table", { class: "hist", id }, head(), h("tbody", {}, entries.map((e) => row(e, withReplay, say))))
      : h("p", {}, t("acct.history.empty"));
  return [
    openSection(say),
    h("section", {}, h("h3", {}, t("acct.history.server")), table(server, true, "hist-server")),
    logs.length ? savedSection(logs, say) : null,
    localOnly.length ? h("section", {}, h("h3", {}, t("acct.history.local")), table(localOnly, false, "hist-local")) : null,
  ];
}

async function openReplay(entry, say) {
  const { status, data } = await api("GET", `/api/matches/${encodeURIComponent(entry.match)}/replay`);
  if (status !== 200) return say("", errorText(data, status));
  // A room match names its seats as they were at the table; practice keeps its bots' names.
  const players = entry.kind === "room" ? entry.seats.map((s) => ({ seat: s.seat, name: s.name, bot_level: s.bot_level })) : null;
  (await viewer()).openViewer(data, { players, title: t("replay.title"), when: whenText(entry.ended_at), say });
}

// --- downloads and share links ------------------------------------------------------------------

const DOWNLOADS = { tenhou6: ["tenhou6", "tenhou6.json"], jsonl: ["log.jsonl", "jsonl"] };

async function download(match, kind, say) {
  const [path, ext] = DOWNLOADS[kind];
  const { status, data } = await api("GET", `/api/matches/${encodeURIComponent(match)}/${path}`, undefined, { blob: true });
  if (status !== 200) return say("", errorText(data, status));
  const name = `sanma-${match}.${ext}`;
  const link = h("a", { href: URL.createObjectURL(data), download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  say(t("acct.history.downloaded", { name }));
}

async function share(match, pressed, say) {
  const { status, data } = await api("POST", `/api/matches/${encodeURIComponent(match)}/share`);
  if (status !== 200) return say("", errorText(data, status));
  const url = new URL(data.path, location.href).href;
  const field = h("input", { id: "share-link", readonly: true, value: url, "aria-label": t("acct.history.link_label") });
  const copy = async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      document.execCommand?.("copy"); // an older browser, or no clipboard permission
    }
    say(t("acct.history.copied"));
  };
  const stop = async () => {
    const r = await api("DELETE", `/api/matches/${encodeURIComponent(match)}/share`);
    if (r.status !== 204) return say("", errorText(r.data, r.status));
    box.remove();
    say(t("acct.history.unshared"));
  };
  document.getElementById("share-box")?.remove();
  const box = h(
    "tr",
    { id: "share-box" },
    h(
      "td",
      { colspan: "6" },
      h("p", {}, t("acct.history.shared")),
      h(
        "div",
        { class: "acct-row" },
        field,
        h("button", { type: "button", class: "choice", id: "share-copy", on: { click: copy } }, t("acct.history.copy")),
        h("button", { type: "button", class: "ghost", id: "share-stop", on: { click: stop } }, t("acct.history.unshare")),
      ),
    ),
  );
  pressed.closest("tr").after(box);
  document.getElementById("share-copy").focus();
}

// --- opening a log ------------------------------------------------------------------------------

function openSection(say) {
  const file = h("input", { type: "file", id: "log-file", accept: "application/json,.json,.txt", hidden: true });
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (chosen) await openFile(chosen, say);
    file.value = "";
  });
  const zone = h(
    "div",
    { class: "drop-zone", id: "log-drop", role: "button", tabindex: "0", "aria-describedby": "log-help" },
    t("acct.open.drop"),
  );
  zone.addEventListener("click", () => file.click());
  zone.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      file.click();
    }
  });
  zone.addEventListener("dragover", (ev) => {
    ev.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", async (ev) => {
    ev.preventDefault();
    zone.classList.remove("over");
    const dropped = ev.dataTransfer?.files?.[0];
    if (dropped) await openFile(dropped, say);
  });
  const preset = h(
    "select",
    { id: "log-preset", on: { change: (ev) => (picked.preset = ev.target.value) } },
    PRESETS.map((p) => h("option", { value: p, selected: p === picked.preset }, t(`acct.open.preset.${p || "auto"}`))),
  );
  return h(
    "section",
    { class: "open-log" },
    h("h3", {}, t("acct.open.title")),
    h("p", { id: "log-help" }, t("acct.open.help")),
    h("div", { class: "acct-row" }, zone, h("label", { class: "log-preset" }, t("acct.open.preset"), preset), file),
  );
}

/** Send a picked or dropped file to the server's importer and open what it answers. */
export async function openFile(file, say) {
  say(t("acct.open.reading", { name: file.name }));
  const text = await file.text();
  const query = picked.preset ? `?preset=${encodeURIComponent(picked.preset)}` : "";
  const { status, data } = await api("POST", `/api/replays/open${query}`, undefined, { raw: text });
  if (status !== 200) return say("", errorText(data, status));
  say("");
  const { openViewer, playersOf } = await viewer();
  openViewer(data, { players: playersOf(data), spectator: true, title: data.title || file.name, log: { text, preset: picked.preset }, say });
}

function savedSection(logs, say) {
  const items = logs.map((log) =>
    h(
      "li",
      { dataset: { log: log.id } },
      h("span", { class: "saved-title" }, log.title),
      h("small", { class: "hist-when" }, ` ${whenText(log.created_at)} `),
      h("button", { type: "button", class: "choice", dataset: { openLog: log.id }, on: { click: () => openSaved(log.id, say) } }, t("acct.saved.open")),
      h("button", { type: "button", class: "ghost", dataset: { forgetLog: log.id }, on: { click: (ev) => forget(log.id, ev.currentTarget, say) } }, t("acct.saved.forget")),
    ),
  );
  return h("section", {}, h("h3", {}, t("acct.saved.title")), h("ul", { class: "saved-logs", id: "saved-logs" }, items));
}

async function openSaved(id, say) {
  const { status, data } = await api("GET", `/api/replays/${encodeURIComponent(id)}`);
  if (status !== 200) return say("", errorText(data, status));
  const { openViewer, playersOf } = await viewer();
  openViewer(data, { players: playersOf(data), spectator: true, title: data.title, say });
}

async function forget(id, pressed, say) {
  const { status, data } = await api("DELETE", `/api/replays/${encodeURIComponent(id)}`);
  if (status !== 204) return say("", errorText(data, status));
  pressed.closest("li").remove();
  say(t("acct.saved.forgotten"));
}
