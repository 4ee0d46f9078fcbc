// The account sheet (start screen button "Account"): profile and display name, e-mail link and
// recovery, backup export/import, the server's export of the account's data and its deletion,
// with the shop (shop.js), the history (history.js), the statistics (stats.js) and the drills
// (drills.js) as tabs.
// It also dresses the table in the equipped cosmetics (CSS variables read by an injected style).
import { accountButtonInner, api, errorText, mailLang, session } from "./account-core.js";
import { newToken } from "./api.js";
import { applyEquipment } from "./cosmetics.js";
import { drillsActions, drillsTab } from "./drills.js";
import { icon } from "./icons.js";
import { delegate, html, mount, nodeOf } from "./render/common.js";
import { forgetLocal, historyActions, historyTab, localHistory, mergeLocal, saveBlob, syncHistory } from "./history.js";
import { t } from "./i18n.js";
import { dressSwatches, shopActions, shopTab } from "./shop.js";
import { statsActions, statsTab } from "./stats.js";

export { syncHistory };

// `deleting`: the deletion's confirmation box is open.
const view = { open: false, tab: "profile", note: "", error: "", deleting: false };
let onSwitch = () => {};

/** Wire the account pages to the app: `setToken` changes the browser's token (api.js holds
 * it); `switched()` is called after the browser changes account (recover, import).  The
 * module is loaded once the first screen is up (match.js `withAccount`), so the profile and
 * history are asked at once. */
export function initAccount({ setToken, switched }) {
  session.setToken = setToken;
  onSwitch = switched || (() => {});
  document.addEventListener("keydown", (ev) => {
    // The viewer (over the sheet) closes first.
    if (view.open && ev.key === "Escape" && !document.getElementById("replay-view")) closeAccount();
  });
  refreshProfile()
    .then(() => syncHistory())
    .catch((err) => console.warn(err));
  // A share link (/?replay=<id>) opens its replay over whatever the page shows.
  const shared = new URLSearchParams(location.search).get("replay");
  if (shared) import("./replay.js").then((viewer) => viewer.openSharedReplay(shared)).catch((err) => console.warn(err));
}

/** Reload the profile and apply its equipment to the table. */
export async function refreshProfile() {
  const { status, data } = await api("GET", "/api/account");
  if (status !== 200) return null;
  session.profile = data;
  await applyEquipment();
  const button = document.getElementById("account-btn");
  if (button) mount(button, accountButtonInner(!data.email));
  return data;
}

// --- the sheet ------------------------------------------------------------------------------

function sheet() {
  let el = document.getElementById("account-sheet");
  if (!el) {
    el = nodeOf(html`<div id="account-sheet" class="overlay sheet" hidden role="dialog" aria-modal="true" aria-labelledby="acct-title"></div>`);
    // One set of listeners for every tab's controls (data-act), kept across redraws.
    const actions = { ...ACTIONS, ...shopActions(say, refresh), ...historyActions(say), ...statsActions(), ...drillsActions(say) };
    for (const type of ["click", "change", "keydown", "dragover", "dragleave", "drop"]) delegate(el, type, actions);
    document.body.append(el);
  }
  return el;
}

/** The profile tab's and the sheet's own controls. */
const ACTIONS = {
  "acct-tab": (el, ev) => ev.type === "click" && openTab(el.dataset.acctTab),
  "acct-close": (el, ev) => ev.type === "click" && closeAccount(),
  "acct-name-save": (el, ev) => ev.type === "click" && saveName(),
  "code-send": (el, ev) => ev.type === "click" && sendCode(FLOWS[el.dataset.flow]),
  "code-verify": (el, ev) => ev.type === "click" && verifyCode(FLOWS[el.dataset.flow]),
  "backup-export": (el, ev) => ev.type === "click" && exportBackup(),
  "backup-import": (el, ev) => ev.type === "click" && document.getElementById("backup-file")?.click(),
  "backup-file": async (el, ev) => {
    if (ev.type !== "change") return;
    const chosen = el.files?.[0];
    if (chosen) await importBackup(await chosen.text());
    el.value = "";
  },
  "data-export": (el, ev) => ev.type === "click" && downloadData(),
  "delete-open": (el, ev) => ev.type === "click" && showDeletion(!view.deleting),
  "delete-cancel": (el, ev) => ev.type === "click" && showDeletion(false),
  "delete-send": (el, ev) => ev.type === "click" && sendDeleteCode(),
  "delete-confirm": (el, ev) => ev.type === "click" && deleteAccount(),
};

export async function openAccount(tab) {
  view.open = true;
  if (tab) view.tab = tab;
  view.note = "";
  view.error = "";
  view.deleting = false;
  await refreshProfile();
  await render();
  sheet().querySelector("[data-acct-close]")?.focus();
}

export function closeAccount() {
  view.open = false;
  sheet().hidden = true;
  mount(sheet(), html``);
  document.getElementById("account-btn")?.focus(); // back where the sheet was opened
}

/** Redraw the open sheet. */
export async function render() {
  const el = sheet();
  el.hidden = !view.open;
  if (!view.open) return;
  const tabs = ["profile", "shop", "history", "stats", "drills"].map(
    (name) => html`<button type="button" class="choice${view.tab === name ? " on" : ""}" aria-pressed="${view.tab === name}" data-act="acct-tab" data-acct-tab="${name}">${t(`acct.tab.${name}`)}</button>`,
  );
  let body;
  if (view.tab === "shop") body = await shopTab();
  else if (view.tab === "history") body = await historyTab();
  else if (view.tab === "stats") body = await statsTab();
  else if (view.tab === "drills") body = await drillsTab();
  else body = profileTab();
  // Forced: the tabs change parts of the sheet (a share box, a shown name) after drawing it.
  mount(
    el,
    html`<div class="panel acct" id="account-panel"><div class="acct-head"><h2 id="acct-title">${t("acct.title")}</h2><button type="button" class="ghost" data-act="acct-close" data-acct-close="1">${icon("close")} ${t("acct.close")}</button></div><div class="acct-tabs" role="group">${tabs}</div><p class="acct-note" id="acct-note" role="status">${view.note}</p><p class="acct-error" id="acct-error" role="alert">${view.error}</p><div class="acct-body">${body}</div></div>`,
    true,
  );
  if (view.tab === "shop") dressSwatches(el);
}

async function openTab(name) {
  view.tab = name;
  view.note = "";
  view.error = "";
  await render();
  document.querySelector(`[data-acct-tab=${name}]`)?.focus(); // the redraw replaced the button
}

/** Reload the profile (unless `profile` is false) and redraw the sheet: the shop's buy and equip. */
async function refresh({ profile = true } = {}) {
  if (profile) await refreshProfile();
  await render();
}

/** Show a note (ok) or an error under the tabs without redrawing. */
function say(note, error = "") {
  view.note = note;
  view.error = error;
  const n = document.getElementById("acct-note");
  const e = document.getElementById("acct-error");
  if (n) n.textContent = note;
  if (e) e.textContent = error;
}

// --- profile tab ----------------------------------------------------------------------------

function profileTab() {
  const p = session.profile || {};
  return html`${p.email ? null : html`<p class="acct-warn" id="acct-warn">${t("acct.warn.unsafe")}</p>`}<section><h3>${t("acct.profile.name")}</h3><div class="acct-row"><strong id="acct-name-shown">${p.name || t("acct.profile.none")}</strong></div><div class="acct-row"><input id="acct-name" maxlength="24" value="${p.name || ""}" autocomplete="nickname" aria-label="${t("acct.profile.name")}"><button type="button" class="choice" id="acct-name-save" data-act="acct-name-save">${t("acct.profile.save")}</button></div></section>${emailSection(p)}${recoverSection()}${backupSection()}${dataSection(p)}`;
}

async function saveName() {
  const { status, data } = await api("POST", "/api/account/name", { name: document.getElementById("acct-name")?.value ?? "" });
  if (status !== 200) return say("", errorText(data, status));
  session.profile = data;
  document.getElementById("acct-name-shown").textContent = data.name;
  say(t("acct.profile.saved"));
}

/** The two e-mail code flows (link an address, recover the account): send a code, then check it. */
const FLOWS = {
  link: {
    prefix: "link",
    sendPath: "/api/account/email",
    verifyPath: "/api/account/email/verify",
    done: async (profile) => {
      session.profile = profile;
      view.note = t("acct.email.done");
      await render();
    },
  },
  recover: {
    prefix: "recover",
    sendPath: "/api/account/recover",
    verifyPath: "/api/account/recover/verify",
    done: async (answer) => {
      session.setToken(answer.token);
      await refreshProfile();
      await syncHistory();
      view.note = t("acct.recover.done");
      await render();
      onSwitch();
    },
  },
};

function codeFlow(prefix, verifyLabel) {
  return html`<div class="acct-row"><input id="${prefix}-email" type="email" autocomplete="email" maxlength="254" placeholder="${t("acct.email.placeholder")}" aria-label="${t("acct.email.address")}"><button type="button" class="choice" id="${prefix}-send" data-act="code-send" data-flow="${prefix}">${t("acct.email.send")}</button></div><div class="acct-row" id="${prefix}-step2" hidden><input id="${prefix}-code" inputmode="numeric" autocomplete="one-time-code" maxlength="12" placeholder="${t("acct.email.code")}" aria-label="${t("acct.email.code")}"><button type="button" class="choice" id="${prefix}-verify" data-act="code-verify" data-flow="${prefix}">${verifyLabel}</button></div>`;
}

const field = (id) => document.getElementById(id)?.value ?? "";

async function sendCode(flow) {
  const { status, data } = await api("POST", flow.sendPath, { email: field(`${flow.prefix}-email`), lang: mailLang() });
  if (status !== 202) return say("", errorText(data, status));
  document.getElementById(`${flow.prefix}-step2`).hidden = false;
  say(t("acct.email.sent"));
  document.getElementById(`${flow.prefix}-code`).focus();
}

async function verifyCode(flow) {
  const { status, data } = await api("POST", flow.verifyPath, { email: field(`${flow.prefix}-email`), code: field(`${flow.prefix}-code`) });
  if (status !== 200) return say("", errorText(data, status));
  await flow.done(data);
}

function emailSection(p) {
  const state = p.email ? t("acct.email.linked", { email: p.email }) : t("acct.email.none");
  return html`<section><h3>${t("acct.email.title")}</h3><p id="acct-email-state">${state}</p>${codeFlow("link", t("acct.email.verify"))}</section>`;
}

function recoverSection() {
  return html`<section><h3>${t("acct.recover.title")}</h3><p>${t("acct.recover.help")}</p>${codeFlow("recover", t("acct.recover.verify"))}</section>`;
}

// --- backup ---------------------------------------------------------------------------------

function backupSection() {
  return html`<section><h3>${t("acct.backup.title")}</h3><div class="acct-row"><button type="button" class="choice" id="backup-export" data-act="backup-export">${t("acct.backup.export")}</button><button type="button" class="choice" id="backup-import" data-act="backup-import">${t("acct.backup.import")}</button><input type="file" id="backup-file" data-act="backup-file" accept="application/json,.json" hidden></div></section>`;
}

/** The backup: the account's token and every match this browser knows. */
export function backupJson() {
  return JSON.stringify(
    { format: "sanma-backup", version: 1, exported_at: new Date().toISOString(), token: session.getToken(), history: localHistory() },
    null,
    1,
  );
}

async function exportBackup() {
  await syncHistory();
  const blob = new Blob([backupJson()], { type: "application/json" });
  saveBlob(blob, `sanma-backup-${new Date().toISOString().slice(0, 10)}.json`);
}

/** Merge a backup's history; offer to switch to its account when the token differs. */
export async function importBackup(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = null;
  }
  if (!data || data.format !== "sanma-backup" || !Array.isArray(data.history)) return say("", t("acct.backup.bad"));
  const n = mergeLocal(data.history);
  if (typeof data.token === "string" && data.token && data.token !== session.getToken() && confirm(t("acct.backup.switch"))) {
    session.setToken(data.token);
    await refreshProfile();
    await syncHistory();
    onSwitch();
  }
  view.note = t("acct.backup.imported", { n });
  await render();
}

// --- your data: the server's export, deleting the account (docs/accounts.md "Your data") -------

function dataSection(p) {
  return html`<section id="acct-data"><h3>${t("acct.data.title")}</h3><p>${t("acct.data.help")}</p><div class="acct-row"><button type="button" class="choice" id="data-export" data-act="data-export">${t("acct.data.export")}</button><button type="button" class="choice danger" id="delete-open" data-act="delete-open" aria-expanded="${view.deleting}" aria-controls="delete-box">${t("acct.delete.open")}</button></div>${view.deleting ? deletionBox(p) : null}</section>`;
}

/** The confirmation: what goes and what stays, then the code mailed to the linked address (an
 * account without one has only its token: the button alone confirms). */
function deletionBox(p) {
  const cancel = html`<button type="button" class="ghost" id="delete-cancel" data-act="delete-cancel">${t("acct.delete.cancel")}</button>`;
  const sure = html`<button type="button" class="choice danger" id="delete-confirm" data-act="delete-confirm">${t("acct.delete.confirm")}</button>`;
  const steps = p.email
    ? html`<p>${t("acct.delete.by_code")}</p><div class="acct-row"><input id="delete-email" type="email" autocomplete="email" maxlength="254" placeholder="${t("acct.email.placeholder")}" aria-label="${t("acct.email.address")}"><button type="button" class="choice" id="delete-send" data-act="delete-send">${t("acct.email.send")}</button></div><div class="acct-row" id="delete-step2" hidden><input id="delete-code" inputmode="numeric" autocomplete="one-time-code" maxlength="12" placeholder="${t("acct.email.code")}" aria-label="${t("acct.email.code")}">${sure}</div><div class="acct-row">${cancel}</div>`
    : html`<div class="acct-row">${sure}${cancel}</div>`;
  return html`<div class="acct-danger" id="delete-box" role="group" aria-labelledby="delete-title"><h4 id="delete-title">${t("acct.delete.title")}</h4><p>${t("acct.delete.goes")}</p><p>${t("acct.delete.kept")}</p>${steps}</div>`;
}

async function showDeletion(open) {
  view.deleting = open;
  await render();
  document.getElementById(open ? "delete-box" : "delete-open")?.scrollIntoView({ block: "nearest" });
  document.getElementById(open ? (session.profile?.email ? "delete-email" : "delete-cancel") : "delete-open")?.focus();
}

async function downloadData() {
  const { status, data } = await api("GET", "/api/account/export", undefined, { blob: true });
  if (status !== 200) return say("", errorText(data, status));
  saveBlob(data, `sanma-account-${new Date().toISOString().slice(0, 10)}.json`);
  say(t("acct.data.exported"));
}

async function sendDeleteCode() {
  const { status, data } = await api("POST", "/api/account/delete/code", { email: field("delete-email"), lang: mailLang() });
  if (status !== 202) return say("", errorText(data, status));
  document.getElementById("delete-step2").hidden = false;
  say(t("acct.email.sent"));
  document.getElementById("delete-code").focus();
}

/** Delete, then play on as a fresh guest from the start screen (this browser's copy of the
 * history goes with the account). */
async function deleteAccount() {
  const body = session.profile?.email ? { email: field("delete-email"), code: field("delete-code") } : {};
  const { status, data } = await api("POST", "/api/account/delete", body);
  if (status !== 200) return say("", data?.error === "match_running" ? t("acct.delete.running") : errorText(data, status));
  forgetLocal();
  session.setToken(await newToken());
  view.deleting = false;
  closeAccount();
  await refreshProfile();
  onSwitch();
}
