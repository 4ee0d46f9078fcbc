// Provably fair walls (sanma-fair-v1, docs/engine.md and docs/protocol.md "Fair walls"):
// SHA-256 through crypto.subtle, the sanma-wall-v1 shuffle, and the checks of the server's
// commitments. crypto.subtle exists only on a secure page (https or localhost): without it
// every check answers "unavailable", never "ok".

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

/** Check a hand's reveal against its commitment frame: "ok", "mismatch" or "unavailable". */
export async function checkReveal(commit, reveal) {
  if (!canCheck()) return "unavailable";
  const digest = await dealDigest(reveal.deal);
  const opened = hex(await sha256(`sanma-fair-v1:${reveal.salt}:${commit.wall_digest}`));
  return digest === commit.wall_digest && opened === commit.commitment ? "ok" : "mismatch";
}

/** Check the match-end reveal: the commitment opens and every revealed deal is rebuilt. */
export async function checkSeed(matchCommit, seedFrame, reveals) {
  if (!canCheck()) return "unavailable";
  const opened = hex(await sha256(`sanma-fair-v1:${seedFrame.salt}:${seedFrame.seed}`));
  if (opened !== matchCommit.commitment) return "mismatch";
  for (const reveal of reveals) {
    const rebuilt = await dealFromSeed(seedFrame.seed, reveal.hand);
    if (JSON.stringify(rebuilt) !== JSON.stringify(reveal.deal)) return "mismatch";
  }
  return "ok";
}
