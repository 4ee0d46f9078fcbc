// The page's input: one dispatcher for clicks and one for keys, each reading a command table,
// and the pointer's wait preview over the hand. Every listener sits on the document (the
// screens redraw their buttons) and is registered when this module loads, after settings.js's
// and rooms.js's (main.js imports those first): the settings panel stops the keys it takes.
import { maybeAuto, nextHand, onButton, onTile, takeSeatBack } from "./actions.js";
import { $, app } from "./app.js";
import { saveToggles } from "./auto.js";
import { cycleSpeed, renderAids, renderGame, rerender } from "./game.js";
import { setLang } from "./i18n.js";
import { connect, leaveToStart, playPractice, rematch, withAccount } from "./match.js";
import { closeMenu, closeRules, menuPicked, openRules, renderRules, toggleMenu } from "./menu.js";
import { askLeave } from "./overlay.js";
import { actionButtons, HOTKEYS, myTiles } from "./render/table.js";
import { backToRoom, watching } from "./rooms.js";
import { quickAgain } from "./quick.js";
import { openSettings } from "./settings.js";
import { isMuted, setMuted } from "./sound.js";
import { setOption } from "./start.js";

// --- clicks -----------------------------------------------------------------------------------

/** What a button's `data-cmd` does (the start card, the top bar, the menu, the Rules sheet). */
const COMMANDS = {
  account: () => withAccount((a) => a.openAccount()),
  rules: () => openRules(),
  "close-rules": () => closeRules(),
  speed: () => cycleSpeed(),
  settings: () => {
    menuPicked();
    openSettings();
  },
  mute: () => {
    setMuted(!isMuted());
    renderGame();
  },
  play: () => playPractice(),
  resume: () => app.resumable && connect(app.resumable),
  menu: () => toggleMenu(),
  leave: () => {
    closeMenu();
    if (app.state.matchEnd || watching()) leaveToStart(); // a spectator has nothing to resume
    else askLeave(true); // asked in the page, not by the browser's confirm()
  },
};

/** What a panel's button (`data-panel`) does: a hand's or the match's end, the leave question. */
const PANEL = {
  "leave-yes": () => {
    app.confirmLeave = false;
    leaveToStart();
  },
  "leave-no": () => {
    askLeave(false);
    $("menu-btn").focus();
  },
  next: () => nextHand(),
  again: () => leaveToStart(),
  rematch: () => rematch(),
  follow: () => app.nextMatch && connect(app.nextMatch), // the room's next match, watched
  history: () => {
    leaveToStart();
    withAccount((a) => a.openAccount("history")); // the finished match is listed there with its replay
  },
  room: () => {
    leaveToStart();
    backToRoom(); // the room's lobby again, its seats kept, for a rematch
  },
  "quick-again": () => {
    leaveToStart();
    quickAgain(); // queued again with the same choices
  },
};

/** The command table of clicks: each data- attribute a button may carry (one of them), and
 * what a click does with its value - a command's name, or the argument of its command. */
const CLICKS = {
  lang: (code) => {
    setLang(code);
    rerender();
    if (app.rulesOpen) renderRules();
  },
  cmd: (name) => runNamed(COMMANDS, name),
  rulesGo: (section) => $(`rules-${section}`)?.scrollIntoView({ block: "start" }),
  toggle: (name) => {
    app.toggles[name] = !app.toggles[name];
    saveToggles(app.toggles);
    if (!maybeAuto()) renderGame();
  },
  opt: (name, el) => setOption(name, el.dataset.value),
  panel: (name) => runNamed(PANEL, name),
  action: (index) => onButton(Number(index)),
  i: (index) => onTile(Number(index), app.lastPointer || "mouse"),
};

/** `table[name]()`, when the table has that name (its own, not one every object has). */
function runNamed(table, name) {
  if (Object.hasOwn(table, name)) table[name]();
}

function onClick(ev) {
  const el = ev.target.closest("button");
  if (!el) return;
  const attr = Object.keys(CLICKS).find((name) => el.dataset[name]);
  if (attr) CLICKS[attr](el.dataset[attr], el);
}

// --- keys -------------------------------------------------------------------------------------

/** Move the keyboard's place along the hand (Left / Right), the tile focused. */
function moveFocus(step) {
  const n = app.state.hand ? myTiles(app.state).length : 0;
  const at = app.ui.focus === null ? (step > 0 ? -1 : n) : app.ui.focus;
  app.ui.focus = Math.max(0, Math.min(n - 1, at + step));
  renderGame();
  document.querySelector(`.hand-tile[data-i="${app.ui.focus}"]`)?.focus();
  return true;
}

/** Enter on a focused hand tile discards it. */
function discardFocused() {
  if (app.ui.focus === null || !document.activeElement?.classList.contains("hand-tile")) return false;
  onTile(app.ui.focus, "keyboard");
  return true;
}

/** An action's hotkey: its button pressed, when the prompt has one. */
function pressAction(type) {
  const b = actionButtons(app.prompt, app.ui).find((x) => x.type === type);
  if (!b) return false;
  onButton(b.index);
  return true;
}

/** The table's keys (lower case): moving along the hand, Enter, and each action's hotkey,
 * Escape being Skip too. */
const TABLE_KEYS = {
  arrowleft: () => moveFocus(-1),
  arrowright: () => moveFocus(1),
  enter: discardFocused,
};
for (const [type, key] of Object.entries(HOTKEYS)) TABLE_KEYS[key] ??= () => pressAction(type);
TABLE_KEYS.escape ??= () => pressAction("pass");

/** The command table of keys: layers from the top, each on while `on(ev)`, with its keys
 * (lower case); a key's handler answers whether it used the key (its default is then
 * prevented). The first layer on that has the key takes it; a `modal` layer takes every key. */
const KEY_LAYERS = [
  // Escape closes the menu first, not the prompt (Escape is also Pass) nor the match.
  {
    on: () => app.menuOpen,
    keys: {
      escape: () => {
        closeMenu();
        $("menu-btn").focus();
        return true;
      },
    },
  },
  { on: () => app.rulesOpen, modal: true, keys: { escape: () => closeRules() } },
  { on: () => app.confirmLeave, keys: { escape: () => askLeave(false) } },
  {
    on: (ev) => app.screen === "game" && !ev.ctrlKey && !ev.metaKey && !ev.altKey && $("overlay").hidden,
    keys: TABLE_KEYS,
  },
];

function onKey(ev) {
  const key = String(ev.key).toLowerCase();
  for (const layer of KEY_LAYERS) {
    if (!layer.on(ev)) continue;
    const run = Object.hasOwn(layer.keys, key) ? layer.keys[key] : null;
    if (run) {
      if (run(ev)) ev.preventDefault();
      return;
    }
    if (layer.modal) return;
  }
}

// --- the pointer --------------------------------------------------------------------------------

// The wait preview: pointing at a hand tile (mouse hover or keyboard focus) shows what its
// discard would leave; only the aids strip is redrawn, so the hovered tile stays in place.
function pointAt(ev) {
  const el = ev.target.closest?.(".hand-tile");
  const i = el ? Number(el.dataset.i) : null;
  if (ev.type === "pointerover" && ev.pointerType === "touch") return; // a tap raises instead
  if (app.ui.pointed === i) return;
  app.ui.pointed = i;
  renderAids();
}

function pointOff(ev) {
  if (ev.target.closest?.(".hand-tile") && !ev.relatedTarget?.closest?.(".hand-tile")) {
    app.ui.pointed = null;
    renderAids();
  }
}

// The open menu closes on a click anywhere outside it (its own button toggles it).  The
// path is the one at the click: a toggle in the menu is redrawn (detached) by then.
function clickOutsideMenu(ev) {
  if (app.menuOpen && !ev.composedPath().some((el) => el.id === "menu" || el.id === "menu-btn")) closeMenu();
}

document.addEventListener("click", onClick);
document.addEventListener("pointerdown", (ev) => {
  app.lastPointer = ev.pointerType;
});
// On autoplay, the first tap or key anywhere takes the seat back (before it does anything else).
document.addEventListener("pointerdown", takeSeatBack, true);
document.addEventListener("keydown", takeSeatBack, true);
document.addEventListener("pointerover", pointAt);
document.addEventListener("focusin", pointAt);
document.addEventListener("pointerout", pointOff);
document.addEventListener("click", clickOutsideMenu);
document.addEventListener("keydown", onKey);
