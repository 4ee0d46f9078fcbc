// Friend rooms (docs/rooms.md): create a room or join one by code / invite link, the lobby
// (seats, host controls: bots with a level, start), then the match on the usual table; during
// the match a small bar shows each seat's presence, and the turn timer with the time bank sits
// beside the hand.  An invited friend without a name is asked once for one.  A spectator's
// bar names the seats as buttons: the one pressed is drawn at the bottom.
import { request, sessionToken } from "./api.js";
import { html, mount, nodeOf } from "./render/common.js";
import { icon } from "./icons.js";
import { t } from "./i18n.js";
import { seatName, setPlayers, statusSpot } from "./render/table.js";

const ROOM_KEY = "sanma.room";
const VIEW_KEY = "sanma.watch-seat"; // sessionStorage: the seat a spectator keeps at the bottom
const LEVELS = ["beginner", "normal", "expert", "master"];
const POLL_MS = 1500;
const NAME_ASKED_KEY = "sanma.name-asked"; // an invited friend is asked for a name once per browser

const room = {
  enterMatch: null,
  view: null, // null (closed) | "home" | "lobby"
  data: null, // the room as GET /api/rooms/{code} answers
  error: "",
  poll: null,
  options: { length: "east", red_fives: true, open_hands: false },
  viewFrom: null, // (seat) => the table redrawn from that seat (a spectator's choice)
  askName: false, // an invited friend without a name: the lobby asks for one (skippable)
  // During a room's match:
  presence: {},
  seat: null,
  spectator: false,
  openHands: false, // the spectator sees every tile, a hand behind (the host's choice)
  viewSeat: 0, // the spectator's seat at the bottom
  kind: null, // the match's kind at the table: "room" or "quick" (docs/quick.md), else null
  prompt: null,
  tick: null,
};

/** One call of the rooms API with this browser's token (api.js: the client's one fetch wrapper). */
function call(method, path, body) {
  return request(method, `/api/rooms${path}`, { token: sessionToken(), body });
}

// --- the sheet: create, join, lobby -----------------------------------------------------

function sheet() {
  let el = document.getElementById("rooms-sheet");
  if (!el) {
    el = nodeOf(html`<div id="rooms-sheet" class="overlay sheet rooms-sheet" hidden role="dialog" aria-modal="true" aria-labelledby="rooms-title"></div>`);
    document.getElementById("app").appendChild(el);
  }
  return el;
}

/** The start screen's entry point. */
export function roomsButtonHtml() {
  return html`<button type="button" class="primary friends" data-room-cmd="open">${icon("people")} ${t("rooms.open")}</button>`;
}

function choice(name, value, current, label) {
  const on = String(current) === String(value);
  return html`<button type="button" class="choice${on ? " on" : ""}" role="radio" aria-checked="${on}" data-room-opt="${name}" data-value="${value}">${label}</button>`;
}

function homeHtml() {
  const o = room.options;
  const lengths = ["one-hand", "east", "east-south"].map((v) => choice("length", v, o.length, t(`length.${v}`)));
  const reds = ["true", "false"].map((v) => choice("red_fives", v, String(o.red_fives), t(`onoff.${v}`)));
  const open = ["false", "true"].map((v) => choice("open_hands", v, String(o.open_hands), t(`rooms.open_hands.${v}`)));
  return html`
    <h2 id="rooms-title">${t("rooms.title")}</h2>
    <div class="rooms-body">
    <section class="rooms-create">
      <h3>${t("rooms.create")}</h3>
      <fieldset class="option"><legend>${t("start.length")}</legend><div class="choices" role="radiogroup">${lengths}</div></fieldset>
      <fieldset class="option"><legend>${t("start.red_fives")}</legend><div class="choices" role="radiogroup">${reds}</div></fieldset>
      <fieldset class="option"><legend>${t("rooms.open_hands")}</legend><div class="choices" role="radiogroup">${open}</div></fieldset>
      <button type="button" class="primary" data-room-cmd="create">${t("rooms.create_button")}</button>
    </section>
    <section class="rooms-join">
      <h3>${t("rooms.join")}</h3>
      <label class="room-join-row">${t("rooms.code")} <input id="room-code" autocomplete="off" autocapitalize="characters" maxlength="8" spellcheck="false"></label>
      <button type="button" class="primary" data-room-cmd="join">${t("rooms.join_button")}</button>
    </section>
    </div>`;
}

function seatHtml(s, host) {
  let who;
  if (s.kind === "empty") who = t("rooms.empty");
  else if (s.kind === "bot") who = `${t("rooms.bot")} · ${t(`level.${s.level}`)}`;
  else if (s.you) who = s.name ? `${s.name} · ${t("rooms.you")}` : t("rooms.you");
  else who = s.name || t("seat.player", { n: s.seat + 1 });
  const tags = s.host ? html`<span class="tag">${t("rooms.host")}</span>` : "";
  let controls = "";
  if (host && s.kind === "empty") {
    const options = LEVELS.map((l) => html`<option value="${l}"${l === "normal" ? " selected" : ""}>${t(`level.${l}`)}</option>`);
    const label = `${t("start.level")} · ${t("rooms.seat", { n: s.seat + 1 })}`;
    controls = html`<select data-room-level="${s.seat}" aria-label="${label}">${options}</select>
      <button type="button" class="ghost" data-room-cmd="add-bot" data-seat="${s.seat}">${t("rooms.add_bot")}</button>`;
  } else if (host && s.kind === "bot") {
    controls = html`<button type="button" class="ghost" data-room-cmd="remove-bot" data-seat="${s.seat}">${t("rooms.remove")}</button>`;
  } else if (host && s.kind === "human" && !s.you) {
    const label = t("rooms.remove_guest", { name: who });
    const heir = t("rooms.make_host_of", { name: who });
    controls = html`<button type="button" class="ghost" data-room-cmd="make-host" data-seat="${s.seat}" aria-label="${heir}">${t("rooms.make_host")}</button>
      <button type="button" class="ghost" data-room-cmd="remove-guest" data-seat="${s.seat}" aria-label="${label}">${t("rooms.remove")}</button>`;
  }
  return html`<li class="room-seat ${s.kind}" data-seat="${s.seat}"><span class="seat-no">${t("rooms.seat", { n: s.seat + 1 })}</span>
    ${s.kind === "bot" ? icon("bot") : ""}<span class="who">${who}</span>${tags}<span class="controls">${controls}</span></li>`;
}

/** The host's options in the lobby: small selects, changed on the server at once. */
function optionsHtml(r) {
  const select = (name, label, values, current, text) =>
    html`<select data-lobby-opt="${name}" aria-label="${label}">${values.map((v) => html`<option value="${v}"${String(v) === String(current) ? " selected" : ""}>${text(v)}</option>`)}</select>`;
  const length = select("length", t("start.length"), ["one-hand", "east", "east-south"], r.length, (v) => t(`length.${v}`));
  const reds = select("red_fives", t("start.red_fives"), ["true", "false"], r.red_fives, (v) => t(`onoff.${v}`));
  const open = select("open_hands", t("rooms.open_hands"), ["false", "true"], r.open_hands, (v) => t(`rooms.open_hands.${v}`));
  // The countdown between hands (docs/rooms.md, "Between hands").
  const pause = select("break_s", t("rooms.break_s"), [5, 10, 15, 30, 60], r.break_s ?? 15, (v) => t("rooms.break_s.n", { n: v }));
  // The turn timer (docs/rooms.md, "Turn timer"); not chosen yet: the server's, listed when
  // it is none of the choices (its value "" is never sent).
  const current = turnTimerOf(r);
  const timers = TURN_TIMERS.includes(current) ? TURN_TIMERS : ["", ...TURN_TIMERS];
  const clock = select("turn_timer", t("rooms.turn_timer"), timers, TURN_TIMERS.includes(current) ? current : "", (v) => turnTimerText(v || current));
  // One row per option, its name beside its select (a line of five wrapped mid-pair).
  const rows = [["start.length", length], ["start.red_fives", reds], ["rooms.open_hands", open], ["rooms.break_s", pause], ["rooms.turn_timer", clock]];
  return html`<span class="room-opts">${rows.map(([name, chooser]) => html`<label class="room-opt"><span>${t(name)}</span>${chooser}</label>`)}</span>`;
}

// The turn timers a host may choose (api/rooms.py TurnTimer): off, or turn + bank seconds.
const TURN_TIMERS = ["off", "5+10", "10+20", "20+40"];

/** The room's turn timer as "off" or "TURN+BANK" (the host's choice, else the server's). */
function turnTimerOf(r) {
  if (r.turn_timer) return r.turn_timer;
  return r.timers.turn_s === null ? "off" : `${r.timers.turn_s}+${r.timers.bank_s}`;
}

function turnTimerText(choice) {
  if (choice === "off") return t("rooms.turn_timer.off");
  const [turn, bank] = choice.split("+");
  return t("rooms.timers", { turn, bank });
}

/** The options as text, for everyone but the host. */
function optionsText(r) {
  return `${t(`length.${r.length}`)} · ${t("start.red_fives")}: ${t(`onoff.${r.red_fives}`)} · ${t("rooms.open_hands")}: ${t(`rooms.open_hands.${Boolean(r.open_hands)}`)} · ${t("rooms.break_s")}: ${t("rooms.break_s.n", { n: r.break_s ?? 15 })} · ${t("rooms.turn_timer")}: ${turnTimerText(turnTimerOf(r))}`;
}

async function changeOption(el) {
  const name = el.dataset.lobbyOpt;
  let value = name === "red_fives" || name === "open_hands" ? el.value === "true" : el.value;
  if (name === "break_s") value = Number(value);
  if (name === "turn_timer" && !value) return; // the server's own timers: nothing to choose
  const data = await answer(call("POST", `/${room.data.code}/options`, { [name]: value }));
  if (data) showLobby(data);
  else if (room.data) showLobby(room.data); // refused: show the room's options as they are
}

function lobbyHtml() {
  const r = room.data;
  const link = `${location.origin}${location.pathname}?room=${r.code}`;
  const isHost = r.you !== null && r.you === r.host;
  const full = r.seats.every((s) => s.kind !== "empty");
  if (r.status === "playing" && r.you === null) {
    return html`
    <h2 id="rooms-title">${t("rooms.lobby")} ${r.code}</h2>
    <p class="hint">${t(r.open_hands ? "rooms.watch_hint_open" : "rooms.watch_hint")}</p>
    <ul class="room-seats">${r.seats.map((s) => seatHtml(s, false))}</ul>
    <button type="button" class="primary" data-room-cmd="watch">${icon("eye")} ${t("rooms.watch")}</button>`;
  }
  const start = isHost
    ? html`<button type="button" class="primary" data-room-cmd="start"${full ? "" : " disabled"}>${t("rooms.start")}</button>
       ${full ? "" : html`<p class="hint">${t("rooms.fill_seats")}</p>`}`
    : html`<p class="hint">${t("rooms.wait_host")}</p>`;
  return html`
    <h2 id="rooms-title">${t("rooms.lobby")}</h2>
    ${room.askName ? nameAskHtml() : null}
    <div class="room-share">
      <p class="room-code"><span class="room-code-label">${t("rooms.code")}</span>
        <strong id="room-code-shown">${r.code}</strong>
        <button type="button" class="ghost" data-room-cmd="copy-code">${t("rooms.copy_code")}</button></p>
      <p class="room-link"><label for="room-link">${t("rooms.invite")}</label>
        <input id="room-link" readonly value="${link}">
        <button type="button" class="ghost" data-room-cmd="copy">${t("rooms.copy")}</button></p>
    </div>
    <p class="room-rules">${isHost ? optionsHtml(r) : optionsText(r)}</p>
    <ul class="room-seats">${r.seats.map((s) => seatHtml(s, isHost))}</ul>
    ${start}
    <div class="room-foot"><button type="button" class="ghost" data-room-cmd="leave">${t("rooms.leave")}</button></div>`;
}

/** The question an invited friend sees once: the name the table shows for its seat, saved
 * as the guest's display name (the account sheet changes it later), or skipped. */
function nameAskHtml() {
  return html`<div class="room-name-ask" data-testid="name-ask">
    <label for="room-name">${t("rooms.name_ask")}</label>
    <div class="room-join-row"><input id="room-name" maxlength="24" autocomplete="nickname" spellcheck="false">
      <button type="button" class="primary" data-room-cmd="name-save">${t("rooms.name_save")}</button>
      <button type="button" class="ghost" data-room-cmd="name-skip">${t("rooms.name_skip")}</button></div>
    <p class="hint">${t("rooms.name_hint")}</p></div>`;
}

/** Save the typed name as the guest's display name, then show the lobby with it. */
async function saveName(value) {
  const name = (value || "").trim();
  if (!name) return;
  const { status } = await request("POST", "/api/account/name", { token: sessionToken(), body: { name } });
  if (status !== 200) {
    room.error = t(status === 422 ? "rooms.error.bad_name" : "rooms.error.other", { status });
    render();
    return;
  }
  room.error = "";
  nameAsked();
  await refresh();
}

function nameAsked() {
  room.askName = false;
  localStorage.setItem(NAME_ASKED_KEY, "1");
  render();
  sheet().querySelector("[data-room-cmd=copy-code]")?.focus();
}

function render() {
  const el = sheet();
  el.hidden = room.view === null;
  if (room.view === null) {
    mount(el, html``);
    return;
  }
  const body = room.view === "lobby" && room.data ? lobbyHtml() : homeHtml();
  const panel = html`<div class="panel rooms-panel rooms-${room.view}">
    <button type="button" class="ghost close" data-room-cmd="close" aria-label="${t("rooms.close")}">${icon("close")}</button>
    ${body}<p class="error" role="alert">${room.error}</p></div>`;
  // The lobby polls every 1.5 s: an unchanged lobby is left alone, and a changed one keeps
  // the keyboard focus, the typed code and the bot levels being chosen.
  const kept = keepInputs(el);
  if (mount(el, panel)) restoreInputs(el, kept);
}

function keyOf(node) {
  if (!node || node === document.body) return null;
  if (node.id) return `#${node.id}`;
  for (const name of ["roomCmd", "roomOpt", "roomLevel", "lobbyOpt"]) {
    if (node.dataset?.[name] !== undefined) {
      const attr = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      const extra = node.dataset.seat !== undefined ? `[data-seat="${node.dataset.seat}"]` : node.dataset.value !== undefined ? `[data-value="${node.dataset.value}"]` : "";
      return `[data-${attr}="${node.dataset[name]}"]${extra}`;
    }
  }
  return null;
}

function keepInputs(el) {
  const active = el.contains(document.activeElement) ? keyOf(document.activeElement) : null;
  const levels = [...el.querySelectorAll("select[data-room-level]")].map((s) => [s.dataset.roomLevel, s.value]);
  return { active, levels, code: el.querySelector("#room-code")?.value, name: el.querySelector("#room-name")?.value };
}

function restoreInputs(el, kept) {
  for (const [seat, value] of kept.levels) {
    const select = el.querySelector(`select[data-room-level="${seat}"]`);
    if (select) select.value = value;
  }
  const code = el.querySelector("#room-code");
  if (code && kept.code) code.value = kept.code;
  const name = el.querySelector("#room-name");
  if (name && kept.name) name.value = kept.name;
  if (kept.active) el.querySelector(kept.active)?.focus();
}

function errorText(status, data) {
  const known = ["no_room", "room_full", "room_started", "rate_limited", "seat_taken", "not_ready", "not_host", "removed"];
  return known.includes(data.error) ? t(`rooms.error.${data.error}`) : t("rooms.error.other", { status });
}

async function answer(promise) {
  const { status, data } = await promise;
  if (status === 0 || status >= 400) { // 0: the network failed (api.js)
    room.error = errorText(status, data);
    render();
    return null;
  }
  room.error = "";
  return data;
}

function showLobby(data) {
  if (data.removed) {
    // The host removed this guest: back to the start of the rooms sheet, saying why.
    room.data = null;
    room.view = "home";
    room.error = t("rooms.error.removed");
    localStorage.removeItem(ROOM_KEY);
    stopPoll();
    render();
    return;
  }
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
  const el = sheet();
  if (!el.contains(document.activeElement)) el.querySelector("[data-room-cmd=copy-code], [data-room-cmd=watch]")?.focus();
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

/** Closed by its close button or Escape: the focus goes back to the button that opened the sheet. */
function closeByUser() {
  closeSheet();
  document.querySelector("[data-room-cmd=open]")?.focus();
}

async function join(code) {
  const clean = (code || "").trim().toUpperCase();
  if (!clean) return;
  room.view = "home";
  await roomCall(clean, "join");
}

/** `POST /{code}/{op}` (join, reopen) and show the room.  A match already started shows it
 * instead: this guest's seat goes straight into it, anyone else may watch (a hand behind). */
async function roomCall(code, op) {
  const path = `/${encodeURIComponent(code)}`;
  const answered = await call("POST", `${path}/${op}`);
  if (answered.status === 409 && answered.data.error === "room_started") {
    const seen = await call("GET", path);
    if (seen.status === 200 && seen.data.match) {
      room.error = "";
      showLobby(seen.data);
      return;
    }
  }
  const data = await answer(Promise.resolve(answered));
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
  } else if (cmd === "close") closeByUser();
  else if (cmd === "name-save") await saveName(document.getElementById("room-name")?.value);
  else if (cmd === "name-skip") nameAsked();
  else if (cmd === "watch" && room.data?.match) {
    const match = room.data.match;
    closeSheet();
    room.enterMatch(match);
  }
  else if (cmd === "create") {
    const { length, red_fives, open_hands } = room.options;
    const data = await answer(call("POST", "", { length, red_fives, open_hands }));
    if (data) showLobby(data);
  } else if (cmd === "join") await join(document.getElementById("room-code")?.value);
  else if (cmd === "copy" || cmd === "copy-code") {
    const input = document.getElementById("room-link");
    try {
      await navigator.clipboard.writeText(cmd === "copy" ? input.value : code);
    } catch {
      input.select(); // no clipboard permission: leave the link selected for a manual copy
    }
    const label = el.textContent;
    el.textContent = t("rooms.copied");
    setTimeout(() => (el.textContent = label), 2000);
  } else if (cmd === "add-bot") {
    const level = document.querySelector(`[data-room-level="${el.dataset.seat}"]`)?.value || "normal";
    const data = await answer(call("POST", `/${code}/bots`, { seat: Number(el.dataset.seat), level }));
    if (data) showLobby(data);
  } else if (cmd === "remove-bot") {
    const data = await answer(call("DELETE", `/${code}/bots/${el.dataset.seat}`));
    if (data) showLobby(data);
  } else if (cmd === "make-host") {
    const data = await answer(call("POST", `/${code}/host`, { seat: Number(el.dataset.seat) }));
    if (data) showLobby(data);
  } else if (cmd === "remove-guest") {
    const data = await answer(call("DELETE", `/${code}/seats/${el.dataset.seat}`));
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
    room.options[name] = name === "red_fives" || name === "open_hands" ? el.dataset.value === "true" : el.dataset.value;
    render();
  } else if (el.dataset.viewSeat !== undefined) viewFrom(Number(el.dataset.viewSeat));
});

document.addEventListener("change", (ev) => {
  if (ev.target.dataset?.lobbyOpt && room.view === "lobby") changeOption(ev.target);
});

document.addEventListener("keydown", (ev) => {
  if (room.view === null) return;
  if (ev.key === "Escape") closeByUser();
  else if (ev.key === "Enter" && ev.target.id === "room-code") join(ev.target.value);
  else if (ev.key === "Enter" && ev.target.id === "room-name") saveName(ev.target.value);
});

/** Hook the rooms up.  Returns `{match, lobby}`: `match` a room match this guest plays in (to
 * resume), `lobby` true when a lobby is open (an invite link, `/?room=CODE`, joins its room). */
export async function initRooms({ enterMatch, viewFrom: redraw }) {
  room.enterMatch = enterMatch;
  room.viewFrom = redraw;
  const params = new URLSearchParams(location.search);
  const invited = params.get("room");
  if (invited) {
    history.replaceState(null, "", location.pathname); // a reload must not join again
    await join(invited);
    // A friend seated by the link without a name is asked for one, once (the host named
    // nobody: the seat would read "Player 2").
    const mine = room.data?.seats.find((s) => s.you);
    room.askName = Boolean(room.view === "lobby" && mine && !mine.name && !localStorage.getItem(NAME_ASKED_KEY));
    if (room.askName) {
      render();
      document.getElementById("room-name")?.focus();
    }
    return { match: null, lobby: true };
  }
  const saved = localStorage.getItem(ROOM_KEY);
  if (!saved) return { match: null, lobby: false };
  const { status, data } = await call("GET", `/${saved}`);
  if (status === 0) return { match: null, lobby: false }; // offline: the room is kept for later
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
    el = nodeOf(html`<span id="room-bar" class="room-bar" aria-live="off"></span>`);
    document.getElementById("conn")?.after(el);
  }
  return el;
}

function renderBar() {
  const el = bar();
  if (room.seat === null && !room.prompt?.timer) {
    // Practice shows the bar only for the timer the player chose.
    el.hidden = true;
    mount(el, html``);
    mount(statusSpot("turn-clock"), html``);
    return;
  }
  el.hidden = false;
  el.classList.toggle("spectating", room.spectator); // three badges: the states go to the tooltips
  const mode = room.openHands ? "rooms.watching_open" : "rooms.watching";
  const watching = room.spectator ? html`<span class="watching" data-testid="watching" title="${t(`${mode}.help`)}">${icon("eye")}<span class="word">${t(mode)}</span></span>` : "";
  const badges = [0, 1, 2]
    .filter((s) => (room.spectator || s !== room.seat) && room.presence[s])
    .map((s) => {
      const state = room.presence[s];
      const name = seatName(s, room.spectator ? null : room.seat);
      const said = `${name}: ${t(`presence.${state}`)}`;
      const inner = html`<span class="dot" aria-hidden="true"></span><span class="who">${name}</span><span class="state">${t(`presence.${state}`)}</span>`;
      if (!room.spectator) return html`<span class="presence ${state}" data-presence-seat="${s}" data-state="${state}" title="${said}">${inner}</span>`;
      // A spectator's badges choose the seat drawn at the bottom (the pressed one).
      const bottom = s === room.viewSeat;
      const help = `${said} · ${t("rooms.view_from")}`;
      return html`<button type="button" class="presence view-seat ${state}${bottom ? " on" : ""}" data-presence-seat="${s}" data-state="${state}" data-view-seat="${s}" aria-pressed="${bottom}" title="${help}">${inner}</button>`;
    });
  let timer = "";
  if (room.prompt?.timer) {
    const elapsed = (performance.now() - room.prompt.at) / 1000;
    const turn = Math.max(0, room.prompt.timer.turn_s - elapsed);
    const bank = Math.max(0, room.prompt.timer.bank_s - Math.max(0, elapsed - room.prompt.timer.turn_s));
    const low = turn === 0 ? " low" : "";
    timer = html`<span class="turn-timer${low}" id="turn-timer"><b>${Math.ceil(turn)}s</b> <span class="bank">+${Math.ceil(bank)}s <span class="word">${t("rooms.bank")}</span></span></span>`;
  }
  // The badges stay in the top bar; the timer sits beside the hand, where the player looks.
  mount(el, html`${watching}${badges}`);
  el.hidden = !watching && !badges.length;
  mount(statusSpot("turn-clock"), html`${timer}`);
}

/** A room match's welcome (``kind: "room"``, or ``"quick"``); any other match hides the bar.  Returns the
 * seat the table is drawn from: the own seat, or a spectator's choice (kept for the session). */
export function roomWelcome(w) {
  // A quick match (docs/quick.md) is a room match too: named players, presence and timers.
  const seated = w.kind === "room" || w.kind === "quick";
  room.kind = seated ? w.kind : null;
  room.seat = seated ? w.seat : null;
  room.spectator = Boolean(w.spectator);
  room.openHands = room.spectator && Boolean(w.open_hands);
  const kept = Number(sessionStorage.getItem(VIEW_KEY));
  room.viewSeat = room.spectator && [0, 1, 2].includes(kept) ? kept : w.seat;
  setPlayers(seated ? w.players : null, room.spectator);
  room.presence = {};
  roomPrompt(null);
  return room.viewSeat;
}

/** A spectator puts `seat` at the bottom: the bar and the table are drawn again from it. */
function viewFrom(seat) {
  if (!room.spectator || ![0, 1, 2].includes(seat)) return;
  room.viewSeat = seat;
  sessionStorage.setItem(VIEW_KEY, String(seat));
  renderBar();
  room.viewFrom?.(seat);
}

/** Whether this page only watches a friend room's match (nobody at the table is "You"). */
export function watching() {
  return room.seat !== null && room.spectator;
}

/** Whether a spectator is shown open hands, a hand behind. */
export function watchingOpenHands() {
  return watching() && room.openHands;
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
/** Whether this page plays a seat of a friend room's match (not practice, not watching). */
export function inRoomMatch() {
  return room.seat !== null && !room.spectator && room.kind === "room";
}

/** Whether this page plays a seat of a quick match (a room match with strangers, no room to go
 * back to). */
export function inQuickMatch() {
  return room.seat !== null && !room.spectator && room.kind === "quick";
}

/** After a room's match: reopen the room (seats, bots and host kept) and show its lobby, so
 * the host can start a rematch; a room that expired meanwhile says so on the rooms sheet. */
export async function backToRoom() {
  const code = localStorage.getItem(ROOM_KEY);
  room.view = "home";
  if (!code) {
    room.error = t("rooms.error.no_room");
    render();
    return;
  }
  await roomCall(code, "reopen");
}

/** A spectator's next match: the id of the match the watched room plays now when it is not
 * `ended` (the host started another), else null.  Counts as a look-up (the server's join limit:
 * overlay.js asks every few seconds). */
export async function nextRoomMatch(ended) {
  const code = localStorage.getItem(ROOM_KEY);
  if (!code) return null;
  const { status, data } = await call("GET", `/${encodeURIComponent(code)}`);
  const next = status === 200 && data.status === "playing" && data.you === null ? data.match : null;
  return next && next !== ended ? next : null;
}

/** The code of the room this browser sits in (its match may be resumed), or null. */
export function savedRoomCode() {
  return localStorage.getItem(ROOM_KEY);
}

export function roomLeave() {
  room.seat = null;
  room.kind = null;
  room.spectator = false;
  room.openHands = false;
  setPlayers(null);
  roomPrompt(null);
}
