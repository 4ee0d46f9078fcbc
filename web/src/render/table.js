// The table for three: you at the bottom, the next seat on the right, the previous on the left.
import { rankName, t, tileName } from "../i18n.js";
import { seatWind, sortTiles, sameKind } from "../state.js";
import { html, join, meldHtml, nodeOf, points, tilePicture, tileHtml } from "./common.js";

export const BOT_NAMES = ["Kenji", "Sari"];

// A friend room's players from its welcome ([{seat, name, bot_level}]); null in practice, whose
// bots keep their own names.  A spectator holds no seat, so nobody is "You" for it.
const table = { players: null, spectator: false };

/** The players of the match just joined (null: practice) and whether we only watch it. */
export function setPlayers(players, spectator = false) {
  table.players = Array.isArray(players) ? players : null;
  table.spectator = Boolean(spectator);
}

/** Whether the match shown is a friend room's (players named by the room) rather than practice. */
export function inRoom() {
  return table.players !== null;
}

/** Run `fn` with `players` in force (a replay of a room match), then put back the live table's. */
export function withPlayers(players, fn, spectator = false) {
  const saved = { ...table };
  setPlayers(players, spectator);
  try {
    return fn();
  } finally {
    Object.assign(table, saved);
  }
}

/** Display name of a seat as seen from `me` (null/undefined: a spectator). User text: callers
 * put it into HTML only through  or textContent. */
export function seatName(seat, me) {
  const watching = me === null || me === undefined || table.spectator;
  if (!table.players) {
    if (watching) return t("seat.player", { n: seat + 1 });
    return seat === me ? t("seat.you") : BOT_NAMES[(seat - me + 3) % 3 - 1];
  }
  if (!watching && seat === me) return t("seat.you");
  const name = playerName(seat);
  // Two seats with the same name (two bots of a level, two friends called alike) tell apart by seat.
  const twin = [0, 1, 2].some((s) => s !== seat && (watching || s !== me) && playerName(s) === name);
  return twin ? `${name} (${seat + 1})` : name;
}

function playerName(seat) {
  const p = table.players.find((x) => x.seat === seat);
  // A name first: a practice match's bots come named (Kenji, Sari) in a replay's answer
  // (seat_names in sanma/server/api/replays.py); a room's bot has none and goes by its level.
  if (p && p.name) return p.name;
  if (p && p.bot_level) return t("seat.bot", { level: t(`level.${p.bot_level}`) });
  return t("seat.player", { n: seat + 1 });
}

/** A quick match's player's rank on its name plate ("1 dan"; docs/quick.md `players[i].rank`);
 * nothing for a bot or at another table. */
function rankHtml(seat) {
  const rank = table.players?.find((x) => x.seat === seat)?.rank;
  return rank ? html`<span class="rank-badge" data-rank="${rank}">${rankName(rank)}</span>` : html``;
}

/** The dora an indicator names: the next tile of its suit (9 wraps to 1; in sanma the
 * characters are only 1 and 9, which name each other), North -> East, red -> white. */
export function doraOf(indicator) {
  const n = indicator[0] === "0" ? 5 : Number(indicator[0]);
  const suit = indicator[1];
  if (suit === "m") return n === 1 ? "9m" : "1m";
  if (suit === "z") return n <= 4 ? `${(n % 4) + 1}z` : `${((n - 5 + 1) % 3) + 5}z`;
  return `${(n % 9) + 1}${suit}`;
}

function windLabel(tile) {
  return t(`wind.${tile}`);
}

function opponentHtml(state, seat, side) {
  const h = state.hand;
  const count = h.concealed[seat].length + (h.drawn[seat] ? 1 : 0);
  // A replay of an ended match shows every hand (state.openHands): the tiles, not their backs.
  const open = state.openHands && !h.concealed[seat].includes("?");
  const shown = open ? [...sortTiles(h.concealed[seat]), ...(h.drawn[seat] ? [h.drawn[seat]] : [])] : [];
  const backs = open ? shown.map((x) => tileHtml(x, "tiny open-hand")) : Array.from({ length: count }, () => tileHtml("?", "tiny back"));
  const melds = h.melds[seat].map((m) => meldHtml(m, seat));
  const kita = kitaHtml(h, seat);
  const turn = h.turn === seat ? " on-turn" : "";
  return html`
    <div class="opponent ${side}${turn}" data-seat="${seat}">
      <div class="nameplate">
        <span class="wind-badge" title="${windLabel(seatWind(h, seat))}">${t(`wind.short.${seatWind(h, seat)}`)}</span>
        <span class="name">${seatName(seat, state.seat)}</span>
        ${rankHtml(seat)}
        ${h.riichi[seat] ? html`<span class="riichi-badge">${t("badge.riichi")}</span>` : ""}
        <span class="score">${points(h.scores[seat])}</span>
      </div>
      <div class="backs" aria-label="${t("aria.concealed", { n: count })}">${backs}</div>
      <div class="melds">${melds}${kita}</div>
    </div>`;
}

function kitaHtml(h, seat) {
  const n = h.kita[seat].length;
  if (!n) return html``;
  return html`<span class="kita" aria-label="${t("aria.kita", { n })}">${tileHtml("4z", "small")}<b>×${n}</b></span>`;
}

function riverHtml(h, seat, where, me) {
  const tiles = h.rivers[seat]
    .map((d, i) => {
      const last = h.lastDiscard && h.lastDiscard.seat === seat && h.lastDiscard.index === i;
      const cls = ["river-tile", d.riichi ? "sideways" : "", d.called ? "called" : "", last ? "last" : "", d.tsumogiri ? "tsumogiri" : ""];
      // A tsumogiri (the drawn tile let go at once) is tinted, and says so to screen readers.
      return tileHtml(d.tile, cls.join(" "), d.tsumogiri ? t("aria.tsumogiri") : "");
    });
  return html`<div class="river river-${where}" data-seat="${seat}" aria-label="${t("aria.river", { name: seatName(seat, me) })}">${tiles}</div>`;
}

function centreHtml(state) {
  const h = state.hand;
  const me = state.seat;
  // Your own spot also carries your rank at a quick match (the others' are on their name plates).
  const spot = (seat, where) => html`
    <div class="cscore cscore-${where}${h.turn === seat ? " on-turn" : ""}">
      <span class="wind-badge">${t(`wind.short.${seatWind(h, seat)}`)}</span>
      <span>${points(h.scores[seat])}</span>${where === "me" ? rankHtml(seat) : ""}
    </div>`;
  // The indicators small, then the dora they name, which is what the label is about.
  const indicators = h.dora.map((d) => tileHtml(d, "tiny indicator"));
  const dora = h.dora.map((d) => tileHtml(doraOf(d), "small dora-tile"));
  return html`
    <div class="centre">
      <div class="round">${t("round.name", { wind: windLabel(h.roundWind), n: h.handNo })}</div>
      <div class="counters">
        <span title="${t("label.honba")}">${t("label.honba")} <b>${h.honba}</b></span>
        <span title="${t("label.deposits")}">${t("label.deposits")} <b>${h.deposits}</b></span>
      </div>
      <div class="dora" title="${t("label.indicator")}"><span class="indicators" aria-label="${t("label.indicator")}">${indicators}</span><span class="arrow" aria-hidden="true">→</span><span class="label">${t("label.dora")}</span><span class="doras" data-testid="dora">${dora}</span></div>
      <div class="left-count">${t("label.tiles_left")} <b data-testid="tiles-left">${h.tilesLeft}</b></div>
      ${spot((me + 2) % 3, "left")}${spot((me + 1) % 3, "right")}${spot(me, "me")}
    </div>`;
}

/** The whole board (opponents, rivers, centre); the player's own area is rendered apart. */
export function boardHtml(state) {
  return join(boardParts(state));
}

/** The board's six parts in order (left opponent, its river, centre, right river, right
 * opponent, your river): the live table redraws only the parts whose markup changed. */
export function boardParts(state) {
  const me = state.seat;
  const right = (me + 1) % 3;
  const left = (me + 2) % 3;
  const h = state.hand;
  return [
    opponentHtml(state, left, "left"),
    riverHtml(h, left, "left", me),
    centreHtml(state),
    riverHtml(h, right, "right", me),
    opponentHtml(state, right, "right"),
    riverHtml(h, me, "me", me),
  ];
}

const BUTTON_ORDER = ["tsumo", "ron", "riichi", "kan", "pon", "kita", "nine_terminals", "pass"];
export const HOTKEYS = { tsumo: "t", ron: "r", riichi: "i", kan: "k", pon: "p", kita: "n", nine_terminals: "9", pass: "s" };

/** The buttons for the current prompt: one per legal non-discard action, plus Riichi. */
export function actionButtons(prompt, ui) {
  if (!prompt) return [];
  const buttons = [];
  const discards = prompt.legal.filter((a) => a.type === "discard");
  if (discards.some((a) => a.riichi)) buttons.push({ type: "riichi", action: null });
  for (const a of prompt.legal) if (a.type !== "discard") buttons.push({ type: a.type, action: a });
  buttons.sort((a, b) => BUTTON_ORDER.indexOf(a.type) - BUTTON_ORDER.indexOf(b.type));
  const counts = {};
  buttons.forEach((b) => (counts[b.type] = (counts[b.type] || 0) + 1));
  return buttons.map((b, i) => ({ ...b, index: i, variant: counts[b.type] > 1, pressed: b.type === "riichi" && ui.riichi }));
}

export function actionsHtml(buttons) {
  return join(
    buttons.map((b) => {
      const tile = b.variant && b.action ? tileHtml(b.action.type === "pon" && b.action.red ? `0${b.action.kind[1]}` : b.action.kind, "tiny") : "";
      const key = HOTKEYS[b.type];
      const cls = ["action", `action-${b.type}`, b.type === "tsumo" || b.type === "ron" ? "win" : "", b.pressed ? "pressed" : ""];
      return html`<button class="${cls.join(" ")}" data-action="${b.index}" aria-pressed="${b.pressed ? "true" : "false"}"
        aria-keyshortcuts="${key.toUpperCase()}">${t(`action.${b.type}`)}${tile}<kbd>${key.toUpperCase()}</kbd></button>`;
    }),
  );
}

/** Whether the seat's hand is open (a called meld; a closed kan keeps it closed). */
export function handIsOpen(state) {
  return state.hand.melds[state.seat].some((m) => m.type !== "ankan");
}

const SIMPLE = (tile) => tile[1] !== "z" && !["1", "9"].includes(tile[0]);

/** For an open hand, the waits on which a yaku is certain whatever the reading: a called
 * triplet of a dragon, the seat wind or the round wind (yakuhai), or every tile a simple
 * (open tanyao).  Other waits may complete the shape without a yaku. */
export function openWaitsWithYaku(state, waits) {
  const h = state.hand;
  const melds = h.melds[state.seat];
  const honours = new Set(["5z", "6z", "7z", seatWind(h, state.seat), h.roundWind]);
  if (melds.some((m) => honours.has(m.tiles[0]))) return new Set(waits.map(([kind]) => kind));
  const tiles = [...h.concealed[state.seat], ...(h.drawn[state.seat] ? [h.drawn[state.seat]] : []), ...melds.flatMap((m) => m.tiles)];
  if (!tiles.every(SIMPLE)) return new Set();
  return new Set(waits.filter(([kind]) => SIMPLE(kind)).map(([kind]) => kind));
}

/** Tiles of the player's hand in display order: sorted, then the drawn tile set apart. */
export function myTiles(state) {
  const h = state.hand;
  const tiles = sortTiles(h.concealed[state.seat]).map((tile) => ({ tile, drawn: false }));
  if (h.drawn[state.seat]) tiles.push({ tile: h.drawn[state.seat], drawn: true });
  return tiles;
}

/** The legal discard action for a tile, or null (riichi mode keeps only riichi discards). */
export function discardFor(prompt, ui, tile) {
  if (!prompt) return null;
  return prompt.legal.find((a) => a.type === "discard" && a.tile === tile && Boolean(a.riichi) === ui.riichi) || null;
}

export function handHtml(state, prompt, ui) {
  const tiles = myTiles(state);
  const canDiscard = prompt && prompt.legal.some((a) => a.type === "discard");
  const items = tiles
    .map((x, i) => {
      const legal = discardFor(prompt, ui, x.tile) !== null;
      const keeps = legal && Boolean(previewFor(prompt, x.tile));
      const cls = ["tile", "hand-tile", x.drawn ? "drawn" : "", canDiscard && !legal ? "blocked" : "",
        ui.raised === i ? "raised" : "", ui.focus === i ? "focused" : "", keeps ? "keeps-tenpai" : ""];
      return html`<button class="${cls.join(" ")}" data-i="${i}" data-tile="${x.tile}" aria-label="${tileName(x.tile)}${x.drawn ? `, ${t("aria.drawn")}` : ""}${keeps ? `, ${t("aria.keeps_tenpai")}` : ""}"
        ${canDiscard && legal ? null : html`aria-disabled="true"`} tabindex="${ui.focus === i ? 0 : -1}">${tilePicture(x.tile)}</button>`;
    });
  const h = state.hand;
  const melds = h.melds[state.seat].map((m) => meldHtml(m, state.seat));
  // A spectator's bottom hand is a player's, named (nobody is "You" for it).
  const label = table.spectator ? t("aria.hand_of", { name: seatName(state.seat, null) }) : t("aria.hand");
  return html`<div class="hand${canDiscard ? " my-turn" : ""}" role="group" aria-label="${label}">${items}</div>
    <div class="my-melds">${melds}${kitaHtml(h, state.seat)}</div>`;
}

/** One of the two spots beside your hand (`turn-cue`, `turn-clock`: the timer of rooms.js),
 * made in the player's area the first time it is asked for. */
export function statusSpot(name) {
  if (!document.getElementById("me-status")) {
    const box = nodeOf(html`<div class="me-status" id="me-status"><span id="turn-cue"></span><span id="turn-clock"></span></div>`);
    document.querySelector(".me-area")?.prepend(box);
  }
  return document.getElementById(name);
}

/** "Your turn" in words while a discard is yours to make (the area's glow is colour alone);
 * after a first tap on a touch screen, that a second one discards the raised tile. */
export function turnCueHtml(prompt, ui) {
  if (!prompt || !prompt.legal.some((a) => a.type === "discard")) return html``;
  const raised = ui.raised !== null && ui.raised !== undefined;
  return html`<span class="turn-cue" data-testid="turn-cue">${t(raised ? "game.tap_again" : "game.your_turn")}</span>`;
}

/** The waits a discard of `tile` would leave (the prompt's wait preview), or null. */
export function previewFor(prompt, tile) {
  const previews = prompt && prompt.aids && prompt.aids.discard_waits;
  return (previews && previews[tile]) || null;
}

function waitsList(waits) {
  return waits
    .map(([kind, n]) => html`<span class="wait${n === 0 ? " dead" : ""}" data-wait="${kind}">${tileHtml(kind, "tiny")}<b>${n}</b></span>`);
}

/** The aids strip: waits with unseen counts, the furiten badge, the why-not message; while a
 * tile is pointed at (hover, focus, first tap) in a tenpai-choice moment, the waits its
 * discard would leave instead. */
export function aidsHtml(prompt, pointed = null, open = null) {
  if (!prompt || !prompt.aids) return html``;
  const { waits, furiten, why_not: whyNot, discard_waits: previews } = prompt.aids;
  if (pointed && previews && Object.keys(previews).length && prompt.legal.some((a) => a.type === "discard" && a.tile === pointed)) {
    const p = previews[pointed];
    const head = html`<span class="label">${t("aids.preview")}</span>${tileHtml(pointed, "tiny")}<span class="arrow">→</span>`;
    if (!p) return html`<span class="aid preview none" data-testid="preview" data-tile="${pointed}">${head}${t("aids.preview.none")}</span>`;
    const badge = p.furiten ? html`<span class="aid furiten">${t("aids.preview.furiten")}</span>` : "";
    return html`<span class="aid preview waits" data-testid="preview" data-tile="${pointed}">${head}${waitsList(p.waits)}</span>${badge}`;
  }
  const parts = [];
  if (waits && waits.length) {
    // An open hand may wait on a shape that has no yaku (`open`: the waits where one is
    // certain): it completes, but is not "waiting to win" unless every wait has one.
    const unsure = open !== null && waits.some(([kind]) => !open.has(kind));
    const label = unsure ? t("aids.waits_open") : t("aids.waits");
    parts.push(html`<span class="aid waits${unsure ? " open" : ""}" data-testid="waits"><span class="label">${label}</span>${waitsList(waits)}</span>`);
  }
  if (furiten && furiten !== "none") {
    parts.push(html`<span class="aid furiten" data-testid="furiten" data-furiten="${furiten}">${t(`aids.furiten.${furiten}`)}</span>`);
  }
  if (whyNot) parts.push(html`<span class="aid why-not" data-testid="why-not" data-why="${whyNot}">${t(`aids.why_not.${whyNot}`)}</span>`);
  if (!parts.length && previews && Object.keys(previews).length) {
    parts.push(html`<span class="aid hint-preview">${t("aids.preview.hint")}</span>`);
  }
  return join(parts);
}

export { sameKind };
