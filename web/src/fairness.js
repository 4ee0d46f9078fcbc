// Provably fair walls (sanma-fair-v2, docs/engine.md and docs/protocol.md "Fair walls"):
// SHA-256 through crypto.subtle, the sanma-wall-v1 shuffle, and the checks of the server's
// commitments, all opened at the match's end (nothing is revealed while it runs).
// crypto.subtle exists only on a secure page (https or localhost): without it every check
// answers "unavailable", never "ok".

/** The hash formulas' domain tag (unchanged since sanma-fair-v1: fairness.py COMMITMENT_TAG). */
const TAG = "sanma-fair-v1";

const TILE_COUNT = 108;

/** Whether this page can check anything (crypto.subtle is there). */
export function canCheck() {
  return Boolean(globalThis.crypto && globalThis.crypto.subtle);
}

async function sha256(text) {
  const bytes = new TextEncoder().encode(text);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The 108 tile ids in wall order for hand `hand` of a match seeded `seed` (a decimal
 *  string: 64-bit seeds do not fit a JSON number). */
export async function shuffledTiles(seed, hand) {
  const tiles = Array.from({ length: TILE_COUNT }, (_, i) => i);
  let block = 0;
  let words = [];
  const next = async () => {
    if (!words.length) {
      const d = await sha256(`sanma-wall-v1:${seed}:${hand}:${block++}`);
      const view = new DataView(d.buffer);
      words = [0, 4, 8, 12, 16, 20, 24, 28].map((o) => view.getUint32(o, false));
    }
    return words.shift();
  };
  for (let i = TILE_COUNT - 1; i > 0; i--) {
    const n = i + 1;
    const limit = Math.floor(2 ** 32 / n) * n; // rejection: no bias
    let word = await next();
    while (word >= limit) word = await next();
    const j = word % n;
    [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
  }
  return tiles;
}

/** The deal of hand `hand` as the server's reveal lists it. */
export async function dealFromSeed(seed, hand) {
  const w = await shuffledTiles(seed, hand);
  const live = w.slice(39, 94);
  return {
    hands: [w.slice(0, 13), w.slice(13, 26), w.slice(26, 39)],
    live,
    replacements: [...w.slice(94, 98), ...live.slice(-4).reverse()],
    dora_indicators: w.slice(98, 103),
    ura_indicators: w.slice(103, 108),
  };
}

const SUITS = [["m", 0, 1], ["p", 2, 9], ["s", 11, 9], ["z", 20, 7]];

/** A tile id in mpsz ("0p" a red five when the rules have them). */
export function tileName(id, redFives = true) {
  if (redFives && (id === 24 || id === 60)) return id === 24 ? "0p" : "0s";
  const kind = id >> 2;
  if (kind === 0) return "1m";
  if (kind === 1) return "9m";
  for (const [suit, first, count] of SUITS) {
    if (kind >= first && kind < first + count) return `${kind - first + 1}${suit}`;
  }
  throw new Error(`not a tile id: ${id}`);
}

/** Deal.digest() of sanma/engine/wall.py. Ids sorted are mpsz's canonical order (kinds in
 *  m p s z order, a red five, copy 0, before the plain ones); digest hands as with red fives. */
export async function dealDigest(deal) {
  const mpsz = (hand) => {
    const names = [...hand].sort((a, b) => a - b).map((t) => tileName(t, true));
    return names.map((n, i) => (i === names.length - 1 || names[i + 1][1] !== n[1] ? n : n[0])).join("");
  };
  const parts = deal.hands.map(mpsz);
  for (const seq of [deal.live, deal.replacements, deal.dora_indicators, deal.ura_indicators]) parts.push(seq.join(","));
  return hex(await sha256(parts.join("|")));
}

/**
 * Where the tiles seen during one hand disagree with `deal` (as dealFromSeed lists it); []:
 * they all agree.  `events`: the hand's events from its HandStarted on, in the socket's form
 * (tiles by name, "?" for a hidden one), as this seat saw them; `redFives`: the match's rule
 * (whether ids 24 and 60 are named 0p / 0s).  Port of sanma/engine/fairness.py `check_seen`:
 * hidden tiles are skipped; every shown tile must be where the deal put it: the hands, each
 * draw in wall order, each discard, call, kita and shown hand from its seat's own tiles, the
 * dora and ura indicators.  The page sees names, not copies: a tile is checked by its name.
 */
export function checkSeen(deal, events, redFives = true) {
  const name = (id) => tileName(id, redFives);
  const problems = [];
  const pools = deal.hands.map((hand) => counts(hand.map(name)));
  let live = 0;
  let repl = 0;
  let dora = 1;
  const take = (seat, tile, what) => {
    if (tile === "?" || tile === null || tile === undefined) return;
    const left = pools[seat].get(tile) || 0;
    if (left <= 0) problems.push(`${what} ${tile} of seat ${seat} was never dealt or drawn by it`);
    else pools[seat].set(tile, left - 1);
  };
  for (const e of events) {
    if (e.type === "HandStarted") {
      for (let seat = 0; seat < 3; seat++) {
        const shown = e.hands[seat].some((x) => x !== "?");
        if (shown && e.hands[seat].join(",") !== deal.hands[seat].map(name).join(",")) problems.push(`seat ${seat}'s starting hand differs`);
      }
      if (e.dora_indicator !== name(deal.dora_indicators[0])) problems.push("the first dora indicator differs");
    } else if (e.type === "TileDrawn") {
      const [wall, i] = e.replacement ? [deal.replacements, repl] : [deal.live, live];
      if (i >= wall.length) {
        problems.push("a draw beyond the revealed wall");
        continue;
      }
      if (e.tile !== "?" && e.tile !== name(wall[i])) problems.push(`draw ${i} (${e.replacement ? "replacement" : "live"}) differs`);
      pools[e.seat].set(name(wall[i]), (pools[e.seat].get(name(wall[i])) || 0) + 1);
      if (e.replacement) repl += 1;
      else live += 1;
    } else if (e.type === "TileDiscarded" || e.type === "KitaDeclared") {
      take(e.seat, e.tile, e.type === "TileDiscarded" ? "discard" : "kita");
    } else if (e.type === "MeldCalled") {
      const meld = e.meld;
      let own;
      if (meld.type === "kakan") own = meld.added ? [meld.added] : [];
      else {
        own = [...meld.tiles];
        const at = meld.called ? own.indexOf(meld.called) : -1;
        if (at >= 0) own.splice(at, 1);
      }
      for (const tile of own) take(e.seat, tile, "called set tile");
    } else if (e.type === "DoraRevealed") {
      if (dora >= deal.dora_indicators.length || e.indicator !== name(deal.dora_indicators[dora])) problems.push(`dora indicator ${dora} differs`);
      dora += 1;
    } else if (e.type === "HandWon") {
      const ura = deal.ura_indicators.slice(0, e.ura_indicators.length).map(name);
      if (e.ura_indicators.join(",") !== ura.join(",")) problems.push("the ura indicators differ");
      for (const tile of e.hand) take(e.seat, tile, "shown tile");
    } else if (e.type === "HandDrawn") {
      e.tenpai_hands.forEach((hand, seat) => hand.forEach((tile) => take(seat, tile, "shown tile")));
    }
  }
  return problems;
}

function counts(names) {
  const out = new Map();
  for (const n of names) out.set(n, (out.get(n) || 0) + 1);
  return out;
}

/**
 * A finished match's replay checked against the seed it shows (MatchStarted.seed, a
 * sanma-wall-v1 match): each hand's wall rebuilt from the seed, and every tile of the
 * replay where that wall put it.  The replay has no commitments (the fair_* frames are sent
 * to the table, not stored), so this says the log and the seed agree, not that the seed was
 * fixed in advance.  [{hand, result: "ok"|"seen"|"unavailable", problems}], one per hand;
 * [] when the replay shows no seed (a running match, an opened tenhou.net/6 log).
 */
export async function checkReplay(events, hands) {
  const start = events.find((e) => e.type === "MatchStarted");
  if (!start || typeof start.seed !== "string" || start.wall_algorithm !== "sanma-wall-v1") return [];
  if (!canCheck()) return hands.map((_, hand) => ({ hand, result: "unavailable", problems: [] }));
  const redFives = start.rules?.red_fives !== false;
  const out = [];
  for (let k = 0; k < hands.length; k++) {
    const deal = await dealFromSeed(start.seed, k);
    const problems = checkSeen(deal, events.slice(hands[k].start, hands[k].end + 1), redFives);
    out.push({ hand: k, result: problems.length ? "seen" : "ok", problems });
  }
  return out;
}

/**
 * The match-end check of every hand (the fair_seed frame, sent after MatchEnded): the revealed
 * seed and salt open the commitment sent at the match's start (`matchCommit`, a fair_match
 * frame), and for each hand k sanma-wall-v1 rebuilds its deal from the seed, the deal hashes
 * to the wall_digest committed to at the hand's start (`commits[k]`, a fair_hand frame) and
 * that commitment opens with `seedFrame.hand_salts[k]`, and every tile this seat saw in the
 * hand (`events[k]`, as the socket sent them) is where the deal put it (checkSeen).
 * {result, hands, problems}: result "ok", "mismatch" (a commitment does not open), "seen"
 * (they all open, but a tile seen differs) or "unavailable" (no SHA-256 on this page: nothing
 * is said to be checked); `hands`: how many hands were checked; problems "hand k: ...".
 */
export async function checkMatch(matchCommit, seedFrame, commits, events, redFives = true) {
  const hands = seedFrame.hands;
  if (!canCheck()) return { result: "unavailable", hands, problems: [] };
  const opened = [];
  const seen = [];
  if (hex(await sha256(`${TAG}:${seedFrame.salt}:${seedFrame.seed}`)) !== matchCommit.commitment) {
    opened.push("the match commitment does not open with the revealed seed and salt");
  }
  for (let k = 0; k < hands; k++) {
    const deal = await dealFromSeed(seedFrame.seed, k);
    const commit = commits[k];
    if (commit) {
      if ((await dealDigest(deal)) !== commit.wall_digest) opened.push(`hand ${k}: the wall rebuilt from the seed is not the one committed to`);
      const salt = (seedFrame.hand_salts || [])[k];
      if (hex(await sha256(`${TAG}:${salt}:${commit.wall_digest}`)) !== commit.commitment) opened.push(`hand ${k}: the hand commitment does not open with its revealed salt`);
    }
    for (const problem of checkSeen(deal, events[k] || [], redFives)) seen.push(`hand ${k}: ${problem}`);
  }
  const result = opened.length ? "mismatch" : seen.length ? "seen" : "ok";
  return { result, hands, problems: [...opened, ...seen] };
}
