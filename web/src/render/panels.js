// The hand-end and match-end panels, built from the events alone.
import { t, has } from "../i18n.js";
import { sortTiles } from "../state.js";
import { esc, meldHtml, points, signed, tileHtml } from "./common.js";
import { seatName } from "./table.js";

function yakuName(name) {
  return has(`yaku.${name}`) ? t(`yaku.${name}`) : name.replace(/_/g, " ");
}

function changesHtml(hand, deltas, me) {
  const rows = [0, 1, 2]
    .map((s) => {
      const d = deltas ? deltas[s] : 0;
      const cls = d > 0 ? "up" : d < 0 ? "down" : "";
      return `<tr class="${s === me ? "me" : ""}"><th>${esc(seatName(s, me))}</th>
        <td class="delta ${cls}">${d ? signed(d) : "±0"}</td><td>${points(hand.scores[s])}</td></tr>`;
    })
    .join("");
  return `<table class="changes"><thead><tr><th></th><th>${esc(t("end.change"))}</th><th>${esc(t("end.score"))}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** One fu item: `reason` is "base", "tsumo", "closed_triplet 9m", "pair 6z", "wait tanki", ... */
function fuItemHtml([reason, fu]) {
  const [key, arg] = reason.split(" ");
  let label;
  let tile = "";
  if (key === "wait") label = has(`fu.wait.${arg}`) ? t(`fu.wait.${arg}`) : `${t("fu.wait")} ${arg}`;
  else {
    label = has(`fu.${key}`) ? t(`fu.${key}`) : key.replace(/_/g, " ");
    if (arg) tile = tileHtml(arg, "tiny");
  }
  return `<li data-fu="${fu}"><span>${esc(label)}${tile}</span><b>${fu > 0 ? "+" : ""}${fu}</b></li>`;
}

function fuHtml(s) {
  const items = s.fu_breakdown || [];
  if (!items.length) return "";
  return `<div class="fu-box" data-testid="fu-breakdown"><h3>${esc(t("fu.title"))}</h3><ul class="fu">${items.map(fuItemHtml).join("")}
    <li class="fu-total"><span>${esc(t("fu.total"))}</span><b data-testid="fu-total">${s.fu}</b></li></ul></div>`;
}

function winHtml(e, hand, me) {
  const s = e.score;
  const tsumo = e.seat === e.from_seat;
  const title = tsumo ? t("end.tsumo_by", { name: seatName(e.seat, me) }) : t("end.ron_by", { name: seatName(e.seat, me), from: seatName(e.from_seat, me) });
  const tiles = sortTiles(e.hand).map((x) => tileHtml(x)).join("");
  const melds = e.melds.map((m) => meldHtml(m, e.seat)).join("");
  const yaku = s.yaku
    .map(([name, han]) => `<li><span>${esc(yakuName(name))}</span><b>${s.yakuman ? esc(t("end.yakuman")) : esc(t("end.han_n", { n: han }))}</b></li>`)
    .join("");
  const limit = s.limit && s.limit !== "none" ? `<span class="limit">${esc(t(`limit.${s.limit}`))}</span>` : "";
  const value = s.yakuman ? esc(t("end.yakuman_x", { n: s.yakuman })) : esc(t("end.han_fu", { han: s.han, fu: s.fu }));
  const pay = s.payments || {};
  const payText = tsumo
    ? t("end.pay_tsumo", { dealer: points(pay.dealer || 0), other: points(pay.non_dealer || 0) })
    : t("end.pay_ron", { n: points(pay.ron || 0) });
  const ura = e.ura_indicators.length ? `<div class="ind"><span class="label">${esc(t("label.ura"))}</span>${e.ura_indicators.map((x) => tileHtml(x, "small")).join("")}</div>` : "";
  return `
    <h2 class="end-title win">${esc(tsumo ? t("action.tsumo") : t("action.ron"))}<small>${esc(title)}</small></h2>
    <div class="win-hand">${tiles}<span class="gap"></span>${melds}<span class="gap"></span>${tileHtml(e.tile, "winning")}</div>
    <div class="indicators"><div class="ind"><span class="label">${esc(t("label.dora"))}</span>${hand.dora.map((x) => tileHtml(x, "small")).join("")}</div>${ura}</div>
    <div class="score-box">
      <div class="score-lists"><ul class="yaku">${yaku}</ul>${fuHtml(s)}</div>
      <div class="value"><div>${value} ${limit}</div><div class="total">${points(s.total)}</div><div class="pay">${esc(payText)}</div></div>
    </div>`;
}

function drawHtml(e, me) {
  const rows = [0, 1, 2]
    .map((s) => {
      const tenpai = e.tenpai.includes(s);
      const tiles = tenpai ? sortTiles(e.tenpai_hands[s]).map((x) => tileHtml(x, "small")).join("") : "";
      return `<div class="draw-row"><span class="who">${esc(seatName(s, me))}</span>
        <span class="state ${tenpai ? "tenpai" : "noten"}">${esc(t(tenpai ? "end.tenpai" : "end.noten"))}</span><span class="tiles">${tiles}</span></div>`;
    })
    .join("");
  const nagashi = e.nagashi.length ? `<p>${esc(t("end.nagashi", { names: e.nagashi.map((s) => seatName(s, me)).join(", ") }))}</p>` : "";
  return `<h2 class="end-title">${esc(t("end.draw"))}<small>${esc(t("end.exhaustive"))}</small></h2>${rows}${nagashi}`;
}

function abortHtml(e, me) {
  const why = t(`abort.${e.reason}`, { name: e.seat === null || e.seat === undefined ? "" : seatName(e.seat, me) });
  const tiles = e.hand && e.hand.length ? `<div class="win-hand">${sortTiles(e.hand).map((x) => tileHtml(x)).join("")}</div>` : "";
  return `<h2 class="end-title">${esc(t("end.abort"))}<small>${esc(why)}</small></h2>${tiles}`;
}

/** The panel for one hand end (`item` = {event, hand} from state.ending). */
export function handEndHtml(item, me, last) {
  const e = item.event;
  let body;
  if (e.type === "HandWon") body = winHtml(e, item.hand, me);
  else if (e.type === "HandDrawn") body = drawHtml(e, me);
  else body = abortHtml(e, me);
  const button = last ? t("end.to_results") : t("end.next_hand");
  return `<div class="panel hand-end" data-testid="hand-end" role="dialog" aria-modal="true">${body}
    ${changesHtml(item.hand, e.deltas, me)}
    <button class="primary" data-panel="next">${esc(button)}</button></div>`;
}

/** The match-end panel; `inRoom`: a friend room's match, which offers going back to its room. */
export function matchEndHtml(e, me, inRoom = false) {
  const order = [0, 1, 2].sort((a, b) => e.placements[a] - e.placements[b]);
  const rows = order
    .map((s) => {
      const fs = e.final_scores[s];
      return `<tr class="${s === me ? "me" : ""} place-${e.placements[s]}"><td class="place">${esc(t(`place.${e.placements[s]}`))}</td>
        <th>${esc(seatName(s, me))}</th><td>${points(e.points[s])}</td><td class="final ${fs > 0 ? "up" : fs < 0 ? "down" : ""}">${fs > 0 ? "+" : ""}${fs.toFixed(1)}</td></tr>`;
    })
    .join("");
  const mine = e.placements[me];
  return `<div class="panel match-end" data-testid="match-end" role="dialog" aria-modal="true">
    <h2 class="end-title">${esc(t("match.over"))}<small>${esc(t(`match.result.${mine}`))}</small></h2>
    <table class="results"><thead><tr><th>${esc(t("match.place"))}</th><th></th><th>${esc(t("match.points"))}</th><th>${esc(t("match.final"))}</th></tr></thead>
    <tbody>${rows}</tbody></table>
    ${inRoom ? `<button class="primary" data-panel="room">${esc(t("match.back_to_room"))}</button>` : ""}
    <button class="${inRoom ? "ghost" : "primary"}" data-panel="again">${esc(t("match.again"))}</button></div>`;
}
