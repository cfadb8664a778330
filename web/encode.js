// Encoding client -> server messages (PROTOCOL.md section 6). No DOM.
import { MSG, LIMIT, KEYS, KEY_EVENT, SUBPROTOCOL, THEME_IDS, MOUSE_KINDS, BUTTONS, TOKEN_SUBPROTOCOL } from './protocol.js';

const utf8enc = new TextEncoder();

class Writer {
  constructor(n = 16) { this.b = new Uint8Array(n); this.p = 0; }
  need(n) {
    if (this.p + n <= this.b.length) return;
    const nb = new Uint8Array(Math.max(this.b.length * 2, this.p + n));
    nb.set(this.b.subarray(0, this.p));
    this.b = nb;
  }
  u8(v) { this.need(1); this.b[this.p++] = v; return this; }
  varint(v) {
    // v: a non-negative Number or BigInt.
    if (typeof v === 'bigint') {
      if (v < 0n || v >= 1n << 64n) throw new RangeError('varint64 out of range');
      do {
        let c = Number(v & 0x7fn);
        v >>= 7n;
        if (v) c |= 0x80;
        this.u8(c);
      } while (v);
      return this;
    }
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError('varint out of range: ' + v);
    do {
      let c = v % 128;
      v = Math.floor(v / 128);
      if (v) c |= 0x80;
      this.u8(c);
    } while (v);
    return this;
  }
  bytes(u8) { this.need(u8.length); this.b.set(u8, this.p); this.p += u8.length; return this; }
  done() { return this.b.slice(0, this.p); }
}

function checkRange(v, min, max, what) {
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(what + ' out of range: ' + v);
  return v;
}

function mods(m) { return checkRange(m | 0, 0, 15, 'mods'); }

/** Key: `key` is a named key ('Enter', 'F12', 'KpEnter', ...) or {char: 'c'}; `event` a KEY_EVENT. */
export function encodeKey(key, m = 0, event = 0) {
  const w = new Writer(8).u8(MSG.KEY);
  if (typeof key === 'string') {
    const code = KEYS[key];
    if (!code) throw new RangeError('unknown key ' + key);
    w.u8(code);
  } else {
    const cp = key.char.codePointAt(0);
    if (cp === undefined || key.char.length !== (cp > 0xffff ? 2 : 1) || (cp >= 0xd800 && cp <= 0xdfff)) {
      throw new RangeError('a key char is one Unicode scalar value');
    }
    w.u8(0).varint(cp);
  }
  return w.u8(mods(m) | checkRange(event, 0, KEY_EVENT.RELEASE, 'key event') << KEY_EVENT.SHIFT).done();
}

function stringMessage(type, text, max) {
  const bytes = utf8enc.encode(text);
  if (bytes.length > max) throw new RangeError('text too long: ' + bytes.length + ' bytes');
  return new Writer(bytes.length + 6).u8(type).varint(bytes.length).bytes(bytes).done();
}

/** The most UTF-8 bytes of a paste: a client message's limit less room for the type byte and the length's varint. */
export const MAX_PASTE = LIMIT.CLIENT_MESSAGE - 6;

/** Text: at most LIMIT.TEXT bytes of UTF-8 (see splitUtf8). */
export function encodeText(text) { return stringMessage(MSG.TEXT, text, LIMIT.TEXT); }

/** Paste: the whole message at most 1 MiB. */
export function encodePaste(text) { return stringMessage(MSG.PASTE, text, MAX_PASTE); }

/** Mouse: kind and button are indices (or names) of MOUSE_KINDS / BUTTONS. */
export function encodeMouse(kind, button, m, row, col) {
  const k = typeof kind === 'string' ? MOUSE_KINDS.indexOf(kind) : kind;
  const b = typeof button === 'string' ? BUTTONS.indexOf(button) : button;
  return new Writer(10).u8(MSG.MOUSE).u8(checkRange(k, 0, 6, 'mouse kind')).u8(checkRange(b, 0, 3, 'button'))
    .u8(mods(m)).varint(checkRange(row, 0, LIMIT.ROWS - 1, 'row')).varint(checkRange(col, 0, LIMIT.COLS - 1, 'col')).done();
}

export function encodeResize(cols, rows) {
  return new Writer(6).u8(MSG.RESIZE).varint(checkRange(cols, 1, LIMIT.COLS, 'cols'))
    .varint(checkRange(rows, 1, LIMIT.ROWS, 'rows')).done();
}

export function encodeScrollbackRequest(start, count) {
  if (BigInt(start) < 1n) throw new RangeError('start must be at least 1');
  return new Writer(16).u8(MSG.SCROLLBACK_REQUEST).varint(BigInt(start)).varint(checkRange(count, 1, LIMIT.SCROLLBACK_LINES, 'count')).done();
}

export function encodeFocus(focused) { return Uint8Array.of(MSG.FOCUS, focused ? 1 : 0); }

export function encodePing(token) { return new Writer(12).u8(MSG.PING).varint(BigInt(token)).done(); }
/** The bytes of binary messages had on this connection (PROTOCOL.md, "Flow control"). */
export function encodeReceived(bytes) { return new Writer(12).u8(MSG.RECEIVED).varint(BigInt(bytes)).done(); }

/** The subprotocols a page opens its WebSocket with: a credential, if any, travels in one. */
export const subprotocols = (token) => token ? [SUBPROTOCOL, TOKEN_SUBPROTOCOL + token] : [];

/** Theme: its id in THEME_IDS; any other theme is sent as dark, which web/palette.js paints it with. */

export const encodeTheme = (name) => Uint8Array.of(MSG.THEME, Math.max(0, THEME_IDS.indexOf(name)));

/** TakeControl: this connection drives the session's size. */
export const encodeTakeControl = () => Uint8Array.of(MSG.TAKE_CONTROL);

/** Replay controls: play, pause, speed (percent, LIMIT.MIN_REPLAY_SPEED to MAX_REPLAY_SPEED), seek (ms), marker (true: next). */
export function encodeReplay(op, v) {
  const w = new Writer(12).u8(MSG.PLAY + ['play', 'pause', 'speed', 'seek', 'marker'].indexOf(op));
  return (op === 'speed' ? w.varint(checkRange(v, LIMIT.MIN_REPLAY_SPEED, LIMIT.MAX_REPLAY_SPEED, 'speed')) : op === 'seek' ? w.varint(BigInt(v)) : op === 'marker' ? w.u8(v ? 1 : 0) : w).done();
}

/** Splits text into pieces of at most `max` UTF-8 bytes, never inside a codepoint. */
export function splitUtf8(text, max = LIMIT.TEXT) {
  const out = [];
  let start = 0, bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
    const n = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + n > max) {
      out.push(text.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += n;
    if (pair) i++;
  }
  if (start < text.length || out.length === 0) out.push(text.slice(start));
  return out;
}
