// What the account pages share: the session (the token through api.js, the profile, the shop's
// catalogue) and API calls with the session's token.  Their markup is the client's one
// builder (`html` in render/common.js: names from other players are escaped there); texts are
// the client's one dictionary (i18n.js, keys "acct.*").
import { request, saveToken, sessionToken } from "./api.js";
import { getLang, t } from "./i18n.js";
import { icon } from "./icons.js";
import { html } from "./render/common.js";

export const session = {
  getToken: sessionToken,
  setToken: saveToken,
  profile: null,
  shop: null,
};

/** One API call with the session's token; resolves to {status, data} (api.js `request`). */
export function api(method, path, body, options = {}) {
  return request(method, path, { token: session.getToken(), body, ...options });
}

// Refusals whose server detail says more than our words (which hand of a log, what in it).
const WITH_DETAIL = new Set(["bad_log", "not_json"]);

/** A refusal's message for the user. */
export function errorText(data, status) {
  const code = data?.error || String(status);
  const key = `acct.error.${code}`;
  const text = t(key) === key ? t("acct.error", { code }) : t(key);
  return WITH_DETAIL.has(code) && data.detail ? `${text} (${data.detail})` : text;
}

/** The start screen's button that opens the account sheet (markup only: static text, no
 * user data).  Here, with the first table's modules, not in account.js, which loads later. */
export function accountButtonHtml() {
  return html`<button type="button" class="ghost" data-cmd="account" id="account-btn">${accountButtonInner(session.profile && !session.profile.email)}</button>`;
}

/** The button's contents: a warning sign while no e-mail is linked (the account can be lost). */
export function accountButtonInner(noEmail) {
  const warn = html` <span class="warn-sign" role="img" aria-label="${t("acct.email.none")}" title="${t("acct.email.none")}">${icon("warn")}</span>`;
  return html`${icon("person")} ${t("acct.open")}${noEmail ? warn : null}`;
}

/** The language of the server's mail: the page's when the server writes mail in it
 * (sanma/server/mail.py has texts in all four of the client's languages), else English. */
const MAIL_LANGS = ["en", "id", "ja", "ru"];
export function mailLang() {
  return MAIL_LANGS.includes(getLang()) ? getLang() : "en";
}
