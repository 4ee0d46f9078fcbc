// What the account pages share: the session (the token through api.js, the profile, the shop's
// catalogue), API calls with the session's token, and a DOM builder that puts every string in
// with textContent (names come from other players: never parsed as HTML).  Texts are the
// client's one dictionary (i18n.js, keys "acct.*").
import { request, saveToken, storedToken } from "./api.js";
import { getLang, t } from "./i18n.js";

export const session = {
  getToken: storedToken,
  setToken: saveToken,
  profile: null,
  shop: null,
};

/** One API call with the session's token; resolves to {status, data} (api.js `request`). */
export function api(method, path, body, options = {}) {
  return request(method, path, { token: session.getToken(), body, ...options });
}

/** Element `tag` with attributes/properties and children (strings become text nodes). */
export function h(tag, props = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "on") for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn);
    else if (key === "style") Object.assign(el.style, value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
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

/** The browser's language for mail ("en" or "id"). */
export function mailLang() {
  return getLang() === "en" ? "en" : "id";
}
