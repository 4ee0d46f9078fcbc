// The table as this seat sees it, folded from wire events (docs/protocol.md).  Pure data:
// no DOM here, so the rendering can be redone from it at any time.

const KIND_ORDER = "mpsz";

/** Sort key of a wire tile: suit, then number (a red five next to the other fives). */
export function tileKey(tile) {
  const digit = Number(tile[0]);
  return KIND_ORDER.indexOf(tile[1]) * 100 + (digit === 0 ? 5 : digit) * 10 + (digit === 0 ? 1 : 0);
}

export function sortTiles(tiles) {
  return [...tiles].sort((a, b) => tileKey(a) - tileKey(b));
}

export function newState() {
  return {
    v: 0,
    seat: 0,
    rules: null,
    hand: null, // the current hand's table
    ending: [], // hand-end results not yet dismissed, in order
    matchEnd: null,
    botLevel: null,
  };
}

function newHand(e) {
  return {
    roundWind: e.round_wind,
    dealer: e.dealer,
    honba: e.honba,
    deposits: e.deposits,
    scores: [...e.scores],
    startScores: [...e.scores],
    endFrom: null,
    handNo: 0,
    dora: [e.dora_indicator],
    tilesLeft: e.live_size,
    concealed: e.hands.map((h) => [...h]),
    drawn: [null, null, null],
    rivers: [[], [], []],
    melds: [[], [], []],
    kita: [[], [], []],
    riichi: [false, false, false],
    lastDiscard: null,
    // What the seat on turn draws a replacement for ({seat, after: "kan" | "kita"}) until it
    // discards: a win on that tile is rinshan kaihou after either (../shared/spec/sanma-rules.md).
    replacement: null,
    turn: e.dealer,
  };
}

function removeTile(hand, seat, tile) {
  // The drawn tile first when it matches (a tsumogiri), else one copy from the hand.
  if (hand.drawn[seat] === tile || (hand.drawn[seat] && tile === "?")) {
    hand.drawn[seat] = null;
    return;
  }
  const list = hand.concealed[seat];
  let i = list.indexOf(tile);
  if (i < 0) i = list.indexOf("?");
  if (i < 0) i = list.length - 1;
  list.splice(i, 1);
}

function mergeDrawn(hand, seat) {
  if (hand.drawn[seat] !== null) {
    hand.concealed[seat].push(hand.drawn[seat]);
    hand.drawn[seat] = null;
  }
}

/** Fold one event into `state` (mutates it). */
export function fold(state, e) {
  const h = state.hand;
  switch (e.type) {
    case "MatchStarted":
      state.rules = e.rules;
      break;
    case "HandStarted": {
      const prev = state.hand;
      state.hand = newHand(e);
      state.hand.handNo = handNumber(state, e, prev);
      // Every hand played counts, repeats included: the fair-wall frames name hands so.
      state.hand.index = prev ? prev.index + 1 : 0;
      break;
    }
    case "TileDrawn":
      h.drawn[e.seat] = e.tile;
      h.tilesLeft = Math.max(0, h.tilesLeft - 1);
      h.turn = e.seat;
      break;
    case "TileDiscarded":
      h.replacement = null;
      removeTile(h, e.seat, e.tile);
      mergeDrawn(h, e.seat);
      h.rivers[e.seat].push({ tile: e.tile, riichi: e.riichi, called: false, tsumogiri: e.tsumogiri });
      h.lastDiscard = { seat: e.seat, index: h.rivers[e.seat].length - 1 };
      h.turn = (e.seat + 1) % 3;
      break;
    case "RiichiAccepted":
      h.riichi[e.seat] = true;
      h.scores[e.seat] -= 1000;
      h.deposits += 1;
      break;
    case "MeldCalled":
      foldMeld(h, e.seat, e.meld);
      if (e.meld.type !== "pon") h.replacement = { seat: e.seat, after: "kan" };
      break;
    case "KitaDeclared":
      h.replacement = { seat: e.seat, after: "kita" };
      removeTile(h, e.seat, e.tile);
      mergeDrawn(h, e.seat);
      h.kita[e.seat].push(e.tile);
      break;
    case "DoraRevealed":
      h.dora.push(e.indicator);
      break;
    case "HandWon":
    case "HandDrawn":
    case "HandAborted":
      // `from`: the scores this panel's changes count from (the hand's start, so a riichi
      // stick paid shows; after a double ron's first win, that win's result); `sticks`: the
      // riichi sticks on the table before this end (a draw carries them over).
      endFold(state, h, e);
      break;
    case "MatchEnded":
      state.matchEnd = e;
      break;
    default:
      break;
  }
}

function endFold(state, h, e) {
  const from = h.endFrom || h.startScores;
  const sticks = h.deposits;
  if (e.deltas) e.deltas.forEach((d, s) => (h.scores[s] += d));
  if (e.type === "HandWon") h.deposits = 0;
  h.endFrom = [...h.scores];
  state.ending.push({ event: e, hand: snapshot(h), from: [...from], sticks });
}

function handNumber(state, e, prev) {
  // Hand number within the round: 1 + the dealer's position counted from seat 0.
  return e.dealer + 1;
}

function foldMeld(h, seat, meld) {
  if (meld.type === "kakan") {
    const pon = h.melds[seat].find((m) => m.type === "pon" && sameKind(m.tiles[0], meld.added));
    removeTile(h, seat, meld.added);
    mergeDrawn(h, seat);
    if (pon) Object.assign(pon, meld);
    else h.melds[seat].push(meld);
    return;
  }
  const own = meld.type === "ankan" ? meld.tiles : withoutOne(meld.tiles, meld.called);
  own.forEach((t) => removeTile(h, seat, t));
  mergeDrawn(h, seat);
  if (meld.type !== "ankan" && meld.from_seat !== null && meld.from_seat !== undefined) {
    const river = h.rivers[meld.from_seat];
    if (river.length) river[river.length - 1].called = true;
  }
  h.melds[seat].push(meld);
  h.turn = seat;
}

function withoutOne(tiles, tile) {
  const out = [...tiles];
  const i = out.indexOf(tile);
  if (i >= 0) out.splice(i, 1);
  return out;
}

export function sameKind(a, b) {
  const norm = (t) => (t && t[0] === "0" ? `5${t[1]}` : t);
  return norm(a) === norm(b);
}

function snapshot(h) {
  return JSON.parse(JSON.stringify(h));
}

/** The wind ("1z".."3z") a seat holds in this hand. */
export function seatWind(hand, seat) {
  return `${((seat - hand.dealer + 3) % 3) + 1}z`;
}
