// One WebSocket to a session, reconnected with exponential back-off and
// jitter. Sends a protocol Ping now and then, to measure the round trip and
// to reconnect when nothing has arrived for too long (a dead connection the
// browser does not notice), and says how many bytes it has had (Received:
// the server keeps no more than the link carries in flight, PROTOCOL.md "Flow control").
import { encodePing, encodeReceived } from './encode.js';
import { inflate } from './decode.js';
import { CLOSE, FINAL, MSG } from './protocol.js';

/** Received is sent at least every this many bytes had (the server's window is never smaller than twice this). */
export const REPORT_BYTES = 16 * 1024;
/** While typing, the round trip is measured this often (ms); else every `pingEvery`. */
export const TYPING_PING_MS = 5000;
/** Typing within this long (ms) counts as typing. */
const TYPING_MS = 30000;

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
  /** handlers: open(), message(ArrayBuffer), close({code, reason, retryIn}) — retryIn null when final —
   *  and params(): more query parameters for each new connection.
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
    for (const [k, v] of Object.entries(this.h.params ? this.h.params() : {})) url.searchParams.set(k, v);
    const ws = this.protocols.length ? new WebSocket(url, this.protocols) : new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.opened = false;
    this.q = Promise.resolve();
    this.had = 0; // bytes of binary messages had on this connection
    this.reported = 0;
    this.synced = false; // a server that sends Sync reads Received; an older one would close on it
    ws.onopen = () => {
      this.opened = true;
      this.last = Date.now();
      this.openedAt = this.last;
      this.pinger = setInterval(() => this.tick(), Math.min(this.pingEvery, TYPING_PING_MS));
      this.ping();
      this.h.open();
    };
    ws.onmessage = (e) => {
      this.last = Date.now();
      if (typeof e.data === 'string') {
        this.close(CLOSE.UNSUPPORTED_DATA, 'text message');
        return;
      }
      if (this.attempt && this.last - this.openedAt > 3000) this.attempt = 0;
      this.had += e.data.byteLength;
      // After each Sync (it follows the frames it describes), and every REPORT_BYTES.
      const sync = new Uint8Array(e.data, 0, 1)[0] === MSG.SYNC;
      this.synced ||= sync;
      if (this.synced && (sync || this.had - this.reported >= REPORT_BYTES)) {
        this.reported = this.had;
        ws.send(encodeReceived(this.had));
      }
      // Inflating is asynchronous: messages are handled in order all the same.
      this.q = this.q.then(() => inflate(e.data)).then(
        (m) => ws === this.ws && this.h.message(m),
        () => ws === this.ws && ws.close(CLOSE.MALFORMED_FROM_SERVER, 'malformed message'));
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
    const typing = now - (this.typedAt || 0) < TYPING_MS;
    if (now - (this.lastPing || 0) >= (typing ? TYPING_PING_MS : this.pingEvery)) this.ping();
  }

  /** Sends a Ping whose token is the time it left (µs of performance.now()). */
  ping() {
    this.lastPing = Date.now();
    this.send(encodePing(BigInt(Math.round(performance.now() * 1000))));
  }

  /** Something was typed: the round trip is measured more often for a while. */
  typed() {
    const now = Date.now(), idle = !this.typedAt || now - this.typedAt >= TYPING_MS;
    this.typedAt = now;
    if (idle) this.ping();
  }

  /** A Pong: the round trip it measured (ms). */
  pong(token) {
    return Math.max(0, performance.now() - Number(token) / 1000);
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
