// Drills (a tab of the account sheet; docs/drills.md): five "what would you discard?" problems a
// day made from the player's own reviewed matches (GET /api/drills/today).  A problem shows the
// table as the player's seat saw it at that decision; a tap on a hand tile answers it (POST
// /api/drills/{id}/answer), and the answer shows right or wrong, the master's discard, the
// expected placement of each priced discard, the coach's facts for both discards, and then the
// rest of that hand, stepped through with the client's own fold (state.js via replay-model.js).
// The streak counts the consecutive UTC days with the set completed.
import { api, errorText } from "./account-core.js";
import { t, tileName } from "./i18n.js";
import { icon } from "./icons.js";
import { html, join, meldHtml, nodeOf, numberLocale, points, signed, stylesheet, tileHtml } from "./render/common.js";
import { indexHands, stateAt } from "./replay-model.js";
import { askReview } from "./review.js";

await stylesheet("assets/drills.css");

// `slot`: the problem shown; `pos`: how many events of its hand the step-through has folded.
const view = { data: null, slot: null, pos: null, asking: false };
let say = () => {};

/** The tab's content. */
export async function drillsTab() {
  const { status, data } = await api("GET", "/api/drills/today");
  if (status !== 200) return html`<p class="acct-error">${errorText(data, status)}</p>`;
  view.data = data;
  if (!data.drills.some((d) => d.slot === view.slot)) view.slot = firstOpen();
  view.pos = null;
  return body();
}

/** What the tab's controls do (the account sheet delegates its events here); `tell(note, error)`
 * reports under the sheet's tabs. */
export function drillsActions(tell) {
  say = tell;
  const click = (fn) => (el, ev) => ev.type === "click" && fn(el);
  return {
    "drill-pick": click((el) => show(Number(el.dataset.slot))),
    "drill-tile": click((el) => answer(el.dataset.tile)),
    "drill-step": click((el) => step(el.dataset.step)),
    "drill-next": click(() => show(firstOpen())),
    "drill-ask": click((el) => askAll(el)),
  };
}

function firstOpen() {
  const drills = view.data?.drills || [];
  return (drills.find((d) => d.state === "open") || drills[0] || { slot: null }).slot;
}

const current = () => view.data.drills.find((d) => d.slot === view.slot);

/** Redraw the tab in place (the sheet around it stays). */
function redraw(focus) {
  const place = document.getElementById("drills");
  if (!place) return;
  place.replaceWith(nodeOf(body()));
  if (focus) document.getElementById(focus)?.focus();
}

function show(slot) {
  view.slot = slot;
  view.pos = null;
  redraw("drill-question");
}

function body() {
  const data = view.data;
  if (!data.drills.length) return emptyHtml(data);
  const done = data.drills.filter((d) => d.state !== "open").length;
  const picks = data.drills.map(
    (d) => html`<button type="button" class="choice drill-pick ${d.state}${d.slot === view.slot ? " on" : ""}" aria-pressed="${d.slot === view.slot}" data-act="drill-pick" data-slot="${d.slot}" aria-label="${t("drills.pick", { n: d.slot + 1, state: t(`drills.state.${d.state}`) })}">${d.slot + 1}${d.state === "open" ? null : html`<span class="drill-mark" aria-hidden="true">${d.state === "right" ? "✓" : "✗"}</span>`}</button>`,
  );
  const streak = html`<p class="drill-streak" id="drill-streak"><strong>${t("drills.streak", { n: points(data.streak) })}</strong> · ${t("drills.progress", { done, n: data.drills.length })}${data.done ? html` · ${t("drills.all_done")}` : null}</p>`;
  return html`<section id="drills" class="drills">${streak}<div class="drill-picks" role="group" aria-label="${t("drills.title")}">${picks}</div>${problemHtml(current())}</section>`;
}

// --- no problems yet --------------------------------------------------------------------------

function emptyHtml(data) {
  const ask = data.unreviewed.length
    ? html`<div class="acct-row"><button type="button" class="choice" id="drill-ask" data-act="drill-ask"${view.asking ? html` disabled` : null}>${t("drills.ask", { n: data.unreviewed.length })}</button></div>`
    : null;
  const why = data.unreviewed.length ? t("drills.empty") : t("drills.none_left");
  return html`<section id="drills" class="drills"><p class="drill-streak" id="drill-streak"><strong>${t("drills.streak", { n: points(data.streak) })}</strong></p><p id="drills-empty">${why}</p><p class="drill-help">${t("drills.how")}</p>${ask}</section>`;
}

/** Ask the reviews of the latest unreviewed matches, one after the other (one review at a time
 * per account), each row of progress as the history shows it; then the day's set again. */
async function askAll(button) {
  if (view.asking) return;
  view.asking = true;
  button.disabled = true;
  try {
    for (const match of view.data.unreviewed) await askReview(match, button, say, async () => {});
  } finally {
    view.asking = false;
  }
  const { status, data } = await api("GET", "/api/drills/today");
  if (status !== 200) return say("", errorText(data, status));
  view.data = data;
  view.slot = firstOpen();
  redraw("drill-question");
}

// --- a problem --------------------------------------------------------------------------------

const windOf = (seat, dealer) => `${1 + ((seat - dealer + 3) % 3)}z`;

/** The position the server sent, as the board below draws it. */
function boardOfPosition(p) {
  return {
    seat: p.seat,
    winds: p.winds,
    scores: p.scores,
    riichi: p.riichi,
    rivers: p.rivers,
    melds: p.melds,
    kita: p.kita,
    dora: p.dora_indicators,
    tiles: p.tiles,
    drawn: p.drawn,
    sizes: p.hand_sizes,
    round: p.round_wind,
    dealer: p.dealer,
    honba: p.honba,
    deposits: p.deposits,
    left: p.live_left,
  };
}

/** The client's fold of the hand (state.js) at `pos`, as the board below draws it. */
function boardOfState(state) {
  const h = state.hand;
  const seat = state.seat;
  return {
    seat,
    winds: [0, 1, 2].map((s) => windOf(s, h.dealer)),
    scores: h.scores,
    riichi: h.riichi,
    rivers: h.rivers,
    melds: h.melds,
    kita: h.kita,
    dora: h.dora,
    tiles: h.concealed[seat],
    drawn: h.drawn[seat],
    sizes: h.concealed.map((c, s) => c.length + (h.drawn[s] ? 1 : 0)),
    round: h.roundWind,
    dealer: h.dealer,
    honba: h.honba,
    deposits: h.deposits,
    left: h.tilesLeft,
  };
}

function problemHtml(d) {
  const b = boardOfPosition(d.position);
  const sol = d.solution;
  const question = sol ? verdictHtml(sol) : html`<h3 id="drill-question" tabindex="-1">${t("drills.question")}</h3>`;
  return html`<div class="drill" data-drill="${d.id}"><div class="drill-board">${tableInfoHtml(b)}${seatsHtml(b, b.seat)}</div><div class="drill-answer">${question}${handHtml(b, d)}</div>${sol ? solutionHtml(d, sol) : null}</div>`;
}

function tableInfoHtml(b) {
  const round = t("round.name", { wind: t(`wind.${b.round}`), n: b.dealer + 1 });
  const dora = b.dora.map((tile) => tileHtml(tile, "small"));
  return html`<p class="drill-info"><span>${round}</span> · <span>${t("replay.honba", { n: b.honba })}</span> · <span>${t("label.deposits")} <b>${b.deposits}</b></span> · <span>${t("label.tiles_left")} <b>${b.left}</b></span> <span class="drill-dora">${t("label.dora_indicators")} ${dora}</span></p>`;
}

/** Every seat's row: the two others first (the next seat, then the one before), then the
 * player's own river, melds and kita (its hand is drawn below). */
function seatsHtml(b, me) {
  const order = [(me + 1) % 3, (me + 2) % 3, me];
  return html`<div class="drill-seats">${order.map((s) => seatHtml(b, s, me))}</div>`;
}

function seatHtml(b, s, me) {
  const name = s === me ? t("drills.you", { wind: t(`wind.${b.winds[s]}`) }) : t(`wind.${b.winds[s]}`);
  const river = b.rivers[s].map((r) => tileHtml(r.tile, `small${r.riichi ? " sideways" : ""}${r.called ? " called" : ""}`, r.riichi ? t("action.riichi") : ""));
  const melds = b.melds[s].map((m) => meldHtml(m, s));
  const kita = b.kita[s].map((tile) => tileHtml(tile, "small", t("action.kita")));
  const riichi = b.riichi[s] ? html` <span class="drill-riichi">${t("action.riichi")}</span>` : null;
  const hidden = s === me ? null : html` · ${t("drills.tiles_held", { n: b.sizes[s] })}`;
  return html`<div class="drill-seat${s === me ? " me" : ""}" data-seat="${s}"><div class="drill-seat-head"><strong>${name}</strong> ${points(b.scores[s])}${riichi}${hidden}</div><div class="drill-river">${river}</div>${melds.length || kita.length ? html`<div class="drill-melds">${melds}${kita}</div>` : null}</div>`;
}

/** The player's hand: buttons to answer while the problem is open, else the tiles with the
 * answer and the master's discard marked. */
function handHtml(b, d) {
  const sol = d.solution;
  const master = sol ? discarded(sol.master) : null;
  const legal = new Set(d.position.legal);
  const tiles = [...b.tiles.map((tile) => ({ tile, drawn: false })), ...(b.drawn ? [{ tile: b.drawn, drawn: true }] : [])];
  const items = tiles.map(({ tile, drawn }) => {
    const cls = `${drawn ? "drawn" : ""}${sol && tile === sol.answer ? " answered" : ""}${sol && sameTile(tile, master) ? " master" : ""}`;
    if (sol || !legal.has(tile)) return html`<span class="drill-tile ${cls}">${tileHtml(tile)}</span>`;
    return html`<button type="button" class="drill-tile ${cls}" data-act="drill-tile" data-tile="${tile}" aria-label="${t("drills.discard", { tile: tileName(tile) })}">${tileHtml(tile)}</button>`;
  });
  return html`<div class="drill-hand" role="group" aria-label="${t("drills.hand")}">${items}</div>`;
}

const discarded = (action) => action.split(" ")[1] || null;
const plain = (tile) => (tile && tile[0] === "0" ? `5${tile[1]}` : tile);
const sameTile = (a, b) => Boolean(a && b) && plain(a) === plain(b);

async function answer(tile) {
  const d = current();
  if (!d || d.solution) return;
  const { status, data } = await api("POST", `/api/drills/${d.id}/answer`, { tile });
  if (status !== 200) return say("", errorText(data, status));
  say("");
  d.solution = data.solution;
  d.state = data.solution.right ? "right" : "wrong";
  view.data.streak = data.streak;
  view.data.done = data.done;
  view.pos = null;
  redraw("drill-verdict");
}

// --- the answer -------------------------------------------------------------------------------

function actionHtml(action) {
  const tile = discarded(action);
  return action.startsWith("riichi ") ? html`${t("action.riichi")} ${tileHtml(tile, "small")}` : tileHtml(tile, "small");
}

function verdictHtml(sol) {
  const words = sol.right ? t("drills.right") : t("drills.wrong");
  return html`<h3 id="drill-verdict" class="drill-verdict ${sol.right ? "right" : "wrong"}" tabindex="-1">${words}</h3>`;
}

/** Placement points with two decimals and a sign (a true minus, as the review writes losses). */
function decimal(v) {
  const text = new Intl.NumberFormat(numberLocale(), { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(Math.abs(v));
  return v > 0 ? `+${text}` : v < 0 ? `−${text}` : text;
}

function solutionHtml(d, sol) {
  const master = html`<p class="drill-line">${t("drills.master")} ${actionHtml(sol.master)}</p>`;
  const yours = html`<p class="drill-line">${t("drills.yours")} ${actionHtml(sol.choice)}</p>`;
  const rows = Object.entries(sol.values)
    .sort((a, b) => b[1] - a[1])
    .map(([action, v]) => {
      const tag = action === sol.master ? t("drills.tag.master") : action === sol.choice ? t("drills.tag.yours") : "";
      return html`<li class="${action === sol.master ? "master" : ""}${action === sol.choice ? " yours" : ""}"><span class="drill-value-tile">${actionHtml(action)}</span><span class="drill-value">${decimal(v)}</span><span class="drill-tag">${tag}</span></li>`;
    });
  const values = rows.length
    ? html`<h4>${t("drills.values")}</h4><p class="drill-help">${t("drills.values_help", { loss: decimal(sol.loss).slice(1) })}</p><ul class="drill-values">${rows}</ul>`
    : html`<p class="drill-help">${t("drills.no_values")}</p>`;
  const why = [
    sol.master_reason ? html`<li><strong>${t("drills.why_master")}</strong> ${reasonHtml(sol.master_reason, d.position)}</li>` : null,
    sol.choice_reason ? html`<li><strong>${t("drills.why_yours")}</strong> ${reasonHtml(sol.choice_reason, d.position)}</li>` : null,
  ];
  return html`<div class="drill-solution">${master}${yours}${values}<ul class="drill-why">${why}</ul>${restHtml(sol, d.position.seat)}<div class="acct-row">${view.data.drills.some((x) => x.state === "open") ? html`<button type="button" class="choice" id="drill-next" data-act="drill-next">${t("drills.next")}</button>` : null}</div></div>`;
}

/** The coach's facts for a discard (sanma.bots.coach.Reason), in the coach's words, each fact
 * its own text (a fact's own words may hold a " · "). */
function reasonHtml(r, p) {
  const parts = [];
  const s = r.speed;
  if (s) {
    parts.push(s.shanten === 0 ? t("coach.speed_tenpai", { waits: s.waits.join(" "), tiles: s.tiles }) : t("coach.speed", { shanten: s.shanten, kinds: s.kinds, tiles: s.tiles }));
  }
  for (const x of r.safety) parts.push(t(`coach.safety.${x.class}`, { seat: t(`wind.${p.winds[x.seat]}`), seen: x.seen }));
  for (const n of r.value) parts.push(t(`coach.value.${n.code}`, { n: n.n }));
  return join(parts.map((part, i) => html`${i ? " · " : null}<span>${part}</span>`));
}

// --- the rest of the hand ---------------------------------------------------------------------

function restHtml(sol, seat) {
  const events = sol.events;
  const start = sol.from_index + 1;
  const pos = Math.max(start, Math.min(events.length, view.pos ?? start));
  const state = stateAt(events, indexHands(events), pos, seat);
  const b = boardOfState(state);
  const e = events[pos - 1];
  const at = `${pos - start + 1} / ${events.length - start + 1}`;
  // The pictures are the app's icons (a font may lack the media symbols), mirrored to go back.
  const controls = [
    ["first", icon("instant", "flip"), pos <= start],
    ["back", icon("play", "flip"), pos <= start],
    ["next", icon("play"), pos >= events.length],
    ["last", icon("instant"), pos >= events.length],
  ].map(([name, picture, off]) => html`<button type="button" class="choice" id="drill-step-${name}" data-act="drill-step" data-step="${name}" title="${t(`drills.step.${name}`)}" aria-label="${t(`drills.step.${name}`)}"${off ? html` disabled` : null}>${picture}</button>`);
  const own = [...b.tiles, ...(b.drawn ? [b.drawn] : [])].map((tile) => tileHtml(tile, "small"));
  return html`<section class="drill-rest" id="drill-rest"><h4>${t("drills.rest")}</h4><div class="drill-nav">${controls}<span class="drill-at">${at}</span></div><p class="drill-event" id="drill-event" role="status">${eventHtml(e, b)}</p>${seatsHtml(b, b.seat)}<div class="drill-hand small">${own}</div></section>`;
}

function step(name) {
  const d = current();
  const sol = d?.solution;
  if (!sol) return;
  const start = sol.from_index + 1;
  const pos = view.pos ?? start;
  view.pos = { first: start, back: pos - 1, next: pos + 1, last: sol.events.length }[name];
  const place = document.getElementById("drill-rest");
  if (place) place.replaceWith(nodeOf(restHtml(sol, d.position.seat)));
  const again = document.getElementById(`drill-step-${name}`);
  (again && !again.disabled ? again : document.getElementById("drill-event"))?.focus();
}

/** One event of the hand in words, seats named by their wind. */
function eventHtml(e, b) {
  const seat = (s) => t(`wind.${b.winds[s]}`);
  switch (e.type) {
    case "TileDrawn":
      return html`${t("drills.ev.draw", { seat: seat(e.seat) })} ${e.tile === "?" ? null : tileHtml(e.tile, "small")}`;
    case "TileDiscarded":
      return html`${t(e.riichi ? "drills.ev.riichi" : "drills.ev.discard", { seat: seat(e.seat) })} ${tileHtml(e.tile, "small")}`;
    case "MeldCalled":
      return html`${t(`drills.ev.${e.meld.type === "pon" ? "pon" : "kan"}`, { seat: seat(e.seat) })} ${e.meld.tiles.map((tile) => tileHtml(tile, "small"))}`;
    case "KitaDeclared":
      return html`${t("drills.ev.kita", { seat: seat(e.seat) })} ${tileHtml(e.tile, "small")}`;
    case "DoraRevealed":
      return html`${t("drills.ev.dora")} ${tileHtml(e.indicator, "small")}`;
    case "RiichiAccepted":
      return html`${t("drills.ev.riichi_accepted", { seat: seat(e.seat) })}`;
    case "HandWon":
      return html`${t(e.from_seat === e.seat ? "drills.ev.tsumo" : "drills.ev.ron", { seat: seat(e.seat), from: seat(e.from_seat) })} ${tileHtml(e.tile, "small")} ${deltasHtml(e.deltas, seat)}`;
    case "HandDrawn":
      return html`${t("drills.ev.drawn")} ${deltasHtml(e.deltas, seat)}`;
    case "HandAborted":
      return html`${t("drills.ev.aborted")}`;
    default:
      return html`${t("drills.ev.other")}`;
  }
}

function deltasHtml(deltas, seat) {
  return join(deltas.map((d, s) => html`<span class="drill-delta">${seat(s)} ${signed(d)}</span>`));
}
