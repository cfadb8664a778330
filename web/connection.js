// One WebSocket to a session, reconnected with exponential back-off and
// jitter. Sends a protocol Ping now and then and reconnects when nothing has
// arrived for too long (a dead connection the browser does not notice).
import { encodePing, inflate } from './protocol.js';
import { CLOSE, FINAL } from './protocol.js';

export function backoff(attempt, random = Math.random) {
  const base = Math.min(10000, 500 * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.7 + 0.6 * random()));
}

/** How long to wait before reconnecting after `code`: at once after a restart
 *  (the new server takes the connection from the listen backlog), else back-off. */
export function retryDelay(code, attempt, random = Math.random) {
  return code === CLOSE.SERVICE_RESTART ? 0 : backoff(attempt, random);
}

export class Connection {
  /** handlers: open(), message(ArrayBuffer), close({code, reason, retryIn}) — retryIn null when final.
   *  protocols: WebSocket subprotocols (a credential travels as `panecast.token.T`, never in the URL). */
  constructor(url, handlers, { pingEvery = 25000, deadAfter = 70000, protocols = [] } = {}) {
    this.url = url;
    this.protocols = protocols;
    this.h = handlers;
    this.pingEvery = pingEvery;
    this.deadAfter = deadAfter;
    this.attempt = 0;
    this.ws = null;
    this.timer = null;
    this.stopped = false;
    this.wake = () => { if (this.timer && !this.ws) this.retryNow(); };
    if (typeof window !== 'undefined') {
      window.addEventListener('online', this.wake);
      document.addEventListener('visibilitychange', this.wake);
    }
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer);
    this.timer = null;
    // Frames come compressed where the browser can inflate them (PROTOCOL.md, 0x0F).
    const url = new URL(this.url);
    if (self.DecompressionStream) url.searchParams.set('deflate', 1);
    const ws = this.protocols.length ? new WebSocket(url, this.protocols) : new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.opened = false;
    this.q = Promise.resolve();
    ws.onopen = () => {
      this.opened = true;
      this.last = Date.now();
      this.openedAt = this.last;
      this.pinger = setInterval(() => this.tick(), Math.min(this.pingEvery, 5000));
      this.h.open();
    };
    ws.onmessage = (e) => {
      this.last = Date.now();
      if (typeof e.data === 'string') {
        this.close(CLOSE.UNSUPPORTED_DATA, 'text message');
        return;
      }
      if (this.attempt && this.last - this.openedAt > 3000) this.attempt = 0;
      // Inflating is asynchronous: messages are handled in order all the same.
      this.q = this.q.then(() => inflate(e.data)).then(
        (m) => ws === this.ws && this.h.message(m),
        () => ws === this.ws && ws.close(4000, 'malformed message'));
    };
    ws.onclose = (e) => this.closed(ws, e.code, e.reason);
    ws.onerror = () => {};
  }

  tick() {
    const now = Date.now();
    if (now - this.last > this.deadAfter) {
      // Nothing, not even a Pong, for too long: treat it as lost.
      const ws = this.ws;
      this.closed(ws, 1006, 'timed out');
      try { ws.close(); } catch { /* already closing */ }
      return;
    }
    if (now - (this.lastPing || 0) >= this.pingEvery) {
      this.lastPing = now;
      this.send(encodePing(BigInt(now)));
    }
  }

  closed(ws, code, reason) {
    if (ws !== this.ws) return;
    clearInterval(this.pinger);
    ws.onopen = ws.onmessage = ws.onclose = null;
    this.ws = null;
    if (this.stopped || FINAL.has(code)) {
      this.h.close({ code, reason, retryIn: null, opened: this.opened });
      return;
    }
    const delay = retryDelay(code, this.attempt, Math.random);
    if (code !== CLOSE.SERVICE_RESTART) this.attempt++;
    this.retryAt = Date.now() + delay;
    this.timer = setTimeout(() => this.connect(), delay);
    this.h.close({ code, reason, retryIn: delay, opened: this.opened });
  }

  retryNow() {
    if (this.ws) return;
    this.connect();
  }

  get open() { return !!this.ws && this.ws.readyState === 1; }

  send(bytes) {
    if (this.open) {
      this.ws.send(bytes);
      return true;
    }
    return false;
  }

  /** Closes for good (no reconnect). */
  close(code = CLOSE.NORMAL, reason = '') {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = null;
    const ws = this.ws;
    if (ws) {
      try { ws.close(code, reason); } catch { ws.close(); }
      this.closed(ws, code, reason);
    }
  }

  dispose() {
    this.close();
    if (typeof window !== 'undefined') {
      window.removeEventListener('online', this.wake);
      document.removeEventListener('visibilitychange', this.wake);
    }
  }
}
