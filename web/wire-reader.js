// Reading a server message's fields: varints, strings, colours, each checked
// against its limit (PROTOCOL.md section 2). No DOM.
import { CLOSE, ProtocolError } from './protocol.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Throws the ProtocolError of a malformed message: `what` is wrong. */
export function bad(what) { throw new ProtocolError(what); }

/** Reads a message's fields in order, checking each (PROTOCOL.md section 2). */
export class Reader {
  constructor(bytes) { this.b = bytes; this.p = 0; }
  u8() {
    if (this.p >= this.b.length) bad('truncated');
    return this.b[this.p++];
  }
  flags(mask, what) {
    const v = this.u8();
    if (v & ~mask) bad('reserved bits set in ' + what);
    return v;
  }
  bool() {
    const v = this.u8();
    if (v > 1) bad('bool out of range');
    return v === 1;
  }
  varint32() {
    const b = this.b;
    let p = this.p, x = 0, mul = 1;
    for (let i = 0; i < 5; i++) {
      if (p >= b.length) bad('truncated varint');
      const c = b[p++];
      if (i === 4 && c > 0x0f) bad('varint32 overflow');
      x += (c & 0x7f) * mul;
      if (!(c & 0x80)) {
        if (c === 0 && i > 0) bad('overlong varint');
        this.p = p;
        return x;
      }
      mul *= 128;
    }
    return bad('varint32 overflow');
  }
  varint64() {
    const b = this.b;
    let p = this.p, x = 0n, shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (p >= b.length) bad('truncated varint');
      const c = b[p++];
      if (i === 9 && c > 0x01) bad('varint64 overflow');
      x |= BigInt(c & 0x7f) << shift;
      if (!(c & 0x80)) {
        if (c === 0 && i > 0) bad('overlong varint');
        this.p = p;
        return x;
      }
      shift += 7n;
    }
    return bad('varint64 overflow');
  }
  range(min, max, what) {
    const v = this.varint32();
    if (v < min || v > max) bad(what + ' out of range');
    return v;
  }
  bytes(max, what) {
    const n = this.varint32();
    if (n > max) throw new ProtocolError(what + ' too long', CLOSE.MESSAGE_TOO_BIG);
    if (n > this.b.length - this.p) bad('truncated');
    return this.b.slice(this.p, (this.p += n));
  }
  hash() {
    if (this.p + 16 > this.b.length) bad('truncated');
    return String(this.b.subarray(this.p, (this.p += 16)));
  }
  count(max, what) {
    const n = this.varint32();
    if (n > max) throw new ProtocolError(what + ' too long', CLOSE.MESSAGE_TOO_BIG);
    if (n > this.b.length - this.p) bad('truncated');
    return n;
  }
  string(max, what) {
    const n = this.varint32();
    if (n > max) throw new ProtocolError(what + ' too long', CLOSE.MESSAGE_TOO_BIG);
    if (n > this.b.length - this.p) bad('truncated string');
    const start = this.p;
    this.p += n;
    if (n === 0) return '';
    // ASCII fast path: most terminal text is ASCII.
    const b = this.b;
    if (n <= 512) {
      let ascii = true;
      for (let i = start; i < this.p; i++) if (b[i] > 0x7f) { ascii = false; break; }
      if (ascii) return String.fromCharCode.apply(null, b.subarray(start, this.p));
    }
    try {
      return utf8.decode(b.subarray(start, this.p));
    } catch {
      return bad('invalid UTF-8 in ' + what);
    }
  }
  color() {
    const tag = this.u8();
    if (tag === 0) return -1;
    if (tag === 1) return this.u8();
    if (tag === 2) {
      const r = this.u8(), g = this.u8(), b = this.u8();
      return 0x1000000 | (r << 16) | (g << 8) | b;
    }
    return bad('colour tag out of range');
  }
  end() {
    if (this.p !== this.b.length) bad('trailing bytes');
  }
}
