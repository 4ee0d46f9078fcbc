// Texts in every language the client has (web/src/i18n/<code>.json, one per code in LANGS);
// the choice is kept in localStorage, and until one is made the browser's list of languages
// decides.
import { tileNameParts } from "./render/tiles.js";

/** The client's languages: a new one is its dictionary file, its rules text and its code here
 * and in LOCALES. English is the fallback for a browser that asks for none of them. */
export const LANGS = ["en", "id", "ja", "ru"];
const FALLBACK = "en";

/** How each language writes numbers and dates (BCP 47 tags for Intl and toLocaleString):
 * English groups numbers the US way (35,000) but dates the British way (3 Dec 2026). */
const LOCALES = {
  en: { number: "en-US", date: "en-GB" },
  id: { number: "id-ID", date: "id-ID" },
  ja: { number: "ja-JP", date: "ja-JP" },
  ru: { number: "ru-RU", date: "ru-RU" },
};
const LANG_KEY = "sanma.lang";

const dicts = {};
let lang = FALLBACK;

/** The first of the browser's languages (`navigator.languages`, in its order of preference)
 * that the client has, by primary subtag ("id-ID" -> "id"); English when none is. */
export function browserLang(prefs = navigator.languages?.length ? navigator.languages : [navigator.language || ""]) {
  for (const tag of prefs) {
    const code = String(tag || "").toLowerCase().split(/[-_]/)[0];
    if (LANGS.includes(code)) return code;
  }
  return FALLBACK;
}

/** Load every dictionary; pick the remembered language, else the browser's. */
export async function loadI18n() {
  const loaded = await Promise.all(LANGS.map((code) => fetch(`src/i18n/${code}.json`).then((r) => r.json())));
  LANGS.forEach((code, i) => (dicts[code] = loaded[i]));
  const saved = localStorage.getItem(LANG_KEY);
  lang = LANGS.includes(saved) ? saved : browserLang();
  document.documentElement.lang = lang;
}

export function getLang() {
  return lang;
}

/** The page's language's locale tag for `kind` ("number" or "date"). */
export function localeOf(kind) {
  return LOCALES[lang][kind];
}

/** Switch to `code` (one of LANGS) and remember it; any other code is ignored. */
export function setLang(code) {
  if (!LANGS.includes(code)) return;
  lang = code;
  localStorage.setItem(LANG_KEY, code);
  document.documentElement.lang = code;
}

/** The text for `key` with {name} placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = dicts[lang]?.[key] ?? dicts[FALLBACK]?.[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

export function has(key) {
  return key in (dicts[lang] || {});
}

/** A tile's spoken name, e.g. "5 of circles, red". */
export function tileName(tile) {
  const { key, n, red } = tileNameParts(tile);
  const name = t(key, { n });
  return red ? `${name}, ${t("tile.red")}` : name;
}

/** A rank code of the quick match's ladder (docs/ranks.md: "6k".."1k" kyu, then "1d".."10d"
 * dan) in the page's language: "2 kyu", "初段", "3 дан". The one formatter of rank codes: the
 * start card, the table's name plates, the leaderboard and the history all name ranks here. */
export function rankName(code) {
  return /^(10|[1-9])[kd]$/.test(String(code)) ? t(`rank.${code}`) : String(code ?? "");
}
