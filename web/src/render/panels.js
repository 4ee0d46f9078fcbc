// The hand-end and match-end panels, built from the events alone.
import { t, has } from "../i18n.js";
import { sortTiles } from "../state.js";
import { html, meldHtml, numberLocale, points, signed, tileHtml } from "./common.js";
import { icon } from "../icons.js";
import { seatName } from "./table.js";

/** A yaku's name; `afterKita`: the win was on a kita's replacement tile, which the engine
 * scores as rinshan kaihou like a kan's, and the name says which. */
function yakuName(name, afterKita = false) {
  if (name === "rinshan" && afterKita) return t("yaku.rinshan_kita");
  return has(`yaku.${name}`) ? t(`yaku.${name}`) : name.replace(/_/g, " ");
}

/** The winner's kita (North tiles set aside), shown beside the melds: "North tiles" counts them. */
function kitaHtml(tiles) {
  if (!tiles?.length) return "";
  return html`<span class="win-kita" data-testid="win-kita" aria-label="${t("aria.kita", { n: tiles.length })}">${tiles.map((x) => tileHtml(x))}</span>`;
}

/** Each seat's change over the hand (`from`: the scores it started from, so a riichi stick
 * paid and lost shows as -1,000, not as no change) and its new score. */
function changesHtml(hand, from, me) {
  const rows = [0, 1, 2]
    .map((s) => {
      const d = hand.scores[s] - (from ? from[s] : hand.scores[s]);
      const cls = d > 0 ? "up" : d < 0 ? "down" : "";
      return html`<tr class="${s === me ? "me" : ""}" data-seat="${s}"><th>${seatName(s, me)}</th>
        <td class="delta ${cls}" data-delta="${d}">${d ? signed(d) : "±0"}</td><td>${points(hand.scores[s])}</td></tr>`;
    });
  return html`<table class="changes"><thead><tr><th></th><th>${t("end.change")}</th><th>${t("end.score")}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** "You win on Sari's discard", "Sari wins on your discard", "Kenji wins on Sari's discard". */
function winTitle(e, me) {
  const you = e.seat === me;
  if (e.seat === e.from_seat) return you ? t("end.tsumo_you") : t("end.tsumo_by", { name: seatName(e.seat, me) });
  if (you) return t("end.ron_you", { from: seatName(e.from_seat, me) });
  if (e.from_seat === me) return t("end.ron_on_you", { name: seatName(e.seat, me) });
  return t("end.ron_by", { name: seatName(e.seat, me), from: seatName(e.from_seat, me) });
}

/** How many sticks: "1 riichi stick" / "2 riichi sticks". */
function sticksText(key, n) {
  return t(n === 1 ? `${key}.one` : `${key}.many`, { n, points: points(n * 1000) });
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
  return html`<li data-fu="${fu}"><span>${label}${tile}</span><b>${fu > 0 ? "+" : ""}${fu}</b></li>`;
}

function fuHtml(s) {
  const items = s.fu_breakdown || [];
  if (!items.length) return html``;
  return html`<div class="fu-box" data-testid="fu-breakdown"><h3>${t("fu.title")}</h3><ul class="fu">${items.map(fuItemHtml)}
    <li class="fu-total"><span>${t("fu.total")}</span><b data-testid="fu-total">${s.fu}</b></li></ul></div>`;
}

function winHtml(e, hand, me) {
  const s = e.score;
  const tsumo = e.seat === e.from_seat;
  const title = winTitle(e, me);
  const tiles = sortTiles(e.hand).map((x) => tileHtml(x));
  const melds = e.melds.map((m) => meldHtml(m, e.seat));
  const kita = kitaHtml(hand.kita?.[e.seat]);
  const afterKita = tsumo && hand.replacement?.seat === e.seat && hand.replacement.after === "kita";
  const yaku = s.yaku
    .map(([name, han]) => html`<li data-yaku="${name}"><span>${yakuName(name, afterKita)}</span><b>${s.yakuman ? t("end.yakuman") : t("end.han_n", { n: han })}</b></li>`);
  const limit = s.limit && s.limit !== "none" ? html`<span class="limit">${t(`limit.${s.limit}`)}</span>` : "";
  const value = s.yakuman ? t("end.yakuman_x", { n: s.yakuman }) : t("end.han_fu", { han: s.han, fu: s.fu });
  const pay = s.payments || {};
  // The big number is the hand's value (honba included); the riichi sticks it collects are
  // written apart, so the payments below add up to it.
  const paid = !tsumo ? pay.ron || 0 : pay.dealer ? pay.dealer + (pay.non_dealer || 0) : 2 * (pay.non_dealer || 0);
  const sticksAt = Math.max(0, Math.round((s.total - paid) / 1000));
  const value_ = paid;
  let payText;
  if (!tsumo) payText = t("end.pay_ron", { n: points(pay.ron || 0) });
  else if (!pay.dealer) payText = t("end.pay_tsumo_dealer", { n: points(pay.non_dealer || 0) });
  else payText = t("end.pay_tsumo", { dealer: points(pay.dealer || 0), other: points(pay.non_dealer || 0) });
  const sticksLine = sticksAt ? html`<div class="sticks" data-testid="win-sticks">${sticksText("end.sticks", sticksAt)}</div>` : "";
  const ura = e.ura_indicators.length ? html`<div class="ind"><span class="label">${t("label.ura_indicators")}</span>${e.ura_indicators.map((x) => tileHtml(x, "small"))}</div>` : "";
  return html`
    <h2 class="end-title win">${tsumo ? t("action.tsumo") : t("action.ron")}<small>${title}</small></h2>
    <div class="win-hand">${tiles}<span class="gap"></span>${melds}${kita}<span class="gap"></span>${tileHtml(e.tile, "winning")}</div>
    <div class="indicators"><div class="ind"><span class="label">${t("label.dora_indicators")}</span>${hand.dora.map((x) => tileHtml(x, "small"))}</div>${ura}</div>
    <div class="score-box">
      <div class="score-lists"><ul class="yaku">${yaku}</ul>${fuHtml(s)}</div>
      <div class="value"><div>${value} ${limit}</div><div class="total" data-testid="win-value">${points(value_)}</div><div class="pay">${payText}</div>${sticksLine}</div>
    </div>`;
}

function drawHtml(e, me, sticks) {
  const rows = [0, 1, 2]
    .map((s) => {
      const tenpai = e.tenpai.includes(s);
      const tiles = tenpai ? sortTiles(e.tenpai_hands[s]).map((x) => tileHtml(x, "small")) : "";
      return html`<div class="draw-row"><span class="who">${seatName(s, me)}</span>
        <span class="state ${tenpai ? "tenpai" : "noten"}">${t(tenpai ? "end.tenpai" : "end.noten")}</span><span class="tiles">${tiles}</span></div>`;
    });
  const nagashi = e.nagashi.length ? html`<p>${t("end.nagashi", { names: e.nagashi.map((s) => seatName(s, me)).join(", ") })}</p>` : "";
  return html`<h2 class="end-title">${t("end.draw")}<small>${t("end.exhaustive")}</small></h2>${rows}${nagashi}${carryHtml(sticks)}`;
}

/** A draw or an abort leaves the riichi sticks on the table for the next hand's winner. */
function carryHtml(sticks) {
  return sticks ? html`<p class="carry" data-testid="carry">${sticksText("end.carry", sticks)}</p>` : "";
}

function abortHtml(e, me, sticks) {
  const why = t(`abort.${e.reason}`, { name: e.seat === null || e.seat === undefined ? "" : seatName(e.seat, me) });
  const tiles = e.hand && e.hand.length ? html`<div class="win-hand">${sortTiles(e.hand).map((x) => tileHtml(x))}</div>` : "";
  return html`<h2 class="end-title">${t("end.abort")}<small>${why}</small></h2>${tiles}${carryHtml(sticks)}`;
}

/** One line on the wall's check (`web/src/fairness.js`): `check` is a result ("ok",
 * "mismatch", "unavailable", "checking"; a hand end's "committed": its wall is checked at the
 * match's end) or a check's {result, problems, hands} ("seen": the commitments open but a
 * tile seen is not where the wall put it); nothing while there is nothing to say (a scripted
 * deal has no commitment).  A failure of either kind is data-fair="mismatch": it never reads
 * as checked.  The problems (in the engine's words) go in an attribute, for a bug report, not
 * on screen. */
export function fairHtml(kind, check) {
  const result = typeof check === "string" ? check : check?.result;
  if (!result) return html``;
  const state = result === "seen" ? "mismatch" : result;
  const problems = typeof check === "object" && check.problems?.length ? check.problems.join("; ") : null;
  const n = typeof check === "object" ? check.hands : undefined;
  return html`<p class="fair ${state}" data-testid="fair" data-fair="${state}" data-why="${result}"${problems ? html` data-problems="${problems}"` : null}>${t(`fair.${kind}.${result}`, { n })}</p>`;
}

/** The panel for one hand end (`item` = {event, hand} from state.ending); `fair`: its wall's check line;
 * `wait`: the break between hands ({line}: who is still reading, the countdown; {button: false}:
 * a spectator's panel, which deals nothing). */
export function handEndHtml(item, me, last, fair = "", wait = null) {
  const e = item.event;
  const sticks = item.sticks || 0;
  let body;
  if (e.type === "HandWon") body = winHtml(e, item.hand, me);
  else if (e.type === "HandDrawn") body = drawHtml(e, me, sticks);
  else body = abortHtml(e, me, sticks);
  const button = last ? t("end.to_results") : t("end.next_hand");
  // The body scrolls when it must; the scores and the button stay in view at every size.
  return html`<div class="panel hand-end" data-testid="hand-end" role="dialog" aria-modal="true"><div class="panel-body">${body}${fair}</div>
    <div class="panel-foot">${changesHtml(item.hand, item.from, me)}${wait?.line || null}
    ${wait?.button === false ? null : html`<button class="primary" data-panel="next"${wait?.pressed ? html` disabled` : null}>${button}</button>`}</div></div>`;
}

/** The match-end panel; `inRoom`: a friend room's match, which offers going back to its room
 * (`"quick"`: a quick match, which offers another one).
 * A replay shows it without the table's buttons (`buttons: false`), and seen from outside the
 * table (`subtitle: false`) without the line on how *you* finished. */
export function matchEndHtml(e, me, inRoom = false, rules = null, fair = "", { buttons = true, subtitle = true } = {}) {
  const order = [0, 1, 2].sort((a, b) => e.placements[a] - e.placements[b]);
  const back = rules && Number.isFinite(rules.return_points) ? rules.return_points : 35000;
  const rows = order
    .map((s) => {
      const fs = e.final_scores[s];
      // final = (points - return points) / 1000 + uma: the uma is what remains.
      const uma = Math.round((fs - (e.points[s] - back) / 1000) * 10) / 10;
      return html`<tr class="${s === me ? "me" : ""} place-${e.placements[s]}" data-seat="${s}"><td class="place">${t(`place.${e.placements[s]}`)}</td>
        <th>${seatName(s, me)}</th><td class="points">${points(e.points[s])}</td><td class="uma" data-uma="${uma}">${decimal(uma)}</td>
        <td class="final ${fs > 0 ? "up" : fs < 0 ? "down" : ""}">${decimal(fs)}</td></tr>`;
    });
  const mine = e.placements[me];
  const first = inRoom === "quick"
    ? html`<button class="primary" data-panel="quick-again">${t("quick.again")}</button>`
    : inRoom
    ? html`<button class="primary" data-panel="room">${t("match.back_to_room")}</button>`
    : html`<button class="primary" data-panel="rematch">${t("match.again")}</button>`;
  const foot = html`<div class="panel-foot match-foot">${first}
    <button class="ghost" data-panel="history">${icon("replay")} ${t("match.replay")}</button>
    <button class="ghost" data-panel="again">${t(inRoom === true ? "match.leave_room" : "match.to_start")}</button></div>`;
  const how = subtitle ? html`<small>${t(`match.result.${mine}`)}</small>` : null;
  return html`<div class="panel match-end" data-testid="match-end" role="dialog" aria-modal="true"><div class="panel-body">
    <h2 class="end-title">${t("match.over")}${how}</h2>
    <table class="results"><thead><tr><th>${t("match.place")}</th><th></th><th>${t("match.points")}</th><th>${t("match.uma")}</th><th>${t("match.final")}</th></tr></thead>
    <tbody>${rows}</tbody></table>${fair}</div>${buttons ? foot : null}</div>`;
}

/** A signed one-decimal number in the page's language: +15.0, -7.5 (id: +15,0). */
function decimal(n) {
  const text = new Intl.NumberFormat(numberLocale(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(Math.abs(n));
  return n > 0 ? `+${text}` : n < 0 ? `−${text}` : text;
}
