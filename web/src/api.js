// HTTP calls (docs/protocol.md "Before the socket").  The guest token lives in localStorage.

const TOKEN_KEY = "sanma.token";

async function request(method, path, token, body) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  return { status: r.status, data };
}

/** The stored guest token, creating a guest on the first visit. */
export async function ensureToken() {
  const saved = localStorage.getItem(TOKEN_KEY);
  if (saved) return saved;
  return newToken();
}

export async function newToken() {
  const { status, data } = await request("POST", "/api/guest");
  if (status !== 201) throw new Error(`guest ${status}`);
  localStorage.setItem(TOKEN_KEY, data.token);
  return data.token;
}

/** The match this guest is still playing, or null; {unauthorized: true} for a lost token. */
export async function currentMatch(token) {
  const { status, data } = await request("GET", "/api/practice/current", token);
  if (status === 401) return { unauthorized: true };
  return { match: data.match ?? null };
}

export async function startPractice(token, options) {
  const { status, data } = await request("POST", "/api/practice", token, options);
  if (status !== 201) throw new Error(data.detail || `practice ${status}`);
  return data;
}
