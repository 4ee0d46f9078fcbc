// The interactive guide inside the Rules panel: worked examples, each a list of steps; pick a
// step (list, Previous / Next, or the arrow keys) and the tiles change with its caption.
// The examples live in src/guide/examples.json (both languages); tests/test_guide.py checks
// every tile and every claim there against the engine.
import { getLang, t } from "./i18n.js";
import { html, join, nodeOf, stackedHtml, tileHtml } from "./render/common.js";
import { doraOf } from "./render/table.js";

let data = null;
const at = { example: 0, step: 0 };

/** Fetch the examples once. */
export async function loadGuide() {
  if (!data) data = await fetch("src/guide/examples.json").then((r) => r.json());
}

/** "123p55z" -> ["1p", "2p", "3p", "5z", "5z"]. */
export function expand(mpsz) {
  const out = [];
  let digits = "";
  for (const c of mpsz || "") {
    if (c >= "0" && c <= "9") digits += c;
    else {
      for (const d of digits) out.push(d + c);
      digits = "";
    }
  }
  return out;
}

const kindOf = (tile) => (tile[0] === "0" ? `5${tile[1]}` : tile);

function text(pair) {
  return pair[getLang()] ?? pair.en;
}

/** A caption: "{5s}" becomes a small tile, the rest is text. */
function captionHtml(caption) {
  // split() with a group alternates text and the tiles' codes.
  return join(caption.split(/\{([0-9][mps]|[1-7]z)\}/).map((part, i) => (i % 2 ? tileHtml(part, "tiny inline") : part)));
}

function tilesHtml(tiles, marks, cls, extra = () => "") {
  return tiles.map((tile, i) => tileHtml(tile, `${cls}${marks.has(kindOf(tile)) ? " hl" : ""}${extra(i)}`));
}

/** A meld as the table shows it: the called tile sideways on the side of the player who
 * gave it; a closed kan with its two outer tiles face down. */
function guideMeldHtml(m) {
  const all = expand(m.tiles);
  // A kakan is drawn as its pon with the fourth tile lying on the sideways one.
  const tiles = m.type === "kakan" ? all.slice(0, 3) : all;
  const side = m.from === "right" ? tiles.length - 1 : 0;
  const shown = tiles.map((tile, i) => {
    if (m.type === "ankan") return tileHtml(i === 0 || i === 3 ? "?" : tile, "small");
    if (i === side && m.type === "kakan") return stackedHtml(all[3], tile);
    return tileHtml(tile, `small${i === side ? " sideways" : ""}`);
  });
  return html`<span class="meld meld-${m.type}">${shown}</span>`;
}

/** The indicators as the table shows them: each named as an indicator, then the dora it
 * points to (the step's data holds the indicators; the dora is the table's own rule). */
function doraRowHtml(indicators) {
  const label = t(indicators.length > 1 ? "label.dora_indicators" : "label.indicator");
  return html`<span class="g-label">${label}</span>
    <span class="g-indicators" role="group" aria-label="${label}" data-testid="guide-indicators">${tilesHtml(indicators, new Set(), "small indicator")}</span>
    <span class="g-arrow" aria-hidden="true">→</span><span class="g-label">${t("label.dora")}</span>
    <span class="g-doras" role="group" aria-label="${t("label.dora")}" data-testid="guide-dora">${tilesHtml(indicators.map(doraOf), new Set(), "small dora-tile")}</span>`;
}

function stageHtml(step) {
  const marks = new Set(expand(step.mark).map(kindOf));
  const river = expand(step.river);
  const called = new Set(step.called || []);
  const dora = expand(step.dora);
  const counters = [];
  if (step.left !== undefined) counters.push(html`${t("label.tiles_left")} <b>${step.left}</b>`);
  if (step.sticks) counters.push(html`${t("label.deposits")} <b>${step.sticks}</b>`);
  if (step.honba) counters.push(html`${t("label.honba")} <b>${step.honba}</b>`);
  const riverRow = river.length
    ? html`<div class="g-row"><span class="g-label">${t("guide.river")}</span><div class="g-river">${tilesHtml(river, marks, "small river-tile", (i) =>
        `${i === step.riichi_at ? " sideways" : ""}${called.has(i) ? " called" : ""}`)}</div></div>`
    : "";
  const offer = step.offer
    ? html`<div class="g-row g-offer"><span class="g-label">${t(`guide.offer.${step.offer_from || "left"}`)}</span>${tilesHtml([step.offer], marks, "small offered")}</div>`
    : "";
  const melds = (step.melds || []).map(guideMeldHtml);
  const kita = step.kita
    ? html`<span class="kita" aria-label="${t("aria.kita", { n: step.kita })}">${tileHtml("4z", "small")}<b>×${step.kita}</b></span>`
    : "";
  const drawn = step.drawn ? html`<span class="g-drawn">${tilesHtml([step.drawn], marks, "g-tile drawn")}</span>` : "";
  return html`<div class="g-stage">
      <div class="g-top">${doraRowHtml(dora)}
        <span class="g-counters">${counters.map((c, i) => (i ? html` · ${c}` : c))}</span></div>
      ${riverRow}${offer}
      <div class="g-hand" role="group" aria-label="${t("aria.hand")}">${tilesHtml(expand(step.hand), marks, "g-tile")}${drawn}
        <span class="g-melds">${melds}${kita}</span></div>
    </div>`;
}

/** The guide section of the Rules panel, at the current example and step. */
export function guideHtml() {
  if (!data) return html``;
  const ex = data.examples[at.example];
  const step = ex.steps[at.step];
  const n = ex.steps.length;
  const tabs = data.examples
    .map((e, i) => html`<button type="button" class="choice${i === at.example ? " on" : ""}" data-guide-ex="${i}" aria-pressed="${i === at.example}">${text(e.title)}</button>`);
  const steps = ex.steps
    .map((_, i) => html`<li><button type="button" class="g-step${i === at.step ? " on" : ""}" data-guide-step="${i}"
      aria-current="${i === at.step ? "step" : "false"}" aria-label="${t("guide.step", { n: i + 1, total: n })}">${i + 1}</button></li>`);
  return html`<section class="rules-section guide" id="rules-guide" data-testid="guide" aria-roledescription="${t("guide.title")}">
    <h3>${t("guide.title")}</h3>
    <p class="g-intro">${t("guide.intro")}</p>
    <div class="g-tabs" role="group" aria-label="${t("guide.title")}">${tabs}</div>
    <div class="g-body" data-example="${ex.id}" data-step="${at.step}">
      <h4>${text(ex.title)}</h4>
      ${stageHtml(step)}
      <p class="g-caption" aria-live="polite" data-testid="guide-caption">${captionHtml(text(step.caption))}</p>
      <nav class="g-nav" aria-label="${t("guide.steps")}">
        <button type="button" class="ghost" data-guide-go="-1" ${at.step === 0 ? "disabled" : ""}>← ${t("guide.prev")}</button>
        <ol class="g-steps">${steps}</ol>
        <button type="button" class="ghost" data-guide-go="1" ${at.step === n - 1 ? "disabled" : ""}>${t("guide.next")} →</button>
      </nav>
    </div>
  </section>`;
}

function rerender(focusSelector) {
  const el = document.getElementById("rules-guide");
  if (!el) return;
  el.replaceWith(nodeOf(guideHtml()));
  if (focusSelector) document.querySelector(`#rules-guide ${focusSelector}`)?.focus();
}

function go(step) {
  const n = data.examples[at.example].steps.length;
  at.step = Math.max(0, Math.min(n - 1, step));
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest?.("#rules-guide button");
  if (!el || !data) return;
  if (el.dataset.guideEx !== undefined) {
    at.example = Number(el.dataset.guideEx);
    at.step = 0;
    rerender(`[data-guide-ex="${at.example}"]`);
  } else if (el.dataset.guideStep !== undefined) {
    go(Number(el.dataset.guideStep));
    rerender(`[data-guide-step="${at.step}"]`);
  } else if (el.dataset.guideGo !== undefined) {
    go(at.step + Number(el.dataset.guideGo));
    const sel = `[data-guide-go="${el.dataset.guideGo}"]`;
    rerender(document.querySelector(`#rules-guide ${sel}`) ? sel : null);
    const again = document.querySelector(`#rules-guide ${sel}`);
    if (again?.disabled) document.querySelector(`#rules-guide [data-guide-step="${at.step}"]`)?.focus();
    else again?.focus();
  }
});

// Left / Right step through the example while the focus is inside the guide.
document.addEventListener("keydown", (ev) => {
  if (!data || !document.activeElement?.closest?.("#rules-guide")) return;
  if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
  go(at.step + (ev.key === "ArrowLeft" ? -1 : 1));
  rerender(`[data-guide-step="${at.step}"]`);
  ev.preventDefault();
});
