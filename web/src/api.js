// HTTP calls (docs/protocol.md "Before the socket"): the one fetch wrapper of the client and the
// one place that holds the guest token: this page's (`sessionToken`), and the browser's kept
// under TOKEN_KEY in localStorage for the next visit.

export const TOKEN_KEY = "sanma.token";

// This page's token, once boot has it (ensureToken) or the player switched account (saveToken);
// another tab's switch changes the stored one, not this page's.
let session = null;

/** The token kept in this browser, or null. */
export function storedToken() {
  return localStorage.getItem(TOKEN_KEY);
}

/** The token this page plays with: every call, socket and sheet asks here. */
export function sessionToken() {
  return session;
}

/** Keep `token` as this page's and this browser's guest token. */
export function saveToken(token) {
  session = token;
  localStorage.setItem(TOKEN_KEY, token);
}

/**
 * One HTTP call; resolves to {status, data} (data: the JSON answer, or {} when it is not JSON).
 * `body` is sent as JSON; `raw` (a string or Blob) is sent as it is (a log file); `blob: true`
 * answers with `data` as a Blob (a download).
 */
export async function request(method, path, { token = null, body, raw, blob = false } = {}) {
  const headers = {};
  if (body !== undefined || raw !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const sent = raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body);
  let r;
  try {
    r = await fetch(path, { method, headers, body: sent });
  } catch {
    return { status: 0, data: { error: "offline" } };
  }
  if (blob && r.ok) return { status: r.status, data: await r.blob() };
  const data = await r.json().catch(() => ({}));
  return { status: r.status, data };
}

/** The stored guest token, creating a guest on the first visit. */
export async function ensureToken() {
  const saved = storedToken();
  if (!saved) return newToken();
  session = saved;
  return saved;
}

export async function newToken() {
  const { status, data } = await request("POST", "/api/guest");
  if (status !== 201) throw new Error(`guest ${status}`);
  saveToken(data.token);
  return data.token;
}

/** The match this guest is still playing, or null; {unauthorized: true} for a lost token. */
export async function currentMatch(token) {
  const { status, data } = await request("GET", "/api/practice/current", { token });
  if (status === 401) return { unauthorized: true };
  return { match: data.match ?? null };
}

export async function startPractice(token, options) {
  const { status, data } = await request("POST", "/api/practice", { token, body: options });
  if (status !== 201) throw new Error(data.detail || `practice ${status}`);
  return data;
}
