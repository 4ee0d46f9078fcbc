// Coins and the shop (a tab of the account sheet): daily check-in, buy, equip.  The sheet
// passes in `say` (a note or an error under the tabs) and `refresh` (reload the profile and
// redraw the sheet), so this module needs nothing from account.js.
import { api, errorText, h, session } from "./account-core.js";
import { applyEquipment, patternCss } from "./cosmetics.js";
import { getLang, t } from "./i18n.js";

function swatch(item) {
  const [a, b, c] = item.colors;
  if (item.slot === "cloth") {
    return h("span", { class: "swatch cloth", "aria-hidden": "true", style: { background: `radial-gradient(ellipse at 50% 40%, ${a}, ${b} 55%, ${c})` } });
  }
  const pattern = patternCss(item.pattern, c);
  return h(
    "span",
    { class: "swatch", "aria-hidden": "true", style: { background: `linear-gradient(135deg, ${a}, ${b})`, boxShadow: `inset 0 0 0 3px ${c}77` } },
    pattern === "none" ? null : h("span", { style: { position: "absolute", inset: "12%", borderRadius: "5px", background: pattern } }),
  );
}

/** The tab's content; `say(note, error)` reports under the tabs, `refresh()` redraws it. */
export async function shopTab(say, refresh) {
  const p = session.profile;
  if (!p) return [];
  const { data } = await api("GET", "/api/shop");
  const items = data.items || [];
  session.shop = items;
  const checkin = p.checked_in_today
    ? h("p", { id: "checkin-state" }, t("acct.coins.done", { n: p.streak }))
    : h(
        "button",
        {
          type: "button",
          class: "primary",
          id: "checkin",
          on: {
            click: async () => {
              const { status, data: done } = await api("POST", "/api/account/checkin");
              if (status !== 200) return say("", errorText(done, status));
              await refresh();
              say(t(done.streak === 1 ? "acct.coins.granted_one" : "acct.coins.granted", { n: done.coins, s: done.streak }));
              document.querySelector("[data-acct-tab=shop]")?.focus();
            },
          },
        },
        t("acct.coins.checkin", { n: p.next_checkin_coins }),
      );
  const lang = getLang() === "en" ? "en" : "id";
  const grid = (slot) =>
    h(
      "div",
      { class: "shop-grid" },
      items
        .filter((i) => i.slot === slot)
        .map((item) => {
          const owned = p.owned.includes(item.id);
          const worn = p[slot] === item.id;
          const name = item.name[lang];
          // The button's words alone ("Buy · 150") do not say which item: the label does.
          const said = (text) => `${text}: ${name}`;
          let button;
          if (worn) button = h("button", { type: "button", class: "choice on", disabled: true, "aria-label": said(t("acct.shop.equipped")) }, t("acct.shop.equipped"));
          else if (owned) button = h("button", { type: "button", class: "choice", dataset: { equip: item.id }, "aria-label": said(t("acct.shop.equip")), on: { click: () => equip(slot, item.id, say, refresh) } }, t("acct.shop.equip"));
          else button = h("button", { type: "button", class: "choice", dataset: { buy: item.id }, disabled: p.coins < item.price, "aria-label": said(t("acct.shop.buy", { n: item.price })), on: { click: () => buy(item.id, say, refresh) } }, t("acct.shop.buy", { n: item.price }));
          return h(
            "div",
            { class: `shop-item${worn ? " on" : ""}`, dataset: { item: item.id } },
            swatch(item),
            h("strong", {}, name),
            h("small", {}, item.price ? t("acct.shop.price", { n: item.price }) : t("acct.shop.free")),
            button,
          );
        }),
    );
  return [
    h("section", {}, h("h3", { id: "coin-balance" }, t("acct.coins.balance", { n: p.coins })), checkin, h("p", { class: "acct-note" }, t("acct.coins.note"))),
    h("section", {}, h("h3", {}, t("acct.shop.tile_back")), grid("tile_back")),
    h("section", {}, h("h3", {}, t("acct.shop.cloth")), grid("cloth")),
  ];
}

async function buy(item, say, refresh) {
  const { status, data } = await api("POST", "/api/shop/buy", { item });
  if (status !== 200) return say("", errorText(data, status));
  await refresh();
  refocus(item); // the redraw replaced the pressed button: Equip is the next step
}

function refocus(item) {
  const next = document.querySelector(`[data-item="${item}"] button:not([disabled])`) || document.querySelector("[data-acct-tab=shop]");
  next?.focus();
}

async function equip(slot, item, say, refresh) {
  const { status, data } = await api("POST", "/api/account/equip", { slot, item });
  if (status !== 200) return say("", errorText(data, status));
  session.profile = data;
  await applyEquipment();
  await refresh({ profile: false });
  refocus(item);
}
