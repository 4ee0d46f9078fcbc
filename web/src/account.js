// The account sheet (start screen button "Account"): profile and display name, e-mail link and
// recovery, backup export/import, with the shop (shop.js) and the history (history.js) as tabs.
// It also dresses the table in the equipped cosmetics (CSS variables read by an injected style).
import { api, errorText, h, mailLang, session } from "./account-core.js";
import { applyEquipment } from "./cosmetics.js";
import { icon, iconNode } from "./icons.js";
import { esc } from "./render/common.js";
import { localHistory, mergeLocal, historyTab, syncHistory } from "./history.js";
import { t } from "./i18n.js";
import { shopTab } from "./shop.js";

const view = { open: false, tab: "profile", note: "", error: "" };
let onSwitch = () => {};

/** Wire the account pages to the app: `getToken`/`setToken` read and change the browser's
 * token; `switched()` is called after the browser changes account (recover, import). */
export function initAccount({ getToken, setToken, switched }) {
  session.getToken = getToken;
  session.setToken = setToken;
  onSwitch = switched || (() => {});
  document.addEventListener("click", (ev) => {
    if (ev.target.closest?.("[data-cmd=account]")) openAccount();
  });
  document.addEventListener("keydown", (ev) => {
    // The viewer (over the sheet) closes first.
    if (view.open && ev.key === "Escape" && !document.getElementById("replay-view")) closeAccount();
  });
  refreshProfile().then(() => syncHistory()).catch((err) => console.warn(err));
  // A share link (/?replay=<id>) opens its replay over whatever the page shows.
  const shared = new URLSearchParams(location.search).get("replay");
  if (shared) import("./replay.js").then((viewer) => viewer.openSharedReplay(shared)).catch((err) => console.warn(err));
}

/** The start screen's button (markup only: static text, no user data). */
export function accountButtonHtml() {
  return `<button type="button" class="ghost" data-cmd="account" id="account-btn">${accountButtonInner(session.profile && !session.profile.email)}</button>`;
}

/** The button's contents: a warning sign while no e-mail is linked (the account can be lost). */
function accountButtonInner(noEmail) {
  const warn = `<span class="warn-sign" role="img" aria-label="${esc(t("acct.email.none"))}" title="${esc(t("acct.email.none"))}">${icon("warn")}</span>`;
  return `${icon("person")} ${esc(t("acct.open"))}${noEmail ? ` ${warn}` : ""}`;
}

/** Reload the profile and apply its equipment to the table. */
export async function refreshProfile() {
  const { status, data } = await api("GET", "/api/account");
  if (status !== 200) return null;
  session.profile = data;
  await applyEquipment();
  const button = document.getElementById("account-btn");
  if (button) button.innerHTML = accountButtonInner(!data.email);
  return data;
}

// --- the sheet ------------------------------------------------------------------------------

function sheet() {
  let el = document.getElementById("account-sheet");
  if (!el) {
    el = h("div", { id: "account-sheet", class: "overlay sheet", hidden: true, role: "dialog", "aria-modal": "true", "aria-labelledby": "acct-title" });
    document.body.append(el);
  }
  return el;
}

export async function openAccount(tab) {
  view.open = true;
  if (tab) view.tab = tab;
  view.note = "";
  view.error = "";
  await refreshProfile();
  await render();
  sheet().querySelector("[data-acct-close]")?.focus();
}

export function closeAccount() {
  view.open = false;
  sheet().hidden = true;
  sheet().replaceChildren();
  document.getElementById("account-btn")?.focus(); // back where the sheet was opened
}

/** Redraw the open sheet. */
export async function render() {
  const el = sheet();
  el.hidden = !view.open;
  if (!view.open) return;
  const tabs = ["profile", "shop", "history"].map((name) =>
    h(
      "button",
      {
        type: "button",
        class: `choice${view.tab === name ? " on" : ""}`,
        "aria-pressed": String(view.tab === name),
        dataset: { acctTab: name },
        on: { click: () => openTab(name) },
      },
      t(`acct.tab.${name}`),
    ),
  );
  let body;
  if (view.tab === "shop") body = await shopTab(say, refresh);
  else if (view.tab === "history") body = await historyTab(say);
  else body = profileTab();
  const panel = h(
    "div",
    { class: "panel acct", id: "account-panel" },
    h(
      "div",
      { class: "acct-head" },
      h("h2", { id: "acct-title" }, t("acct.title")),
      h("button", { type: "button", class: "ghost", dataset: { acctClose: "1" }, on: { click: closeAccount } }, iconNode("close"), ` ${t("acct.close")}`),
    ),
    h("div", { class: "acct-tabs", role: "group" }, tabs),
    h("p", { class: "acct-note", id: "acct-note", role: "status" }, view.note),
    h("p", { class: "acct-error", id: "acct-error", role: "alert" }, view.error),
    h("div", { class: "acct-body" }, body),
  );
  el.replaceChildren(panel);
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
  const nameInput = h("input", { id: "acct-name", maxlength: "24", value: p.name || "", autocomplete: "nickname", "aria-label": t("acct.profile.name") });
  const shown = h("strong", { id: "acct-name-shown" }, p.name || t("acct.profile.none"));
  const saveName = async () => {
    const { status, data } = await api("POST", "/api/account/name", { name: nameInput.value });
    if (status !== 200) return say("", errorText(data, status));
    session.profile = data;
    shown.textContent = data.name;
    say(t("acct.profile.saved"));
  };
  return [
    p.email ? null : h("p", { class: "acct-warn", id: "acct-warn" }, t("acct.warn.unsafe")),
    h(
      "section",
      {},
      h("h3", {}, t("acct.profile.name")),
      h("div", { class: "acct-row" }, shown),
      h(
        "div",
        { class: "acct-row" },
        nameInput,
        h("button", { type: "button", class: "choice", id: "acct-name-save", on: { click: saveName } }, t("acct.profile.save")),
      ),
    ),
    emailSection(p),
    recoverSection(),
    backupSection(),
  ];
}

function codeFlow({ prefix, sendPath, verifyPath, verifyLabel, done }) {
  const email = h("input", { id: `${prefix}-email`, type: "email", autocomplete: "email", maxlength: "254", placeholder: t("acct.email.placeholder"), "aria-label": t("acct.email.address") });
  const code = h("input", { id: `${prefix}-code`, inputmode: "numeric", autocomplete: "one-time-code", maxlength: "12", placeholder: t("acct.email.code"), "aria-label": t("acct.email.code") });
  const step2 = h(
    "div",
    { class: "acct-row", hidden: true },
    code,
    h("button", { type: "button", class: "choice", id: `${prefix}-verify`, on: { click: verify } }, verifyLabel),
  );
  async function send() {
    const { status, data } = await api("POST", sendPath, { email: email.value, lang: mailLang() });
    if (status !== 202) return say("", errorText(data, status));
    step2.hidden = false;
    say(t("acct.email.sent"));
    code.focus();
  }
  async function verify() {
    const { status, data } = await api("POST", verifyPath, { email: email.value, code: code.value });
    if (status !== 200) return say("", errorText(data, status));
    await done(data);
  }
  return [
    h(
      "div",
      { class: "acct-row" },
      email,
      h("button", { type: "button", class: "choice", id: `${prefix}-send`, on: { click: send } }, t("acct.email.send")),
    ),
    step2,
  ];
}

function emailSection(p) {
  return h(
    "section",
    {},
    h("h3", {}, t("acct.email.title")),
    h("p", { id: "acct-email-state" }, p.email ? t("acct.email.linked", { email: p.email }) : t("acct.email.none")),
    codeFlow({
      prefix: "link",
      sendPath: "/api/account/email",
      verifyPath: "/api/account/email/verify",
      verifyLabel: t("acct.email.verify"),
      done: async (profile) => {
        session.profile = profile;
        view.note = t("acct.email.done");
        await render();
      },
    }),
  );
}

function recoverSection() {
  return h(
    "section",
    {},
    h("h3", {}, t("acct.recover.title")),
    h("p", {}, t("acct.recover.help")),
    codeFlow({
      prefix: "recover",
      sendPath: "/api/account/recover",
      verifyPath: "/api/account/recover/verify",
      verifyLabel: t("acct.recover.verify"),
      done: async (answer) => {
        session.setToken(answer.token);
        await refreshProfile();
        await syncHistory();
        view.note = t("acct.recover.done");
        await render();
        onSwitch();
      },
    }),
  );
}

// --- backup ---------------------------------------------------------------------------------

function backupSection() {
  const file = h("input", { type: "file", id: "backup-file", accept: "application/json,.json", hidden: true });
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (chosen) await importBackup(await chosen.text());
    file.value = "";
  });
  return h(
    "section",
    {},
    h("h3", {}, t("acct.backup.title")),
    h(
      "div",
      { class: "acct-row" },
      h("button", { type: "button", class: "choice", id: "backup-export", on: { click: exportBackup } }, t("acct.backup.export")),
      h("button", { type: "button", class: "choice", id: "backup-import", on: { click: () => file.click() } }, t("acct.backup.import")),
      file,
    ),
  );
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
  const link = h("a", { href: URL.createObjectURL(blob), download: `sanma-backup-${new Date().toISOString().slice(0, 10)}.json` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
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
