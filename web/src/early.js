// Started the moment the page has its token, before the table's module graph has loaded
// (index.html loads this module async): the guest's current match, and the socket to it with
// its hello already sent, so the first table waits for neither the round trip nor the
// handshake once the modules are in; and the look the guest had last time (tile back and
// cloth), so the table does not flash the default colours before the account answers.
import { currentMatch, storedToken } from "./api.js";

const LOOK_KEY = "sanma.look";

const token = storedToken();
/** {token, answer}: the current-match call started at load, or null without a stored token. */
export const earlyCurrent = token ? { token, answer: currentMatch(token) } : null;
earlyCurrent?.answer.catch(() => {}); // boot meets an error itself

/** {match, ws, frames}: the socket opened to the current match at load, and the frames it
 * received so far (text, in order); null once taken or without a current match. */
let earlySocket = null;
earlyCurrent?.answer.then(({ match }) => {
  if (!match) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws`);
  const early = { match, ws, frames: [] };
  // The hello of a fresh page: nothing folded yet (last_v 0), as conn.js would send it.
  ws.onopen = () => ws.send(JSON.stringify({ t: "hello", token, match, last_v: 0 }));
  ws.onmessage = (msg) => early.frames.push(msg.data);
  earlySocket = early;
}, () => {});

/** The socket opened at load, if it is to `match` and still open or opening, for the
 * table's connection to take over (conn.js); any other early socket is closed.  Called
 * with null when the page does not open that match. */
export function takeEarlySocket(match) {
  const early = earlySocket;
  earlySocket = null;
  if (!early) return null;
  if (early.match === match && early.ws.readyState <= WebSocket.OPEN) return early;
  early.ws.close();
  return null;
}

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
