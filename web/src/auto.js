// Table toggles: answers the client gives on the player's behalf, always an action taken
// from the prompt's own legal list (the server still checks it like any click).
const KEY = "sanma.toggles";
export const TOGGLES = ["auto_win", "no_calls", "auto_riichi_discard", "auto_kita"];

export function loadToggles() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "{}");
    return Object.fromEntries(TOGGLES.map((name) => [name, saved[name] === true]));
  } catch {
    return Object.fromEntries(TOGGLES.map((name) => [name, false]));
  }
}

export function saveToggles(toggles) {
  localStorage.setItem(KEY, JSON.stringify(toggles));
}

/**
 * The action to take without asking, or null to let the player choose.
 * `inRiichi`: the player's riichi has been accepted this hand.
 */
export function autoAction(prompt, toggles, inRiichi) {
  if (!prompt) return null;
  const legal = prompt.legal;
  const find = (type) => legal.find((a) => a.type === type);
  const win = find("tsumo") || find("ron");
  if (win) return toggles.auto_win ? win : null; // a win on offer is never decided by the other toggles
  if (toggles.auto_kita && find("kita")) return find("kita");
  const discards = legal.filter((a) => a.type === "discard");
  if (!discards.length) {
    // A call window: skip it when every choice is a pon, a kan or the skip itself.
    const onlyCalls = legal.every((a) => a.type === "pon" || a.type === "kan" || a.type === "pass");
    return toggles.no_calls && onlyCalls ? find("pass") : null;
  }
  if (toggles.auto_riichi_discard && inRiichi) {
    // After riichi the drawn tile must go unless a kan or a kita is possible: only then ask.
    const others = legal.filter((a) => a.type !== "discard");
    if (discards.length === 1 && others.length === 0) return discards[0];
  }
  return null;
}
