// One WebSocket to a match: hello with the last folded version, events folded strictly in
// order (a gap asks for resync), prompts kept only when they match the folded version.

export class Connection {
  constructor({ token, match, getV, onWelcome, onEvent, onPrompt, onError, onStatus, onOther }) {
    Object.assign(this, { token, match, getV, onWelcome, onEvent, onPrompt, onError, onStatus, onOther });
    this.ws = null;
    this.closed = false;
    this.resyncing = false;
    this.retry = 0;
  }

  open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws`);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.resyncing = false;
      this.onStatus("online");
      this.send({ t: "hello", token: this.token, match: this.match, last_v: this.getV() });
    };
    ws.onmessage = (msg) => this.receive(JSON.parse(msg.data));
    ws.onclose = () => {
      if (this.closed) return;
      this.onStatus("offline");
      // Reconnect with a growing pause; the hello carries the last version we hold.
      this.retry = Math.min(this.retry + 1, 5);
      setTimeout(() => !this.closed && this.open(), 400 * this.retry);
    };
  }

  receive(frame) {
    switch (frame.t) {
      case "welcome":
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
        this.onEvent(frame);
        break;
      }
      case "prompt":
        if (frame.v === this.getV()) this.onPrompt(frame);
        break;
      case "error":
        this.onError(frame);
        break;
      default:
        this.onOther?.(frame); // e.g. a friend room's presence and expired frames
        break;
    }
  }

  send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}
