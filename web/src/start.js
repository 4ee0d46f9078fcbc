// The start screen: the practice match's options (kept in this browser), Play, Resume a match
// left in play, and the doors to the account, the rules, the quick match, friend rooms and the
// settings.
import { accountButtonHtml } from "./account-core.js";
import { $, app } from "./app.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";
import { langSwitchHtml } from "./menu.js";
import { html, mount, tileHtml } from "./render/common.js";
import { quickButtonHtml } from "./quick.js";
import { roomsButtonHtml } from "./rooms.js";
import { guideHintHtml } from "./settings.js";

// Text laid out while the shipped CJK face ("Sanma CJK", web/assets/style.css) was still on its
// way kept Chromium's boxes after the face arrived (the start card's tagline, hint and chosen
// buttons, on a system with no Japanese font): Chromium keeps the fonts it chose per font
// description (size, weight, features), stale for the descriptions used before the load, so a
// layout again is not enough and a new description is. Each time a face finishes loading, the
// page gets one: a made-up feature no font has ("sanm", so nothing is drawn differently) with a
// new value.
let fontLoads = 0;
if (document.fonts) {
  document.fonts.onloadingdone = () => {
    fontLoads += 1;
    document.documentElement.style.fontFeatureSettings = `"kern" 1, "sanm" ${fontLoads}`;
  };
}

const OPTIONS_KEY = "sanma.options";
const DEFAULT_OPTIONS = { length: "east", red_fives: true, level: "normal", timer: false };

/** The practice match's options as last chosen (the defaults where none or damaged). */
export function loadOptions() {
  try {
    return { ...DEFAULT_OPTIONS, ...JSON.parse(localStorage.getItem(OPTIONS_KEY) || "{}") };
  } catch {
    return { ...DEFAULT_OPTIONS };
  }
}

/** One option chosen on the card (its button's `data-opt` and `data-value`), kept. */
export function setOption(name, value) {
  const o = loadOptions();
  o[name] = name === "red_fives" || name === "timer" ? value === "true" : value;
  localStorage.setItem(OPTIONS_KEY, JSON.stringify(o));
  renderStart();
}

function choiceGroup(name, values, current, labelKey) {
  const items = values
    .map((value) => {
      const on = String(current) === String(value);
      return html`<button type="button" class="choice${on ? " on" : ""}" role="radio" aria-checked="${on}" data-opt="${name}" data-value="${value}">${t(`${labelKey}.${value}`)}</button>`;
    });
  return html`<fieldset class="option"><legend>${t(`start.${name}`)}</legend><div class="choices" role="radiogroup">${items}</div></fieldset>`;
}

export function renderStart() {
  const o = loadOptions();
  const fan = ["1z", "0p", "7z", "9m", "5s"].map((x) => tileHtml(x));
  mount(
    $("start"),
    html`
    <div class="start-card">
      <div class="start-top">${accountButtonHtml()}<button type="button" class="ghost" data-cmd="rules">${icon("book")} ${t("rules.open")}</button><span class="lang-switch">${langSwitchHtml()}</span>
        <button type="button" class="ghost" data-cmd="settings" aria-label="${t("settings.title")}" title="${t("settings.title")}">${icon("settings")}</button></div>
      <div class="logo"><div class="fan">${fan}</div><h1>Sanma</h1><p class="tagline">${t("start.tagline")}</p></div>
      ${guideHintHtml()}
      <div class="options">
        ${choiceGroup("length", ["one-hand", "east", "east-south"], o.length, "length")}
        <div class="option-pair">
          ${choiceGroup("red_fives", ["true", "false"], String(o.red_fives), "onoff")}
          ${choiceGroup("timer", ["false", "true"], String(Boolean(o.timer)), "onoff")}
        </div>
        ${choiceGroup("level", ["beginner", "normal", "expert", "master"], o.level, "level")}
      </div>
      ${app.resumable ? html`<button class="primary resume" id="resume" data-cmd="resume">${icon("resume")} ${app.resumableRoom ? t("start.resume_room", { code: app.resumableRoom }) : t("start.resume")}</button>` : null}
      <button class="primary play${app.resumable ? " second" : ""}" id="play" data-cmd="play">${t("start.play")}</button>
      ${quickButtonHtml()}
      ${roomsButtonHtml()}
      <p class="hint">${t("start.hint")}</p>
      <p class="error" id="start-error" role="alert"></p>
    </div>`,
    true, // forced: a failed start's message and the Play button's state are reset
  );
}

/** Play pressed: the button waits for the server's answer. */
export function startAsked() {
  $("play").disabled = true;
}

/** The practice match could not be started: the card says so and Play works again. */
export function startFailed() {
  $("start-error").textContent = t("start.failed");
  $("play").disabled = false;
}
