// Friend rooms (docs/rooms.md): create a room or join one by code / invite link, the lobby
// (seats, host controls: bots with a level, start), then the match on the usual table; during
// the match a small bar shows each seat's presence and the turn timer with the time bank.
import { esc } from "./render/common.js";
import { t } from "./i18n.js";
import { seatName } from "./render/table.js";

const ROOM_KEY = "sanma.room";
const LEVELS = ["beginner", "normal", "expert", "master"];
const POLL_MS = 1500;

const room = {
  getToken: null,
  enterMatch: null,
  view: null, // null (closed) | "home" | "lobby"
  data: null, // the room as GET /api/rooms/{code} answers
  error: "",
  poll: null,
  options: { length: "east", red_fives: true },
  // During a room's match:
  presence: {},
  seat: null,
  spectator: false,
  prompt: null,
  tick: null,
};

async function call(method, path, body) {
  const headers = { "Content-Type": "application/json", Authorization: `Bearer ${room.getToken()}` };
  const r = await fetch(`/api/rooms${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  return { status: r.status, data };
}

// --- the sheet: create, join, lobby -----------------------------------------------------

function sheet() {
  let el = document.getElementById("rooms-sheet");
  if (!el) {
    el = document.createElement("div");
    el.id = "rooms-sheet";
    el.className = "overlay sheet rooms-sheet";
    el.hidden = true;
    el.setAttribute("role", "dialog");
    el.setAttribute("aria-modal", "true");
    document.getElementById("app").appendChild(el);
  }
  return el;
}

/** The start screen's entry point. */
export function roomsButtonHtml() {
  return `<button type="button" class="primary friends" data-room-cmd="open">👥 ${esc(t("rooms.open"))}</button>`;
}

function choice(name, value, current, label) {
  const on = String(current) === String(value);
  return `<button type="button" class="choice${on ? " on" : ""}" role="radio" aria-checked="${on}" data-room-opt="${name}" data-value="${value}">${esc(label)}</button>`;
}

function homeHtml() {
  const o = room.options;
  const lengths = ["one-hand", "east", "east-south"].map((v) => choice("length", v, o.length, t(`length.${v}`))).join("");
  const reds = ["true", "false"].map((v) => choice("red_fives", v, String(o.red_fives), t(`onoff.${v}`))).join("");
  return `
    <h2>${esc(t("rooms.title"))}</h2>
    <section class="rooms-create">
      <h3>${esc(t("rooms.create"))}</h3>
      <fieldset class="option"><legend>${esc(t("start.length"))}</legend><div class="choices" role="radiogroup">${lengths}</div></fieldset>
      <fieldset class="option"><legend>${esc(t("start.red_fives"))}</legend><div class="choices" role="radiogroup">${reds}</div></fieldset>
      <button type="button" class="primary" data-room-cmd="create">${esc(t("rooms.create_button"))}</button>
    </section>
    <section class="rooms-join">
      <h3>${esc(t("rooms.join"))}</h3>
      <label>${esc(t("rooms.code"))} <input id="room-code" autocomplete="off" autocapitalize="characters" maxlength="8" spellcheck="false"></label>
      <button type="button" class="primary" data-room-cmd="join">${esc(t("rooms.join_button"))}</button>
    </section>`;
}

function seatHtml(s, host) {
  let who;
  if (s.kind === "empty") who = t("rooms.empty");
  else if (s.kind === "bot") who = `🤖 ${t("rooms.bot")} · ${t(`level.${s.level}`)}`;
  else who = s.you ? t("rooms.you") : t("rooms.guest");
  const tags = [s.host ? `<span class="tag">${esc(t("rooms.host"))}</span>` : ""].join("");
  let controls = "";
  if (host && s.kind === "empty") {
    const options = LEVELS.map((l) => `<option value="${l}"${l === "normal" ? " selected" : ""}>${esc(t(`level.${l}`))}</option>`).join("");
    controls = `<select data-room-level="${s.seat}" aria-label="${esc(t("start.level"))}">${options}</select>
      <button type="button" class="ghost" data-room-cmd="add-bot" data-seat="${s.seat}">${esc(t("rooms.add_bot"))}</button>`;
  } else if (host && s.kind === "bot") {
    controls = `<button type="button" class="ghost" data-room-cmd="remove-bot" data-seat="${s.seat}">${esc(t("rooms.remove_bot"))}</button>`;
  }
  return `<li class="room-seat ${s.kind}" data-seat="${s.seat}"><span class="seat-no">${esc(t("rooms.seat", { n: s.seat + 1 }))}</span>
    <span class="who">${esc(who)}</span>${tags}<span class="controls">${controls}</span></li>`;
}

function lobbyHtml() {
  const r = room.data;
  const link = `${location.origin}${location.pathname}?room=${r.code}`;
  const isHost = r.you !== null && r.you === r.host;
  const full = r.seats.every((s) => s.kind !== "empty");
  if (r.status === "playing" && r.you === null) {
    return `
    <h2>${esc(t("rooms.lobby"))} ${esc(r.code)}</h2>
    <p class="hint">${esc(t("rooms.watch_hint"))}</p>
    <ul class="room-seats">${r.seats.map((s) => seatHtml(s, false)).join("")}</ul>
    <button type="button" class="primary" data-room-cmd="watch">👁 ${esc(t("rooms.watch"))}</button>`;
  }
  const start = isHost
    ? `<button type="button" class="primary" data-room-cmd="start"${full ? "" : " disabled"}>${esc(t("rooms.start"))}</button>
       ${full ? "" : `<p class="hint">${esc(t("rooms.fill_seats"))}</p>`}`
    : `<p class="hint">${esc(t("rooms.wait_host"))}</p>`;
  return `
    <h2>${esc(t("rooms.lobby"))}</h2>
    <p class="room-code">${esc(t("rooms.code"))}: <strong id="room-code-shown">${esc(r.code)}</strong></p>
    <p class="room-link"><input id="room-link" readonly value="${esc(link)}" aria-label="${esc(t("rooms.invite"))}">
      <button type="button" class="ghost" data-room-cmd="copy">${esc(t("rooms.copy"))}</button></p>
    <p class="hint">${esc(t(`length.${r.length}`))} · ${esc(t("start.red_fives"))}: ${esc(t(`onoff.${r.red_fives}`))} ·
      ⏱ ${esc(t("rooms.timers", { turn: r.timers.turn_s, bank: r.timers.bank_s }))}</p>
    <ul class="room-seats">${r.seats.map((s) => seatHtml(s, isHost)).join("")}</ul>
    ${start}
    <button type="button" class="ghost" data-room-cmd="leave">${esc(t("rooms.leave"))}</button>`;
}

function render() {
  const el = sheet();
  el.hidden = room.view === null;
  if (room.view === null) {
    el.innerHTML = "";
    return;
  }
  const body = room.view === "lobby" && room.data ? lobbyHtml() : homeHtml();
  el.innerHTML = `<div class="panel rooms-panel">
    <button type="button" class="ghost close" data-room-cmd="close" aria-label="${esc(t("rooms.close"))}">✕</button>
    ${body}<p class="error" role="alert">${esc(room.error)}</p></div>`;
}

function errorText(status, data) {
  const known = ["no_room", "room_full", "room_started", "rate_limited", "seat_taken", "not_ready", "not_host"];
  return known.includes(data.error) ? t(`rooms.error.${data.error}`) : t("rooms.error.other", { status });
}

async function answer(promise) {
  const { status, data } = await promise;
  if (status >= 400) {
    room.error = errorText(status, data);
    render();
    return null;
  }
  room.error = "";
  return data;
}

function showLobby(data) {
  room.data = data;
  room.view = "lobby";
  localStorage.setItem(ROOM_KEY, data.code);
  if (data.status === "playing" && data.match && data.you !== null) {
    closeSheet();
    room.enterMatch(data.match);
    return;
  }
  if (data.status !== "lobby") stopPoll(); // started without this guest: it may watch
  render();
  if (data.status !== "lobby") return;
  if (!room.poll) room.poll = setInterval(refresh, POLL_MS);
}

async function refresh() {
  if (room.view !== "lobby" || !room.data) return;
  const { status, data } = await call("GET", `/${room.data.code}`);
  if (room.view !== "lobby") return;
  if (status === 200) showLobby(data);
  else if (status === 404) {
    room.error = t("rooms.error.no_room");
    room.view = "home";
    localStorage.removeItem(ROOM_KEY);
    stopPoll();
    render();
  }
}

function stopPoll() {
  if (room.poll) clearInterval(room.poll);
  room.poll = null;
}

function closeSheet() {
  room.view = null;
  stopPoll();
  render();
}

async function join(code) {
  const clean = (code || "").trim().toUpperCase();
  if (!clean) return;
  room.view = "home";
  const joined = await call("POST", `/${encodeURIComponent(clean)}/join`);
  if (joined.status === 409 && joined.data.error === "room_started") {
    // Playing without this guest: offer to watch it (a hand behind).
    const seen = await call("GET", `/${encodeURIComponent(clean)}`);
    if (seen.status === 200 && seen.data.match) {
      room.error = "";
      showLobby(seen.data);
      return;
    }
  }
  const data = await answer(Promise.resolve(joined));
  if (data) showLobby(data);
}

async function onCommand(el) {
  const cmd = el.dataset.roomCmd;
  const code = room.data?.code;
  if (cmd === "open") {
    room.view = "home";
    room.error = "";
    render();
    document.getElementById("room-code")?.focus();
  } else if (cmd === "close") closeSheet();
  else if (cmd === "watch" && room.data?.match) {
    const match = room.data.match;
    closeSheet();
    room.enterMatch(match);
  }
  else if (cmd === "create") {
    const data = await answer(call("POST", "", { length: room.options.length, red_fives: room.options.red_fives }));
    if (data) showLobby(data);
  } else if (cmd === "join") await join(document.getElementById("room-code")?.value);
  else if (cmd === "copy") {
    const input = document.getElementById("room-link");
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      input.select(); // no clipboard permission: leave it selected for a manual copy
    }
    el.textContent = t("rooms.copied");
  } else if (cmd === "add-bot") {
    const level = document.querySelector(`[data-room-level="${el.dataset.seat}"]`)?.value || "normal";
    const data = await answer(call("POST", `/${code}/bots`, { seat: Number(el.dataset.seat), level }));
    if (data) showLobby(data);
  } else if (cmd === "remove-bot") {
    const data = await answer(call("DELETE", `/${code}/bots/${el.dataset.seat}`));
    if (data) showLobby(data);
  } else if (cmd === "start") {
    const data = await answer(call("POST", `/${code}/start`));
    if (data) showLobby(data);
  } else if (cmd === "leave") {
    await call("POST", `/${code}/leave`);
    localStorage.removeItem(ROOM_KEY);
    room.data = null;
    room.view = "home";
    stopPoll();
    render();
  }
}

document.addEventListener("click", (ev) => {
  const el = ev.target.closest?.("button");
  if (!el) return;
  if (el.dataset.roomCmd) onCommand(el);
  else if (el.dataset.roomOpt) {
    const name = el.dataset.roomOpt;
    room.options[name] = name === "red_fives" ? el.dataset.value === "true" : el.dataset.value;
    render();
  }
});

document.addEventListener("keydown", (ev) => {
  if (room.view === null) return;
  if (ev.key === "Escape") closeSheet();
  else if (ev.key === "Enter" && ev.target.id === "room-code") join(ev.target.value);
});

/** Hook the rooms up.  Returns `{match, lobby}`: `match` a room match this guest plays in (to
 * resume), `lobby` true when a lobby is open (an invite link, `/?room=CODE`, joins its room). */
export async function initRooms({ getToken, enterMatch }) {
  room.getToken = getToken;
  room.enterMatch = enterMatch;
  injectStyle();
  const params = new URLSearchParams(location.search);
  const invited = params.get("room");
  if (invited) {
    history.replaceState(null, "", location.pathname); // a reload must not join again
    await join(invited);
    return { match: null, lobby: true };
  }
  const saved = localStorage.getItem(ROOM_KEY);
  if (!saved) return { match: null, lobby: false };
  const { status, data } = await call("GET", `/${saved}`);
  if (status !== 200 || data.you === null) {
    localStorage.removeItem(ROOM_KEY);
    return { match: null, lobby: false };
  }
  if (data.status === "playing" && data.match) return { match: data.match, lobby: false };
  if (data.status === "lobby") {
    showLobby(data);
    return { match: null, lobby: true };
  }
  return { match: null, lobby: false };
}

// --- during the match: presence badges and the timer ----------------------------------------

function bar() {
  let el = document.getElementById("room-bar");
  if (!el) {
    el = document.createElement("span");
    el.id = "room-bar";
    el.className = "room-bar";
    el.setAttribute("aria-live", "off");
    document.getElementById("conn")?.after(el);
  }
  return el;
}

const BADGE = { connected: "🟢", away: "🟡", auto: "🤖", bot: "🤖" };

function renderBar() {
  const el = bar();
  if (room.seat === null) {
    el.hidden = true;
    el.innerHTML = "";
    return;
  }
  el.hidden = false;
  const watching = room.spectator ? `<span class="watching" data-testid="watching">👁 ${esc(t("rooms.watching"))}</span>` : "";
  const badges = [0, 1, 2]
    .filter((s) => (room.spectator || s !== room.seat) && room.presence[s])
    .map((s) => {
      const state = room.presence[s];
      const name = room.spectator ? t("rooms.seat", { n: s + 1 }) : seatName(s, room.seat);
      return `<span class="presence ${state}" data-presence-seat="${s}" data-state="${state}" title="${esc(t(`presence.${state}`))}">${BADGE[state]} ${esc(name)}: ${esc(t(`presence.${state}`))}</span>`;
    })
    .join("");
  let timer = "";
  if (room.prompt?.timer) {
    const elapsed = (performance.now() - room.prompt.at) / 1000;
    const turn = Math.max(0, room.prompt.timer.turn_s - elapsed);
    const bank = Math.max(0, room.prompt.timer.bank_s - Math.max(0, elapsed - room.prompt.timer.turn_s));
    const low = turn === 0 ? " low" : "";
    timer = `<span class="turn-timer${low}" id="turn-timer">⏱ ${Math.ceil(turn)}s <span class="bank">+${Math.ceil(bank)}s ${esc(t("rooms.bank"))}</span></span>`;
  }
  el.innerHTML = watching + badges + timer;
}

/** A room match's welcome (``kind: "room"``); any other match hides the bar. */
export function roomWelcome(w) {
  room.seat = w.kind === "room" ? w.seat : null;
  room.spectator = Boolean(w.spectator);
  room.presence = {};
  roomPrompt(null);
}

/** The open prompt (null once answered or expired): drives the timer display. */
export function roomPrompt(prompt) {
  room.prompt = prompt && prompt.timer ? { ...prompt, at: performance.now() } : null;
  if (room.tick) clearInterval(room.tick);
  room.tick = room.prompt ? setInterval(renderBar, 250) : null;
  renderBar();
}

/** A frame the table does not know: presence, or an expired prompt. Returns true when the
 * table's open prompt was withdrawn (its time ran out and the default was played). */
export function roomFrame(frame) {
  if (frame.t === "presence") {
    room.presence[frame.seat] = frame.state;
    renderBar();
    return false;
  }
  if (frame.t === "expired") {
    roomPrompt(null);
    return true;
  }
  return false;
}

/** Back to the start screen: no bar. */
export function roomLeave() {
  room.seat = null;
  roomPrompt(null);
}

function injectStyle() {
  if (document.getElementById("rooms-style")) return;
  const style = document.createElement("style");
  style.id = "rooms-style";
  style.textContent = `
    .rooms-panel { max-width: 34rem; width: 100%; position: relative; }
    .rooms-panel .close { position: absolute; top: .4rem; right: .4rem; }
    .rooms-panel section { margin: .8rem 0; }
    .rooms-panel input { font: inherit; padding: .35rem .5rem; border-radius: .4rem; border: 1px solid #8a9; }
    #room-code { text-transform: uppercase; letter-spacing: .15em; width: 8em; }
    #room-link { width: min(22rem, 70vw); }
    .room-code strong { font-size: 1.6rem; letter-spacing: .2em; }
    .room-seats { list-style: none; padding: 0; display: grid; gap: .4rem; }
    .room-seat { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; padding: .4rem .6rem; border-radius: .5rem; background: rgba(255,255,255,.08); }
    .room-seat .seat-no { font-weight: 600; min-width: 4.5em; }
    .room-seat .controls { margin-left: auto; display: flex; gap: .3rem; }
    .room-seat .tag { font-size: .8em; padding: 0 .4em; border-radius: .3em; background: #d4a72c; color: #222; }
    .friends { margin-top: .6rem; }
    .room-bar { display: inline-flex; gap: .6rem; align-items: center; flex-wrap: wrap; font-size: .85rem; }
    .room-bar .turn-timer { font-variant-numeric: tabular-nums; font-weight: 600; }
    .room-bar .turn-timer.low { color: #ffb347; }
    .room-bar .bank { opacity: .75; font-weight: 400; }
  `;
  document.head.appendChild(style);
}
