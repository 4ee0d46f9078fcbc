// The settings panel: everything the player sets for this browser in one place, reachable
// from the start screen and the table's menu - the language, sound (on/off and a volume
// slider), the animations' speed apart from the bots' pace, and the step-by-step guide.
// Each value lives with the module that uses it (i18n.js, sound.js, motion.js; the bots'
// pace with game.js, which sends it to the match); this module only shows and sets them.
// Also the first-visit pointer to the guide on the start screen, until dismissed or followed.
import { t } from "./i18n.js";
import { html, mount, nodeOf } from "./render/common.js";
import { icon } from "./icons.js";
import { langSwitchHtml } from "./menu.js";
import { MOTION_SPEEDS, motionSpeed, setMotionSpeed } from "./motion.js";
import { getVolume, isMuted, setMuted, setVolume } from "./sound.js";
import { SPEEDS as BOT_SPEEDS } from "./app.js";

const GUIDE_HINT_KEY = "sanma.guide_hint";

// What main.js lends: the bots' pace and its setter (game.js), whether the pace is the room's,
// and a redraw of the screen behind (the top bar's sound button, the start card).
let hooks = { botSpeed: () => "normal", setBotSpeed: () => {}, roomPace: () => false, changed: () => {} };
let open = false;
let opener = null; // the element focused before opening: it gets the focus back

export function initSettings(given) {
  hooks = { ...hooks, ...given };
}

export function settingsOpen() {
  return open;
}

function sheet() {
  let el = document.getElementById("settings-sheet");
  if (!el) {
    el = nodeOf(html`<div id="settings-sheet" class="overlay sheet" hidden></div>`);
    document.getElementById("app").appendChild(el);
  }
  return el;
}

function choices(name, values, current, label) {
  const items = values.map((value) => {
    const on = String(current) === String(value);
    return html`<button type="button" class="choice${on ? " on" : ""}" role="radio" aria-checked="${on}" data-setting="${name}" data-value="${value}">${label(value)}</button>`;
  });
  return html`<div class="choices" role="radiogroup" aria-labelledby="set-${name}">${items}</div>`;
}

function row(name, title, body, help = "") {
  return html`<div class="set-row" data-row="${name}"><span class="set-label" id="set-${name}">${title}</span>
    <div class="set-body">${body}${help ? html`<small class="set-help">${help}</small>` : ""}</div></div>`;
}

function panelHtml() {
  const lang = langSwitchHtml();
  const volume = getVolume();
  const slider = html`<div class="set-volume"><input type="range" id="set-volume" min="0" max="100" step="5" value="${volume}"
      aria-labelledby="set-volume-label" aria-valuetext="${volume}%" data-testid="volume"><output for="set-volume" data-testid="volume-value">${volume}%</output></div>`;
  const bots = hooks.roomPace()
    ? html`<p class="set-help">${t("settings.bots.room")}</p>`
    : choices("bots", BOT_SPEEDS, hooks.botSpeed(), (v) => t(`speed.${v}`));
  return html`<div class="panel settings" role="dialog" aria-modal="true" aria-labelledby="settings-title" data-testid="settings">
    <header class="settings-head"><h2 id="settings-title">${t("settings.title")}</h2>
      <button type="button" class="ghost" data-settings-close aria-label="${t("settings.close")}">${icon("close")} ${t("settings.close")}</button></header>
    ${row("lang", t("settings.language"), html`<span class="lang-switch">${lang}</span>`)}
    ${row("sound", t("settings.sound"), choices("sound", ["true", "false"], String(!isMuted()), (v) => t(`onoff.${v}`)))}
    <div class="set-row" data-row="volume"><span class="set-label" id="set-volume-label">${t("settings.volume")}</span><div class="set-body">${slider}</div></div>
    ${row("motion", t("settings.motion"), choices("motion", MOTION_SPEEDS, motionSpeed(), (v) => t(`settings.motion.${v}`)), t("settings.motion.help"))}
    ${row("bots", t("speed.label"), bots, hooks.roomPace() ? "" : t("settings.bots.help"))}
    ${row("guide", t("settings.guide_label"), html`<button type="button" class="ghost" data-cmd="rules">${icon("book")} ${t("settings.guide")}</button>`)}
  </div>`;
}

export function renderSettings() {
  const el = sheet();
  el.hidden = !open;
  mount(el, open ? panelHtml() : html``, true);
}

/** Open the panel; the focus goes to its first control and comes back on close. */
export function openSettings() {
  opener = document.activeElement;
  open = true;
  renderSettings();
  sheet().querySelector("[data-settings-close]")?.focus();
}

export function closeSettings() {
  if (!open) return;
  open = false;
  renderSettings();
  // The opener, or its successor when the screen was redrawn meanwhile (a new language).
  const back = opener?.isConnected ? opener : document.querySelector("#start:not([hidden]) [data-cmd=settings]") || document.getElementById("menu-btn");
  back?.focus();
  opener = null;
}

function choose(name, value) {
  if (name === "sound") setMuted(value !== "true");
  else if (name === "motion") setMotionSpeed(value);
  else if (name === "bots") hooks.setBotSpeed(value);
  hooks.changed();
  renderSettings();
  sheet().querySelector(`[data-setting="${name}"][data-value="${value}"]`)?.focus();
}

// -- the first-visit pointer to the guide ------------------------------------------------------

/** The start screen's pointer to the guide, until the player dismisses it or opens the rules. */
export function guideHintHtml() {
  if (localStorage.getItem(GUIDE_HINT_KEY) === "done") return null;
  return html`<div class="guide-hint" role="note" data-testid="guide-hint"><span>${t("hint.guide.text")}</span>
    <button type="button" class="primary small" data-cmd="rules" data-guide-hint="open">${icon("book")} ${t("hint.guide.open")}</button>
    <button type="button" class="ghost" data-guide-hint="dismiss" aria-label="${t("hint.guide.dismiss")}" title="${t("hint.guide.dismiss")}">${icon("close")}</button></div>`;
}

function guideFound() {
  localStorage.setItem(GUIDE_HINT_KEY, "done");
  document.querySelector("[data-testid=guide-hint]")?.remove();
}

// -- events (registered when the module loads, before input.js's own: see keydown) ----------

document.addEventListener("click", (ev) => {
  if (open && ev.target.id === "settings-sheet") {
    closeSettings(); // a click beside the panel
    return;
  }
  const el = ev.target.closest?.("button");
  if (!el) return;
  if (el.dataset.cmd === "rules") {
    guideFound(); // the rules open on the guide: the pointer has done its job
    closeSettings();
  } else if (el.dataset.guideHint === "dismiss") {
    guideFound();
    document.querySelector("#start [data-cmd=rules]")?.focus();
  } else if (!open || !el.closest("#settings-sheet")) {
    return;
  } else if (el.dataset.settingsClose !== undefined) closeSettings();
  else if (el.dataset.setting) choose(el.dataset.setting, el.dataset.value);
  else if (el.dataset.lang) {
    // input.js switches the language (and redraws its screens) after this listener.
    setTimeout(() => {
      renderSettings();
      sheet().querySelector(`[data-lang="${el.dataset.lang}"]`)?.focus();
    });
  }
});

document.addEventListener("input", (ev) => {
  if (ev.target.id !== "set-volume") return;
  const n = Number(ev.target.value);
  setVolume(n);
  if (n > 0 && isMuted()) setMuted(false); // raising the volume means sound on
  ev.target.setAttribute("aria-valuetext", `${n}%`);
  const shown = sheet().querySelector("[data-testid=volume-value]");
  if (shown) shown.textContent = `${n}%`;
  const on = !isMuted();
  for (const b of sheet().querySelectorAll("[data-setting=sound]")) {
    const pressed = b.dataset.value === String(on);
    b.classList.toggle("on", pressed);
    b.setAttribute("aria-checked", String(pressed));
  }
  hooks.changed();
});

// While the panel is open its keys are its own: Escape closes it, and no key reaches the
// table's shortcuts (input.js listens after this module, so stopping here is enough).
document.addEventListener("keydown", (ev) => {
  if (!open) return;
  if (ev.key === "Escape") closeSettings();
  ev.stopImmediatePropagation();
});
