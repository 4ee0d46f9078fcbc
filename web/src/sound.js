// The table's sounds, synthesised with WebAudio by our own code (no sound files): a discard's
// click, a call's two notes, riichi's rising tone, a win's chord, a bell for your turn and a
// tick for the timer's last seconds.  Browsers let audio start only after a user gesture, so
// the AudioContext is made at the first pointer or key press; before that nothing plays.
// Mute and the volume (0-100, the settings panel's slider) are remembered (localStorage
// `sanma.mute`, `sanma.volume`); every sound goes through one gain node set to the volume.

const MUTE_KEY = "sanma.mute";
const VOLUME_KEY = "sanma.volume";
const DEFAULT_VOLUME = 70;
let ctx = null;
let master = null; // the gain every sound passes through: the volume
let muted = localStorage.getItem(MUTE_KEY) === "1";
let volume = savedVolume();

/** The remembered volume, or the default when none (or nonsense) is saved. */
function savedVolume() {
  const saved = localStorage.getItem(VOLUME_KEY);
  const n = saved === null ? NaN : Number(saved);
  return Number.isInteger(n) && n >= 0 && n <= 100 ? n : DEFAULT_VOLUME;
}

/** Make the audio context at the page's first gesture (once). */
export function initSound() {
  const start = () => {
    if (ctx) return;
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      ctx = new Ctx();
      master = ctx.createGain();
      master.gain.value = volume / 100;
      master.connect(ctx.destination);
    } catch {
      ctx = null; // no audio device: the game stays silent
    }
  };
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, start, { capture: true });
}

export function isMuted() {
  return muted;
}

export function setMuted(on) {
  muted = Boolean(on);
  localStorage.setItem(MUTE_KEY, muted ? "1" : "0");
}

/** The volume, 0 (silent) to 100. */
export function getVolume() {
  return volume;
}

/** Set and remember the volume (0-100; anything else is a TypeError). */
export function setVolume(n) {
  if (!Number.isInteger(n) || n < 0 || n > 100) throw new TypeError(`a volume is an integer 0-100, not ${n}`);
  volume = n;
  localStorage.setItem(VOLUME_KEY, String(n));
  if (master) master.gain.value = n / 100;
}

/** What the sounds pass through now (tests read its gain): null before the first gesture. */
export function outputGain() {
  return master ? master.gain.value : null;
}

/** One enveloped oscillator: `type` wave at `freq` Hz (gliding to `to`), from `at` s for `len` s. */
function tone({ type = "sine", freq, to = null, at = 0, len = 0.12, gain = 0.18 }) {
  const t0 = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, t0 + len);
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.008);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + len);
  osc.connect(amp).connect(master);
  osc.start(t0);
  osc.stop(t0 + len + 0.02);
}

/** A short burst of filtered noise: the clack of a tile put down. */
function clack(at = 0, gain = 0.25) {
  const len = 0.05;
  const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * len), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const src = ctx.createBufferSource();
  const band = ctx.createBiquadFilter();
  const amp = ctx.createGain();
  src.buffer = buffer;
  band.type = "bandpass";
  band.frequency.value = 2400;
  band.Q.value = 1.2;
  amp.gain.value = gain;
  src.connect(band).connect(amp).connect(master);
  src.start(ctx.currentTime + at);
}

const SOUNDS = {
  discard: () => {
    clack();
    tone({ type: "triangle", freq: 520, len: 0.06, gain: 0.06 });
  },
  call: () => {
    tone({ type: "square", freq: 440, len: 0.09, gain: 0.07 });
    tone({ type: "square", freq: 660, at: 0.1, len: 0.12, gain: 0.07 });
  },
  riichi: () => {
    tone({ type: "sawtooth", freq: 330, to: 990, len: 0.28, gain: 0.06 });
    clack(0.28, 0.3);
  },
  win: () => {
    [523, 659, 784, 1047].forEach((f, i) => tone({ type: "triangle", freq: f, at: i * 0.08, len: 0.45, gain: 0.12 }));
  },
  turn: () => {
    tone({ freq: 880, len: 0.25, gain: 0.08 });
    tone({ freq: 1320, at: 0.02, len: 0.2, gain: 0.03 });
  },
  tick: () => tone({ type: "square", freq: 1200, len: 0.04, gain: 0.05 }),
};

/** Play sound `name` unless muted, at volume 0, or before the first gesture. */
export function play(name) {
  if (muted || volume === 0 || !ctx || !SOUNDS[name]) return;
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  SOUNDS[name]();
}
