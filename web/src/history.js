// Match history (a tab of the account sheet): the server's list of finished matches with their
// replay, downloads (tenhou.net/6, our JSON-lines log) and share link; a copy of the list kept
// in this browser (localStorage, part of the backup); opening a tenhou.net/6 file (picked or
// dropped) in the replay viewer, and the logs the player kept.
import { api, errorText } from "./account-core.js";
import { localeOf, rankName, t } from "./i18n.js";
import { html, mount, nodeOf, points as formatPoints, stylesheet } from "./render/common.js";
import { seatName, withPlayers } from "./render/table.js";

/** The replay viewer, loaded on its first use: the first table does not wait for it. */
const viewer = () => import("./replay.js");
/** The master's review, loaded on its first use too. */
const reviewer = () => import("./review.js");

// The history tab's and the viewer's stylesheet, loaded with the account sheet (account.js
// imports this module), not with the first table.
await stylesheet("assets/replay.css");

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

/** The seats by the names the match's table gave them (render/table.js seatName: Kenji and
 * Sari in practice, a room's "<Level> bot", a seat number after a name two seats share); a
 * practice bot's level after its name. */
function seatsText(entry) {
  const me = entry.seats.find((s) => s.you)?.seat;
  const room = entry.kind === "room" || entry.kind === "quick" || me === undefined;
  const players = room ? entry.seats.map((s) => ({ seat: s.seat, name: s.name, bot_level: s.bot_level })) : null;
  return withPlayers(players, () =>
    entry.seats
      .map((s) => {
        if (s.you) return t("acct.history.you");
        const name = seatName(s.seat, me ?? null);
        return s.bot_level && !room ? t("acct.history.named_bot", { name, level: t(`level.${s.bot_level}`) }) : name;
      })
      .join(" · "),
  );
}

/** A quick match's move on the ladder (docs/quick.md `rank_change`): "+30 · 2 kyu → 1 kyu",
 * "−20 · 1 kyu", and an abandoned match says it counted as a last place. */
function rankChangeText(change) {
  const delta = change.delta > 0 ? `+${formatPoints(change.delta)}` : change.delta < 0 ? `−${formatPoints(-change.delta)}` : "±0";
  const moved = change.rank_before !== change.rank_after;
  const text = moved
    ? t("quick.rank_change", { delta, before: rankName(change.rank_before), after: rankName(change.rank_after) })
    : t("quick.rank_same", { delta, rank: rankName(change.rank_after) });
  return change.abandoned ? `${t("quick.abandoned", { place: t(`place.${change.placement}`) })} · ${text}` : text;
}

function rulesText(rules) {
  const length = rules?.length ? t(`length.${rules.length}`) : "";
  return rules?.red_fives === false ? length : `${length} · ${t("start.red_fives")}`;
}

const WHEN = { dateStyle: "medium", timeStyle: "short" };

function whenText(at) {
  const when = new Date(at);
  return Number.isNaN(when.getTime()) ? "" : when.toLocaleString(localeOf("date"), WHEN);
}

/** The entries of the tables last drawn, by match id: a Replay button finds its entry here. */
const shown = new Map();

/** A fact of a row, labelled with its column (an upright phone shows the label before it: the
 * header row is hidden there). */
function cell(column, content, cls = "") {
  return html`<td class="${cls}" data-label="${t(`acct.history.col.${column}`)}">${content}</td>`;
}

function row(entry, withReplay) {
  const id = entry.match;
  // A download shows its format's short name (the row stays one line); the whole name is its label.
  const dl = (kind) => {
    const whole = `${t("acct.history.download")}: ${t(`acct.history.${kind}`)}`;
    return html`<button type="button" class="choice" data-act="hist-download" data-match="${id}" data-download="${kind}" aria-label="${whole}" title="${whole}">⬇ ${t(`acct.history.short.${kind}`)}</button>`;
  };
  const tools = withReplay
    ? html`<td class="hist-tools"><div class="hist-tool-row"><button type="button" class="choice" data-act="hist-replay" data-replay="${id}">${t("acct.history.replay")}</button><button type="button" class="choice" data-act="hist-review" data-review="${id}">${t("acct.history.review")}</button>${dl("tenhou6")}${dl("jsonl")}<button type="button" class="choice" data-act="hist-share" data-share="${id}">${t("acct.history.share")}</button></div></td>`
    : html`<td></td>`;
  const points = entry.points !== null && entry.points !== undefined ? formatPoints(entry.points) : "";
  const place = entry.placement ? t(`place.${entry.placement}`) : "";
  return html`<tr data-match="${id}">${cell("when", whenText(entry.ended_at), "hist-when")}${cell("rules", entry.coached ? html`${rulesText(entry.rules)} <span class="hist-coached" data-coached>· ${t("acct.history.coached")}</span>` : rulesText(entry.rules))}${cell("players", seatsText(entry), "hist-seats")}${cell("placement", entry.rank_change ? html`${place} <span class="hist-rank" data-testid="rank-change" data-delta="${entry.rank_change.delta}">${rankChangeText(entry.rank_change)}</span>` : place, `hist-place place-${entry.placement}`)}${cell("points", points, "hist-points")}${tools}</tr>`;
}

function head() {
  const cols = ["when", "rules", "players", "placement", "points"].map((c) => html`<th scope="col">${t(`acct.history.col.${c}`)}</th>`);
  return html`<thead><tr>${cols}<td></td></tr></thead>`;
}

function table(entries, withReplay, id) {
  if (!entries.length) return html`<p>${t("acct.history.empty")}</p>`;
  for (const e of entries) shown.set(e.match, e);
  return html`<table class="hist" id="${id}">${head()}<tbody>${entries.map((e) => row(e, withReplay))}</tbody></table>`;
}

/** The tab's content: opening a log, the finished matches, the logs kept, the local-only ones. */
export async function historyTab() {
  const server = (await syncHistory()) || [];
  const known = new Set(server.map((e) => e.match));
  const localOnly = localHistory().filter((e) => !known.has(e.match));
  const saved = await api("GET", "/api/replays");
  const logs = saved.status === 200 ? saved.data.logs : [];
  shown.clear();
  return html`${openSection()}<section><h3>${t("acct.history.server")}</h3>${table(server, true, "hist-server")}</section><div id="hist-saved">${logs.length ? savedSection(logs) : null}</div>${localOnly.length ? html`<section><h3>${t("acct.history.local")}</h3>${table(localOnly, false, "hist-local")}</section>` : null}`;
}

/** What the tab's controls do (the account sheet delegates its events here): `say(note, error)`
 * reports under the tabs. */
export function historyActions(say) {
  return {
    "hist-replay": (el, ev) => ev.type === "click" && shown.has(el.dataset.replay) && openReplay(shown.get(el.dataset.replay), say),
    "hist-review": (el, ev) => ev.type === "click" && shown.has(el.dataset.review) && review(shown.get(el.dataset.review), el, say),
    "hist-download": (el, ev) => ev.type === "click" && download(el.dataset.match, el.dataset.download, say),
    "hist-share": (el, ev) => ev.type === "click" && share(el.dataset.share, el, say),
    "share-copy": (el, ev) => ev.type === "click" && copyLink(say),
    "share-stop": (el, ev) => ev.type === "click" && stopSharing(el.dataset.match, say),
    "log-drop": (el, ev) => onDropZone(el, ev, say),
    "log-file": async (el, ev) => {
      if (ev.type !== "change") return;
      const chosen = el.files?.[0];
      if (chosen) await openFile(chosen, say);
      el.value = "";
    },
    "log-preset": (el, ev) => ev.type === "change" && (picked.preset = el.value),
    "saved-open": (el, ev) => ev.type === "click" && openSaved(el.dataset.openLog, say),
    "saved-forget": (el, ev) => ev.type === "click" && forget(el.dataset.forgetLog, el, say),
  };
}

/** `review`: the master's review of the player's seat, listed beside the replay (review.js). */
async function openReplay(entry, say, review = null) {
  const { status, data } = await api("GET", `/api/matches/${encodeURIComponent(entry.match)}/replay`);
  if (status !== 200) return say("", errorText(data, status));
  // A room match names its seats as they were at the table; practice keeps its bots' names.
  const players = entry.kind === "room" ? entry.seats.map((s) => ({ seat: s.seat, name: s.name, bot_level: s.bot_level })) : null;
  (await viewer()).openViewer(data, { players, title: t("replay.title"), when: whenText(entry.ended_at), say, review });
}

/** Ask for the match's review (its progress in the row), then open the replay beside it. */
async function review(entry, pressed, say) {
  (await reviewer()).askReview(entry.match, pressed, say, (result) => openReplay(entry, say, result));
}

// --- downloads and share links ------------------------------------------------------------------

const DOWNLOADS = { tenhou6: ["tenhou6", "tenhou6.json"], jsonl: ["log.jsonl", "jsonl"] };

async function download(match, kind, say) {
  if (!DOWNLOADS[kind]) return;
  const [path, ext] = DOWNLOADS[kind];
  const { status, data } = await api("GET", `/api/matches/${encodeURIComponent(match)}/${path}`, undefined, { blob: true });
  if (status !== 200) return say("", errorText(data, status));
  const name = `sanma-${match}.${ext}`;
  saveBlob(data, name);
  say(t("acct.history.downloaded", { name }));
}

/** Hand `blob` to the browser as a download named `name`. */
/** Forget this browser's copy of the history (the account it belonged to was deleted). */
export function forgetLocal() {
  localStorage.removeItem(LOCAL_KEY);
}

export function saveBlob(blob, name) {
  const link = nodeOf(html`<a href="${URL.createObjectURL(blob)}" download="${name}" hidden></a>`);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function share(match, pressed, say) {
  const { status, data } = await api("POST", `/api/matches/${encodeURIComponent(match)}/share`);
  if (status !== 200) return say("", errorText(data, status));
  const url = new URL(data.path, location.href).href;
  document.getElementById("share-box")?.remove();
  const box = nodeOf(html`<table><tbody><tr id="share-box"><td colspan="6"><p>${t("acct.history.shared")}</p><div class="acct-row"><input id="share-link" readonly value="${url}" aria-label="${t("acct.history.link_label")}"><button type="button" class="choice" id="share-copy" data-act="share-copy">${t("acct.history.copy")}</button><button type="button" class="ghost" id="share-stop" data-act="share-stop" data-match="${match}">${t("acct.history.unshare")}</button></div></td></tr></tbody></table>`);
  // A <tr> parses only inside a table: the row is taken out of the one built around it.
  pressed.closest("tr").after(box.querySelector("tr"));
  document.getElementById("share-copy").focus();
}

async function copyLink(say) {
  const field = document.getElementById("share-link");
  if (!field) return;
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
  } catch {
    document.execCommand?.("copy"); // an older browser, or no clipboard permission
  }
  say(t("acct.history.copied"));
}

async function stopSharing(match, say) {
  const r = await api("DELETE", `/api/matches/${encodeURIComponent(match)}/share`);
  if (r.status !== 204) return say("", errorText(r.data, r.status));
  document.getElementById("share-box")?.remove();
  say(t("acct.history.unshared"));
}

// --- opening a log ------------------------------------------------------------------------------

function openSection() {
  const presets = PRESETS.map((p) => html`<option value="${p}"${p === picked.preset ? html` selected` : null}>${t(`acct.open.preset.${p || "auto"}`)}</option>`);
  return html`<section class="open-log"><h3>${t("acct.open.title")}</h3><p id="log-help">${t("acct.open.help")}</p><div class="acct-row"><div class="drop-zone" id="log-drop" data-act="log-drop" role="button" tabindex="0" aria-describedby="log-help">${t("acct.open.drop")}</div><label class="log-preset">${t("acct.open.preset")}<select id="log-preset" data-act="log-preset">${presets}</select></label><input type="file" id="log-file" data-act="log-file" accept="application/json,.json,.txt,.xml,.mjlog,.gz,application/xml,text/xml,application/gzip" hidden></div></section>`;
}

/** The drop zone: a click or Enter picks a file, a dropped file is opened. */
async function onDropZone(zone, ev, say) {
  const pick = () => document.getElementById("log-file")?.click();
  if (ev.type === "click") pick();
  else if (ev.type === "keydown" && (ev.key === "Enter" || ev.key === " ")) {
    ev.preventDefault();
    pick();
  } else if (ev.type === "dragover") {
    ev.preventDefault();
    zone.classList.add("over");
  } else if (ev.type === "dragleave") zone.classList.remove("over");
  else if (ev.type === "drop") {
    ev.preventDefault();
    zone.classList.remove("over");
    const dropped = ev.dataTransfer?.files?.[0];
    if (dropped) await openFile(dropped, say);
  }
}

/** A log file's text. Tenhou's own downloads (`.mjlog`, `.xml.gz`) are gzip: unpacked here, so
 * the viewer keeps (and may save) the log's text, never its packing. `null` if it does not unpack. */
async function logText(file) {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  if (head[0] !== 0x1f || head[1] !== 0x8b) return file.text();
  try {
    return await new Response(file.stream().pipeThrough(new DecompressionStream("gzip"))).text();
  } catch {
    return null;
  }
}

/** Send a picked or dropped file to the server's importer and open what it answers. */
export async function openFile(file, say) {
  say(t("acct.open.reading", { name: file.name }));
  const text = await logText(file);
  if (text === null) return say("", errorText({ error: "not_text" }, 422));
  const query = picked.preset ? `?preset=${encodeURIComponent(picked.preset)}` : "";
  const { status, data } = await api("POST", `/api/replays/open${query}`, undefined, { raw: text });
  if (status !== 200) return say("", errorText(data, status));
  say("");
  const { openViewer, playersOf } = await viewer();
  const log = { text, preset: picked.preset };
  openViewer(data, { players: playersOf(data), spectator: true, title: data.title || file.name, log, say, onSaved: redrawSaved });
}

/** The kept logs' list drawn again (a file was just kept from the viewer over the tab). */
async function redrawSaved() {
  const place = document.getElementById("hist-saved");
  if (!place) return; // the history tab is not open
  const { status, data } = await api("GET", "/api/replays");
  if (status === 200) mount(place, data.logs.length ? savedSection(data.logs) : html``);
}

function savedSection(logs) {
  const items = logs.map(
    (log) =>
      html`<li data-log="${log.id}"><span class="saved-title">${log.title}</span><small class="hist-when"> ${whenText(log.created_at)} </small><button type="button" class="choice" data-act="saved-open" data-open-log="${log.id}">${t("acct.saved.open")}</button><button type="button" class="ghost" data-act="saved-forget" data-forget-log="${log.id}">${t("acct.saved.forget")}</button></li>`,
  );
  return html`<section><h3>${t("acct.saved.title")}</h3><ul class="saved-logs" id="saved-logs">${items}</ul></section>`;
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
