// The rules, readable at any time (start screen and table menu), in our own words:
// web/src/rules/{en,id,ja,ru}.json, loaded on first use.
import { getLang, has, LANGS, t } from "./i18n.js";
import { guideHtml, loadGuide } from "./guide.js";
import { html } from "./render/common.js";
import { icon } from "./icons.js";

const cache = {};

// The Japanese name where the id is an English phrase or a shortened one.
const ROMAJI = {
  seat_wind: "jikaze",
  round_wind: "bakaze",
  menzen_tsumo: "menzen tsumo",
  double_riichi: "daburu riichi",
  kokushi: "kokushi musou",
  chuuren: "chuuren poutou",
  rinshan: "rinshan kaihou",
  haitei: "haitei raoyue",
  houtei: "houtei raoyui",
  chanta: "honchantaiyaochuu",
  junchan: "junchan taiyaochuu",
  ittsu: "ikkitsuukan",
};

/** Every language's rules (fetched once). */
export async function loadRules() {
  for (const code of LANGS) {
    if (!cache[code]) cache[code] = await fetch(`src/rules/${code}.json`).then((r) => r.json());
  }
  await loadGuide();
}

function yakuTable(rules, rows) {
  const [name, closed, open, what] = rules.yaku_head;
  const body = rows
    .map(([id, c, o, text]) => {
      const local = has(`yaku.${id}`) ? t(`yaku.${id}`) : "";
      const romaji = ROMAJI[id] || id.replace(/_/g, " ");
      // The name a player of the page's language reads first: the kanji in Japanese (the romaji
      // under it), the romaji elsewhere (the translation under it).
      const name = getLang() === "ja" && local
        ? html`<span class="yaku-name">${local}</span><small class="romaji">${romaji}</small>`
        : html`<span class="romaji">${romaji}</span>${local ? html`<small>${local}</small>` : ""}`;
      return html`<tr><th>${name}</th>
        <td class="han">${c}</td><td class="han">${o}</td><td>${text}</td></tr>`;
    });
  return html`<table class="yaku-table"><thead><tr><th>${name}</th><th>${closed}</th><th>${open}</th><th>${what}</th></tr></thead><tbody>${body}</tbody></table>`;
}

function sectionHtml(rules, s) {
  const text = (s.text || []).map((p) => html`<p>${p}</p>`);
  const yaku = s.yaku ? yakuTable(rules, s.yaku) : "";
  const qa = (s.qa || []).map(([q, a]) => html`<details class="qa"><summary>${q}</summary><p>${a}</p></details>`);
  return html`<section class="rules-section" id="rules-${s.id}"><h3>${s.title}</h3>${text}${yaku}${qa}</section>`;
}

/** The rules panel in the current language (`langSwitch` is the switch's markup). */
export function rulesHtml(langSwitch) {
  const rules = cache[getLang()] || cache.en;
  if (!rules) return html`<div class="panel rules" data-testid="rules">…</div>`;
  const guide = html`<button type="button" class="choice guide-go" data-rules-go="guide">${icon("play")} ${t("guide.title")}</button>`;
  const nav = [guide, ...rules.sections.map((s) => html`<button type="button" class="choice" data-rules-go="${s.id}">${s.title}</button>`)];
  return html`<div class="panel rules" data-testid="rules" role="dialog" aria-modal="true" aria-label="${rules.title}">
    <header class="rules-head"><h2>${rules.title}</h2><span class="lang-switch">${langSwitch}</span>
      <button type="button" class="ghost" data-cmd="close-rules" aria-label="${t("rules.close")}">${icon("close")} <span>${t("rules.close")}</span></button></header>
    <nav class="rules-nav">${nav}</nav>
    <div class="rules-body">${guideHtml()}${rules.sections.map((s) => sectionHtml(rules, s))}</div></div>`;
}
