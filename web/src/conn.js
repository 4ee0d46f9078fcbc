// One WebSocket to a match: hello with the last folded version, events folded strictly in
// order (a gap asks for resync), prompts kept only when they match the folded version.
// Any close (a network drop, a server restart, a server that closed a slow socket) and a
// `room_failed` error reconnect with a growing, jittered pause; the hello carries the last
// version folded, so play resumes where it stopped. An answer the server dropped for its
// rate limit (`rate_limited`) is sent again after the pause the server names.

const RETRY_FIRST_MS = 400;
const RETRY_MAX_MS = 10_000;

export class Connection {
  constructor({ token, match, getV, onWelcome, onEvent, onPrompt, onError, onStatus, onOther }) {
    Object.assign(this, { token, match, getV, onWelcome, onEvent, onPrompt, onError, onStatus, onOther });
    this.ws = null;
    this.closed = false;
    this.resyncing = false;
    this.retry = 0;
    this.lastAct = null; // {frame, v}: the answer sent, until an event after `v` arrives
    this.resend = null;
  }

  /** Connect; `early` ({ws, frames}, early.js): a socket already opened to this match with
   * a fresh page's hello, taken over with the frames it has received (nothing folded yet). */
  open(early = null) {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = early ? early.ws : new WebSocket(`${proto}://${location.host}/ws`);
    this.ws = ws;
    const greeted = early && ws.readyState === WebSocket.OPEN; // its own onopen sent the hello
    if (!greeted) {
      ws.onopen = () => {
        this.resyncing = false;
        this.send({ t: "hello", token: this.token, match: this.match, last_v: this.getV() });
      };
    }
    ws.onmessage = (msg) => this.receive(JSON.parse(msg.data));
    ws.onclose = () => {
      if (this.ws !== ws) return; // an older socket, already replaced
      this.ws = null;
      if (this.closed) return;
      this.onStatus("offline");
      // Reconnect with a growing pause (reset by a welcome, not by the socket opening: a
      // server that refuses the hello must not be asked again at once, for ever).
      const pause = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.retry) * (0.75 + Math.random() / 2);
      this.retry = Math.min(this.retry + 1, 8);
      setTimeout(() => !this.closed && this.open(), pause);
    };
    for (const text of early?.frames || []) this.receive(JSON.parse(text));
  }

  /** Drop this socket and connect again (the server said the room stopped or moved). */
  reconnect() {
    if (this.ws) this.ws.close();
  }

  receive(frame) {
    switch (frame.t) {
      case "welcome":
        this.retry = 0;
        this.onStatus("online");
        this.onWelcome(frame);
        break;
      case "event": {
        const want = this.getV() + 1;
        if (frame.v < want) return; // already folded
        if (frame.v > want) {
          if (!this.resyncing) {
            this.resyncing = true;
            this.send({ t: "resync", from: want });
          }
          return;
        }
        this.resyncing = false;
        if (this.lastAct && frame.v > this.lastAct.v) this.lastAct = null;
        this.onEvent(frame);
        break;
      }
      case "prompt":
        if (this.lastAct && this.lastAct.frame.seq !== frame.seq) this.lastAct = null;
        if (frame.v === this.getV()) this.onPrompt(frame);
        break;
      case "error":
        if (frame.code === "room_failed") {
          this.onError(frame);
          this.reconnect();
          return;
        }
        if (frame.code === "rate_limited") {
          // A stamp past its seat's allowance is simply not shown; only an answer is sent again.
          if (frame.about !== "stamp") this.resendSoon(frame.retry_ms);
          return;
        }
        if (frame.code === "stale_seq" || frame.code === "illegal_action") this.lastAct = null;
        this.onError(frame);
        break;
      default:
        this.onOther?.(frame); // e.g. a friend room's presence and expired frames
        break;
    }
  }

  /** The server dropped a frame for its rate limit: send the pending answer again. */
  resendSoon(retryMs) {
    if (!this.lastAct || this.resend) return;
    const wait = Math.max(50, Math.min(5000, Number(retryMs) || 500));
    this.resend = setTimeout(() => {
      this.resend = null;
      if (this.lastAct && this.lastAct.v === this.getV()) this.send(this.lastAct.frame);
    }, wait);
  }

  send(frame) {
    if (frame.t === "act") this.lastAct = { frame, v: this.getV() };
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  close() {
    this.closed = true;
    if (this.resend) clearTimeout(this.resend);
    if (this.ws) this.ws.close();
  }
}
