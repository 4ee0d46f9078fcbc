// Texts in Indonesian and English; the choice is kept in localStorage.
import { tileNameParts } from "./render/tiles.js";

const dicts = {};
let lang = "id";

/** Load both dictionaries; pick the remembered language (else the browser's, else id). */
export async function loadI18n() {
  const [en, id] = await Promise.all(
    ["en", "id"].map((code) => fetch(`src/i18n/${code}.json`).then((r) => r.json())),
  );
  dicts.en = en;
  dicts.id = id;
  const saved = localStorage.getItem("sanma.lang");
  lang = saved === "en" || saved === "id" ? saved : (navigator.language || "").startsWith("en") ? "en" : "id";
  document.documentElement.lang = lang;
}

export function getLang() {
  return lang;
}

export function setLang(code) {
  lang = code;
  localStorage.setItem("sanma.lang", code);
  document.documentElement.lang = code;
}

/** The text for `key` with {name} placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = dicts[lang]?.[key] ?? dicts.en?.[key] ?? key;
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
