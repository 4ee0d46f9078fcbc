// The table's menu and the Rules sheet it opens (also from the start card and the settings),
// with the controls the menu shares with the top bar and the start card: the language switch
// and the auto-play toggles.
import { $, app } from "./app.js";
import { TOGGLES } from "./auto.js";
import { coachToggleHtml } from "./coach.js";
import { getLang, LANGS, t } from "./i18n.js";
import { icon } from "./icons.js";
import { html, join, mount } from "./render/common.js";
import { watching } from "./rooms.js";
import { stampsMuteHtml } from "./stamps.js";

// Each language's own name for itself, the same on every page (so not in the dictionaries): the
// switch shows the short code, where four names would not fit beside the other controls of a
// phone, and names the language in its title (hover) and for a screen reader.
const LANG_NAMES = { en: "English", id: "Bahasa Indonesia", ja: "日本語", ru: "Русский" };

/** The language switch (start card, table menu, rules, settings). */
export function langSwitchHtml() {
  return join(LANGS.map((code) => {
    const on = getLang() === code;
    return html`<button class="lang${on ? " on" : ""}" data-lang="${code}" aria-pressed="${on}" lang="${code}" title="${LANG_NAMES[code]}" aria-label="${LANG_NAMES[code]}">${code.toUpperCase()}</button>`;
  }));
}

/** The auto-play toggles, as the top bar's buttons or (`inMenu`) the menu's checkboxes. */
export function togglesHtml(inMenu = false) {
  return TOGGLES.map((name) => {
    const on = app.toggles[name];
    const cls = inMenu ? "menu-toggle" : "toggle";
    const role = inMenu ? html` role="menuitemcheckbox" aria-checked="${on}"` : html` aria-pressed="${on}"`;
    return html`<button type="button" class="${cls}${on ? " on" : ""}" data-toggle="${name}"${role}
      title="${t(`toggle.${name}.help`)}">${t(`toggle.${name}`)}</button>`;
  });
}

export function renderMenu() {
  const menu = $("menu");
  menu.hidden = !app.menuOpen;
  mount(
    menu,
    app.menuOpen
      ? html`<button type="button" data-cmd="rules" role="menuitem">${icon("book")} ${t("menu.rules")}</button>
      <button type="button" data-cmd="settings" role="menuitem">${icon("settings")} ${t("settings.title")}</button>
      ${coachToggleHtml()}${stampsMuteHtml()}
      <div class="menu-compact">${watching() ? null : togglesHtml(true)}<span class="lang-switch">${langSwitchHtml()}</span></div>
      <button type="button" data-cmd="leave" role="menuitem">${icon("leave")} ${t("menu.leave")}</button>`
      : html``,
  );
}

/** The menu opened, or closed when it was open (its button). */
export function toggleMenu() {
  app.menuOpen = !app.menuOpen;
  renderMenu();
}

/** The menu closed, as its button or a pick in it closes it. */
export function closeMenu() {
  app.menuOpen = false;
  renderMenu();
}

/** The menu closed by a pick that opens something else (only the table has a menu to redraw). */
export function menuPicked() {
  app.menuOpen = false;
  if (app.screen === "game") renderMenu();
}

// The Rules panel and its guide load on first open, not before the first table.
let rules = null;

export async function openRules() {
  menuPicked();
  app.rulesOpen = true;
  rules = rules || (await import("./rules.js"));
  await rules.loadRules();
  renderRules();
  $("sheet").querySelector("[data-cmd=close-rules]")?.focus();
}

export function renderRules() {
  const sheet = $("sheet");
  sheet.hidden = !app.rulesOpen;
  mount(sheet, app.rulesOpen && rules ? rules.rulesHtml(langSwitchHtml()) : html``, true);
}

export function closeRules() {
  app.rulesOpen = false;
  renderRules();
}
