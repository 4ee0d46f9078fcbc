// Started the moment the page has its token, before the table's module graph has loaded
// (index.html loads this module async): the guest's current match, so the first table waits
// for one round trip fewer, and the look the guest had last time (tile back and cloth), so the
// table does not flash the default colours before the account answers.
import { currentMatch, storedToken } from "./api.js";

const LOOK_KEY = "sanma.look";

const token = storedToken();
/** {token, answer}: the current-match call started at load, or null without a stored token. */
export const earlyCurrent = token ? { token, answer: currentMatch(token) } : null;
earlyCurrent?.answer.catch(() => {}); // boot meets an error itself

/** Keep the look just applied (CSS variables on the root, and its data attributes). */
export function rememberLook(vars, data) {
  localStorage.setItem(LOOK_KEY, JSON.stringify({ vars, data }));
}

function applyRememberedLook() {
  let look;
  try {
    look = JSON.parse(localStorage.getItem(LOOK_KEY) || "null");
  } catch {
    return; // a damaged entry: the account's answer sets the look soon
  }
  if (!look) return;
  const root = document.documentElement;
  for (const [name, value] of Object.entries(look.vars || {})) root.style.setProperty(name, String(value));
  Object.assign(root.dataset, look.data || {});
}

applyRememberedLook();
