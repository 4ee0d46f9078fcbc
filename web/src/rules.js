// The rules, readable at any time (start screen and table menu), in our own words:
// web/src/rules/{en,id}.json, loaded on first use.
import { getLang, has, t } from "./i18n.js";
import { guideHtml, loadGuide } from "./guide.js";
import { esc } from "./render/common.js";
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

/** Both languages' rules (fetched once). */
export async function loadRules() {
  for (const code of ["en", "id"]) {
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
      return `<tr><th><span class="romaji">${esc(romaji)}</span>${local ? `<small>${esc(local)}</small>` : ""}</th>
        <td class="han">${esc(c)}</td><td class="han">${esc(o)}</td><td>${esc(text)}</td></tr>`;
    })
    .join("");
  return `<table class="yaku-table"><thead><tr><th>${esc(name)}</th><th>${esc(closed)}</th><th>${esc(open)}</th><th>${esc(what)}</th></tr></thead><tbody>${body}</tbody></table>`;
}

function sectionHtml(rules, s) {
  const text = (s.text || []).map((p) => `<p>${esc(p)}</p>`).join("");
  const yaku = s.yaku ? yakuTable(rules, s.yaku) : "";
  const qa = (s.qa || []).map(([q, a]) => `<details class="qa"><summary>${esc(q)}</summary><p>${esc(a)}</p></details>`).join("");
  return `<section class="rules-section" id="rules-${s.id}"><h3>${esc(s.title)}</h3>${text}${yaku}${qa}</section>`;
}

/** The rules panel in the current language (`langSwitch` is the switch's markup). */
export function rulesHtml(langSwitch) {
  const rules = cache[getLang()] || cache.en;
  if (!rules) return `<div class="panel rules" data-testid="rules">…</div>`;
  const guide = `<button type="button" class="choice guide-go" data-rules-go="guide">${icon("play")} ${esc(t("guide.title"))}</button>`;
  const nav = guide + rules.sections.map((s) => `<button type="button" class="choice" data-rules-go="${s.id}">${esc(s.title)}</button>`).join("");
  return `<div class="panel rules" data-testid="rules" role="dialog" aria-modal="true" aria-label="${esc(rules.title)}">
    <header class="rules-head"><h2>${esc(rules.title)}</h2><span class="lang-switch">${langSwitch}</span>
      <button type="button" class="ghost" data-cmd="close-rules" aria-label="${esc(t("rules.close"))}">${icon("close")} ${esc(t("rules.close"))}</button></header>
    <nav class="rules-nav">${nav}</nav>
    <div class="rules-body">${guideHtml()}${rules.sections.map((s) => sectionHtml(rules, s)).join("")}</div></div>`;
}
