// Tile faces drawn as SVG by our own code: pips for circles, sticks for bamboo, a numeral
// with a drawn "ten thousand" mark for characters, letters for winds, emblems for dragons.
// A red five carries a star in its corner so it is recognisable without colour.

const W = 60;
const H = 80;
const BLUE = "#1d4f91";
const GREEN = "#1f7a3a";
const RED = "#c62f2f";
const INK = "#1d2433";

const PIN_SPOTS = {
  1: [[30, 40, 17]],
  2: [[30, 23, 11], [30, 57, 11]],
  3: [[16, 19, 9], [30, 40, 9], [44, 61, 9]],
  4: [[19, 24, 9.5], [41, 24, 9.5], [19, 56, 9.5], [41, 56, 9.5]],
  5: [[17, 20, 8.5], [43, 20, 8.5], [30, 40, 8.5], [17, 60, 8.5], [43, 60, 8.5]],
  6: [[20, 18, 8], [40, 18, 8], [20, 40, 8], [40, 40, 8], [20, 62, 8], [40, 62, 8]],
  7: [[15, 14, 6.5], [30, 22, 6.5], [45, 30, 6.5], [20, 47, 7], [40, 47, 7], [20, 65, 7], [40, 65, 7]],
  8: [[20, 14, 7], [40, 14, 7], [20, 31, 7], [40, 31, 7], [20, 49, 7], [40, 49, 7], [20, 66, 7], [40, 66, 7]],
  9: [15, 30, 45].flatMap((x) => [19, 40, 61].map((y) => [x, y, 7])),
};

// Bamboo sticks: [x centre, y top, height].
const SOU_STICKS = {
  2: [[30, 12, 24], [30, 44, 24]],
  3: [[30, 12, 24], [19, 44, 24], [41, 44, 24]],
  4: [[20, 12, 24], [40, 12, 24], [20, 44, 24], [40, 44, 24]],
  5: [[17, 12, 24], [43, 12, 24], [30, 28, 24], [17, 44, 24], [43, 44, 24]],
  6: [15, 30, 45].flatMap((x) => [[x, 12, 24], [x, 44, 24]]),
  7: [[30, 8, 18], ...[15, 30, 45].flatMap((x) => [[x, 31, 18], [x, 53, 18]])],
  8: [12, 24, 36, 48].flatMap((x) => [[x, 12, 24], [x, 44, 24]]),
  9: [15, 30, 45].flatMap((x) => [[x, 8, 18], [x, 31, 18], [x, 54, 18]]),
};

function pip(x, y, r, color) {
  return (
    `<circle cx="${x}" cy="${y}" r="${r}" fill="${color}"/>` +
    `<circle cx="${x}" cy="${y}" r="${r * 0.68}" fill="none" stroke="#fff" stroke-width="${r * 0.16}"/>` +
    `<circle cx="${x}" cy="${y}" r="${r * 0.28}" fill="#fff"/>`
  );
}

function pinFace(n, red) {
  return PIN_SPOTS[n]
    .map(([x, y, r], i) => {
      let color = BLUE;
      if (red) color = RED;
      else if (n === 1) color = RED;
      else if (n === 5 && i === 2) color = RED;
      else if (n === 7 && i < 3) color = GREEN;
      else if (n === 9 && (i === 1 || i === 4 || i === 7)) color = RED;
      else if (n === 3 && i === 1) color = RED;
      else if (n === 6 && i >= 2) color = RED;
      else if (n === 8 && i % 2 === 1) color = GREEN;
      return pip(x, y, r, color);
    })
    .join("");
}

function stick(x, y, h, color) {
  const w = 7;
  const mid = y + h / 2;
  return (
    `<rect x="${x - w / 2}" y="${y}" width="${w}" height="${h}" rx="3" fill="${color}"/>` +
    `<line x1="${x - w / 2}" x2="${x + w / 2}" y1="${mid}" y2="${mid}" stroke="#fff" stroke-width="1.4"/>` +
    `<line x1="${x}" x2="${x}" y1="${y + 3}" y2="${y + h - 3}" stroke="#fff" stroke-opacity=".45" stroke-width="1"/>`
  );
}

function souFace(n, red) {
  if (n === 1) {
    // The one of bamboo: a bird-like emblem of our own (body, wing, tail feathers).
    return (
      `<path d="M30 14 C44 18 46 34 36 42 C46 46 46 62 30 66 C14 62 14 46 24 42 C14 34 16 18 30 14 Z" fill="${GREEN}"/>` +
      `<circle cx="30" cy="28" r="5" fill="${RED}"/><circle cx="30" cy="28" r="1.8" fill="#fff"/>` +
      `<path d="M22 50 L30 60 L38 50" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/>` +
      `<path d="M30 42 L30 66" stroke="#fff" stroke-width="1.6"/>`
    );
  }
  return SOU_STICKS[n]
    .map(([x, y, h], i) => {
      let color = GREEN;
      if (red) color = RED;
      else if (n === 5 && i === 2) color = RED;
      else if (n === 7 && i === 0) color = RED;
      else if (n === 9 && i >= 3 && i < 6) color = RED;
      else if (n === 8 && (i === 2 || i === 5)) color = BLUE;
      return stick(x, y, h, color);
    })
    .join("");
}

function manFace(n) {
  // Big numeral above a drawn ten-thousand mark (our own strokes, no font glyph needed).
  return (
    `<text x="30" y="38" text-anchor="middle" font-family="Georgia, 'DejaVu Serif', serif" font-weight="700" ` +
    `font-size="34" fill="${INK}">${n}</text>` +
    `<g fill="none" stroke="${RED}" stroke-width="4" stroke-linecap="round" stroke-linejoin="round">` +
    `<path d="M14 47 H46"/><path d="M26 47 C25 58 21 66 14 71"/><path d="M25 56 H42 C42 64 40 69 34 71"/></g>`
  );
}

const WIND_LETTERS = { 1: "E", 2: "S", 3: "W", 4: "N" };

function honorFace(n) {
  if (n <= 4) {
    return (
      `<text x="30" y="53" text-anchor="middle" font-family="Georgia, 'DejaVu Serif', serif" font-weight="700" ` +
      `font-size="40" fill="${INK}">${WIND_LETTERS[n]}</text>` +
      `<path d="M30 62 l4 6 h-8 z" fill="${n === 1 ? RED : INK}"/>`
    );
  }
  if (n === 5) {
    return `<rect x="13" y="15" width="34" height="50" rx="3" fill="none" stroke="${BLUE}" stroke-width="3.5"/>` +
      `<rect x="19" y="21" width="22" height="38" rx="2" fill="none" stroke="${BLUE}" stroke-width="1.5"/>`;
  }
  if (n === 6) {
    // Green dragon: our own brush-stroke drawing of the character 發 (top strokes, a bar,
    // a bow on the left, a hand on the right), so it can never pass for the 1 of bamboo.
    return (
      `<g fill="none" stroke="${GREEN}" stroke-width="3.6" stroke-linecap="round" stroke-linejoin="round">` +
      `<path d="M13 14 H24 L16 25"/><path d="M19 19 L27 26"/><path d="M35 12 L38 16"/><path d="M32 18 H46"/>` +
      `<path d="M39 18 L48 27"/><path d="M11 31 H49"/>` +
      `<path d="M14 37 H26 V45 H15 V53 H27 C27 62 25 66 19 68"/>` +
      `<path d="M35 36 H42 V42 C42 45 44 46 47 46"/><path d="M34 36 C34 42 33 45 31 47"/>` +
      `<path d="M32 52 H45 C42 60 38 64 32 68"/><path d="M36 56 C39 62 43 66 48 68"/></g>`
    );
  }
  // Red dragon: a box crossed by one upright stroke.
  return (
    `<g stroke="${RED}" stroke-width="5" stroke-linecap="round" fill="none">` +
    `<rect x="13" y="28" width="34" height="22" rx="2"/><path d="M30 12 V70"/></g>`
  );
}

const cache = new Map();

/** SVG markup of the face of a wire tile ("1m", "0p", "7z"); "?" is a tile back. */
export function tileSvg(tile) {
  if (cache.has(tile)) return cache.get(tile);
  let body;
  if (tile === "?" || !tile) {
    body =
      `<rect x="1" y="1" width="${W - 2}" height="${H - 2}" rx="7" fill="url(#tile-back)"/>` +
      `<rect x="7" y="7" width="${W - 14}" height="${H - 14}" rx="4" fill="none" stroke="#ffe6b0" stroke-opacity=".55" stroke-width="2"/>` +
      `<path d="M30 22 L40 40 L30 58 L20 40 Z" fill="#ffe6b0" fill-opacity=".45"/>`;
    // The gradient is defined once in index.html (#tile-back), always rendered: a copy in
    // each back would repeat one id, and url(#id) finds the first, maybe in a hidden screen.
  } else {
    const digit = Number(tile[0]);
    const suit = tile[1];
    const red = digit === 0;
    const n = red ? 5 : digit;
    let face = "";
    if (suit === "m") face = manFace(n);
    else if (suit === "p") face = pinFace(n, red);
    else if (suit === "s") face = souFace(n, red);
    else face = honorFace(n);
    const star = red
      ? `<path d="M50 4 l2.2 4.6 5 .6 -3.7 3.4 1 5 -4.5-2.5 -4.5 2.5 1-5 -3.7-3.4 5-.6 z" fill="${RED}" stroke="#fff" stroke-width=".8"/>`
      : "";
    body = `<rect x="1" y="1" width="${W - 2}" height="${H - 2}" rx="7" fill="#fbf7ec"/>` + face + star;
  }
  const svg = `<svg viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false">${body}</svg>`;
  cache.set(tile, svg);
  return svg;
}

/** The i18n key and number for a tile's spoken name. */
export function tileNameParts(tile) {
  if (tile === "?" || !tile) return { key: "tile.hidden", n: 0, red: false };
  const digit = Number(tile[0]);
  const suit = tile[1];
  const red = digit === 0;
  const n = red ? 5 : digit;
  if (suit === "z") return { key: `tile.z${n}`, n, red };
  return { key: `tile.${suit}`, n, red };
}
