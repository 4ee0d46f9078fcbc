// Motion that helps reading the table: the drawn tile arriving, a discard travelling to its
// river, call-outs ("Pon!", "Riichi!", "Ron!") over the caller, the riichi tile turning, a
// new dora turning up, your turn starting.  Run after the render that shows the change, on
// the new elements, with the Web Animations API (no inline styles: the page's content
// security policy allows none).  Short (about 150-300 ms at normal speed), shorter at fast,
// none at instant and none when the system asks for reduced motion.  The speed is the
// player's animation setting (settings panel), apart from the bots' pace: fast bots with
// full motion, or slow bots with none, are both fine choices.
import { html, nodeOf } from "./render/common.js";

const BASE_MS = { normal: 240, fast: 150, instant: 0 };
const CALLOUT_MS = { normal: 900, fast: 600, instant: 450 };
export const MOTION_SPEEDS = Object.keys(BASE_MS);
const MOTION_KEY = "sanma.motion";

/** The remembered animation speed ("normal", "fast" or "instant": none). */
export function motionSpeed() {
  const saved = localStorage.getItem(MOTION_KEY);
  return MOTION_SPEEDS.includes(saved) ? saved : "normal";
}

/** Remember the animation speed (one of MOTION_SPEEDS, else a TypeError). */
export function setMotionSpeed(speed) {
  if (!MOTION_SPEEDS.includes(speed)) throw new TypeError(`an animation speed is one of ${MOTION_SPEEDS.join(", ")}, not ${speed}`);
  localStorage.setItem(MOTION_KEY, speed);
}

const reduce = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

/** Whether anything may move: not at "instant", not under prefers-reduced-motion. */
export function motionOn(speed) {
  return BASE_MS[speed] > 0 && !(reduce && reduce.matches);
}

function animate(el, frames, ms, delay = 0) {
  if (!el || typeof el.animate !== "function") return;
  el.animate(frames, { duration: ms, delay, easing: "cubic-bezier(.2,.8,.3,1)", fill: "backwards" });
}

/** Where a seat sits on screen: the opponent's box, or your own area. */
function seatBox(seat, me) {
  if (seat === me) return document.querySelector(".me-area .hand") || document.querySelector(".me-area");
  return document.querySelector(`.opponent[data-seat="${seat}"]`);
}

/** The direction a seat's discards come from (you at the bottom, the next seat right). */
function fromOffset(seat, me, dist) {
  const side = (seat - me + 3) % 3;
  if (side === 0) return [0, dist];
  return side === 1 ? [dist, 0] : [-dist, 0];
}

/** A word shown over the caller for a moment ("Pon!"); informative, so it shows even
 * when nothing may move, only without the pop. */
export function callout(text, seat, me, speed, kind) {
  const box = seatBox(seat, me);
  const game = document.getElementById("game");
  if (!box || !game) return null;
  const r = box.getBoundingClientRect();
  const g = game.getBoundingClientRect();
  const el = nodeOf(html`<div class="callout callout-${kind}" data-testid="callout" data-kind="${kind}" data-seat="${seat}" role="status">${text}</div>`);
  game.appendChild(el);
  // Centred on the caller, but never past the table's edge: a word wider than a box at the
  // edge (an opponent's, on a phone) stuck out of it.  The pop grows it by 15%.
  const within = (at, size, room) => Math.max(size, Math.min(room - size, at));
  const x = within(r.left - g.left + r.width / 2, (el.offsetWidth * 1.15) / 2 + 6, g.width);
  const y = within(r.top - g.top + Math.min(r.height / 2, 60), (el.offsetHeight * 1.15) / 2 + 6, g.height);
  el.style.left = `${x}px`;
  el.style.top = `${y}px`;
  if (motionOn(speed)) {
    animate(el, [{ transform: "translate(-50%, -50%) scale(.4)", opacity: 0 }, { transform: "translate(-50%, -50%) scale(1.15)", opacity: 1, offset: 0.6 },
      { transform: "translate(-50%, -50%) scale(1)", opacity: 1 }], BASE_MS[speed]);
  }
  setTimeout(() => el.remove(), CALLOUT_MS[speed] || CALLOUT_MS.normal);
  return el;
}

/** Play the effects gathered since the last render (`fx`: [{kind, seat, ...}]). */
export function runEffects(fx, { me, speed, t }) {
  const move = motionOn(speed);
  const ms = BASE_MS[speed] || 0;
  for (const f of fx) {
    if (f.say) callout(t(`callout.${f.say}`), f.seat, me, speed, f.say);
    if (!move) continue;
    if (f.kind === "draw") {
      animate(document.querySelector(".hand-tile.drawn"), [{ transform: "translateY(-40%)", opacity: 0 }, { transform: "none", opacity: 1 }], ms);
    } else if (f.kind === "discard") {
      const tile = document.querySelector(`.river[data-seat="${f.seat}"] .tile.last`);
      const [dx, dy] = fromOffset(f.seat, me, 70);
      const turn = f.riichi ? " rotate(0deg)" : "";
      const end = f.riichi ? "rotate(90deg)" : "none";
      animate(tile, [{ transform: `translate(${dx}px, ${dy}px) scale(1.25)${turn}`, opacity: 0.2 }, { transform: end, opacity: 1 }], ms);
    } else if (f.kind === "call") {
      const melds = f.seat === me ? document.querySelectorAll(".my-melds .meld") : document.querySelectorAll(`.opponent[data-seat="${f.seat}"] .meld`);
      const meld = melds[melds.length - 1];
      if (f.call !== "kita") animate(meld, [{ transform: "scale(1.3)", opacity: 0 }, { transform: "none", opacity: 1 }], ms);
    } else if (f.kind === "riichi") {
      animate(document.querySelector(".centre .counters"), [{ transform: "scale(1.25)" }, { transform: "none" }], ms);
      const badge = document.querySelector(`.opponent[data-seat="${f.seat}"] .riichi-badge`);
      animate(badge, [{ transform: "scale(.2)", opacity: 0 }, { transform: "none", opacity: 1 }], ms);
    } else if (f.kind === "dora") {
      const doras = document.querySelectorAll(".centre .doras .tile");
      animate(doras[doras.length - 1], [{ transform: "perspective(200px) rotateY(90deg)" }, { transform: "none" }], ms);
    } else if (f.kind === "turn") {
      // Transform only (no shadow animation): the compositor moves the hand, nothing repaints.
      animate(document.querySelector(".me-area .hand"), [{ transform: "translateY(8px)" }, { transform: "none" }], ms);
    } else if (f.kind === "panel") {
      animate(document.querySelector("#overlay .panel"), [{ transform: "scale(.94)", opacity: 0 }, { transform: "none", opacity: 1 }], ms, f.delay ? ms : 0);
    }
  }
}

/** The effects one wire event brings, for the seat `me` (empty for most). */
export function effectsOf(e, me) {
  switch (e.type) {
    case "TileDrawn":
      return e.seat === me ? [{ kind: "draw", seat: me }] : [];
    case "TileDiscarded":
      // The riichi declaration is said with its discard; the stick lands when it is accepted.
      return [{ kind: "discard", seat: e.seat, riichi: Boolean(e.riichi), say: e.riichi ? "riichi" : null, sound: e.riichi ? "riichi" : "discard" }];
    case "MeldCalled":
      return [{ kind: "call", seat: e.seat, call: e.meld.type, say: e.meld.type === "pon" ? "pon" : "kan", sound: "call" }];
    case "KitaDeclared":
      return [{ kind: "call", seat: e.seat, call: "kita", say: "kita", sound: "call" }];
    case "RiichiAccepted":
      return [{ kind: "riichi", seat: e.seat }];
    case "DoraRevealed":
      return [{ kind: "dora" }];
    case "HandWon":
      return [{ kind: "win", seat: e.seat, say: e.seat === e.from_seat ? "tsumo" : "ron", sound: "win" }, { kind: "panel", delay: true }];
    case "HandDrawn":
    case "HandAborted":
    case "MatchEnded":
      return [{ kind: "panel" }];
    default:
      return [];
  }
}
