// Coins and the shop (a tab of the account sheet): daily check-in, buy, equip.  The sheet
// passes in `say` (a note or an error under the tabs) and `refresh` (reload the profile and
// redraw the sheet), so this module needs nothing from account.js.
import { api, errorText, session } from "./account-core.js";
import { applyEquipment, patternCss } from "./cosmetics.js";
import { getLang, t } from "./i18n.js";
import { html } from "./render/common.js";

// A swatch's colours are set through the CSSOM once it is in the page (dressSwatches): the
// content security policy refuses style attributes in markup.
function swatch(item) {
  const inner = item.slot !== "cloth" && patternCss(item.pattern, item.colors[2]) !== "none" ? html`<span class="swatch-pattern"></span>` : null;
  return html`<span class="swatch${item.slot === "cloth" ? " cloth" : ""}" aria-hidden="true" data-swatch="${item.id}">${inner}</span>`;
}

/** Paint the swatches under `root` in their items' colours (the catalogue shopTab loaded). */
export function dressSwatches(root) {
  const items = new Map((session.shop || []).map((item) => [item.id, item]));
  for (const el of root.querySelectorAll("[data-swatch]")) {
    const item = items.get(el.dataset.swatch);
    if (!item) continue;
    const [a, b, c] = item.colors;
    if (item.slot === "cloth") {
      el.style.background = `radial-gradient(ellipse at 50% 40%, ${a}, ${b} 55%, ${c})`;
      continue;
    }
    Object.assign(el.style, { background: `linear-gradient(135deg, ${a}, ${b})`, boxShadow: `inset 0 0 0 3px ${c}77` });
    const pattern = el.querySelector(".swatch-pattern");
    if (pattern) Object.assign(pattern.style, { position: "absolute", inset: "12%", borderRadius: "5px", background: patternCss(item.pattern, c) });
  }
}

function itemButton(item, p, name) {
  // The button's words alone ("Buy · 150") do not say which item: the label does.
  const said = (text) => `${text}: ${name}`;
  if (p[item.slot] === item.id) return html`<button type="button" class="choice on" disabled aria-label="${said(t("acct.shop.equipped"))}">${t("acct.shop.equipped")}</button>`;
  if (p.owned.includes(item.id)) return html`<button type="button" class="choice" data-act="shop-equip" data-slot="${item.slot}" data-equip="${item.id}" aria-label="${said(t("acct.shop.equip"))}">${t("acct.shop.equip")}</button>`;
  const buy = t("acct.shop.buy", { n: item.price });
  return html`<button type="button" class="choice" data-act="shop-buy" data-buy="${item.id}"${p.coins < item.price ? html` disabled` : null} aria-label="${said(buy)}">${buy}</button>`;
}

/** An item's name in the page's language; English where the catalogue has none in it. */
function nameOf(item) {
  return item.name[getLang()] || item.name.en;
}

function grid(items, slot, p) {
  const cells = items
    .filter((i) => i.slot === slot)
    .map((item) => {
      const name = nameOf(item);
      const price = item.price ? t("acct.shop.price", { n: item.price }) : t("acct.shop.free");
      return html`<div class="shop-item${p[slot] === item.id ? " on" : ""}" data-item="${item.id}">${swatch(item)}<strong>${name}</strong><small>${price}</small>${itemButton(item, p, name)}</div>`;
    });
  return html`<div class="shop-grid">${cells}</div>`;
}

/** The tab's content. */
export async function shopTab() {
  const p = session.profile;
  if (!p) return html``;
  const { data } = await api("GET", "/api/shop");
  const items = data.items || [];
  session.shop = items;
  const checkin = p.checked_in_today
    ? html`<p id="checkin-state">${t("acct.coins.done", { n: p.streak })}</p>`
    : html`<button type="button" class="primary" id="checkin" data-act="shop-checkin">${t("acct.coins.checkin", { n: p.next_checkin_coins })}</button>`;
  return html`<section><h3 id="coin-balance">${t("acct.coins.balance", { n: p.coins })}</h3>${checkin}<p class="acct-note">${t("acct.coins.note")}</p></section><section><h3>${t("acct.shop.tile_back")}</h3>${grid(items, "tile_back", p)}</section><section><h3>${t("acct.shop.cloth")}</h3>${grid(items, "cloth", p)}</section>`;
}

/** What the tab's buttons do (the account sheet delegates its events here): `say(note, error)`
 * reports under the tabs, `refresh()` reloads the profile and redraws the sheet. */
export function shopActions(say, refresh) {
  return {
    "shop-checkin": (el, ev) => ev.type === "click" && checkin(say, refresh),
    "shop-buy": (el, ev) => ev.type === "click" && buy(el.dataset.buy, say, refresh),
    "shop-equip": (el, ev) => ev.type === "click" && equip(el.dataset.slot, el.dataset.equip, say, refresh),
  };
}

async function checkin(say, refresh) {
  const { status, data: done } = await api("POST", "/api/account/checkin");
  if (status !== 200) return say("", errorText(done, status));
  await refresh();
  say(t(done.streak === 1 ? "acct.coins.granted_one" : "acct.coins.granted", { n: done.coins, s: done.streak }));
  document.querySelector("[data-acct-tab=shop]")?.focus();
}

async function buy(item, say, refresh) {
  say(""); // an earlier note (the check-in's coins) is not this purchase's answer
  const { status, data } = await api("POST", "/api/shop/buy", { item });
  if (status !== 200) return say("", errorText(data, status));
  await refresh();
  say(t("acct.shop.bought", { item: itemName(item), n: session.profile?.coins ?? 0 }));
  refocus(item); // the redraw replaced the pressed button: Equip is the next step
}

/** The name of the item with `id` in the language shown. */
function itemName(id) {
  const item = (session.shop || []).find((i) => i.id === id);
  return item ? nameOf(item) : id;
}

function refocus(item) {
  const next = document.querySelector(`[data-item="${item}"] button:not([disabled])`) || document.querySelector("[data-acct-tab=shop]");
  next?.focus();
}

async function equip(slot, item, say, refresh) {
  say("");
  const { status, data } = await api("POST", "/api/account/equip", { slot, item });
  if (status !== 200) return say("", errorText(data, status));
  session.profile = data;
  await applyEquipment();
  await refresh({ profile: false });
  say(t("acct.shop.now_equipped", { item: itemName(item) }));
  refocus(item);
}
