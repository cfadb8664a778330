// Wire protocol v1 (proto/PROTOCOL.md; decoded shapes: web/README.md). No DOM.

export const VERSION = 1;

export const A_BOLD = 1, A_DIM = 2, A_ITALIC = 4, A_BLINK = 8, A_INVERSE = 16,
  A_INVISIBLE = 32, A_STRIKE = 64, A_LINK = 128;
export const M_SHIFT = 1, M_ALT = 2, M_CTRL = 4, M_META = 8;
// Key events (0x81 Key).
export const KEY_PRESS = 0, KEY_REPEAT = 1, KEY_RELEASE = 2;
export const SHAPES = ['block', 'underline', 'bar'];
export const MOUSE_MODES = ['off', 'press', 'click', 'drag', 'motion'];
export const MOUSE_KINDS = ['press', 'release', 'move', 'wheel_up', 'wheel_down', 'wheel_left', 'wheel_right'];
export const BUTTONS = ['none', 'left', 'middle', 'right'];
export const POLICIES = ['driver', 'smallest', 'fixed'];
export const MEMBER_KINDS = ['admin', 'key', 'person', 'link'];

// Named key codes (PROTOCOL.md section 6, 0x81 Key).
export const KEYS = {
  Enter: 1, Tab: 2, Backspace: 3, Escape: 4, Up: 5, Down: 6, Left: 7, Right: 8,
  Home: 9, End: 10, PageUp: 11, PageDown: 12, Insert: 13, Delete: 14,
  KpDecimal: 0x4a, KpDivide: 0x4b, KpMultiply: 0x4c, KpSubtract: 0x4d,
  KpAdd: 0x4e, KpEnter: 0x4f, KpEqual: 0x50, ShiftLeft: 0x60, ShiftRight: 0x61,
  ControlLeft: 0x62, ControlRight: 0x63, AltLeft: 0x64, AltRight: 0x65, MetaLeft: 0x66, MetaRight: 0x67,
};
for (let n = 1; n <= 24; n++) KEYS['F' + n] = 0x1f + n;
for (let n = 0; n <= 9; n++) KEYS['Kp' + n] = 0x40 + n;

/** A message the protocol does not allow; `code` is the close code (1002 or 1009). */
export class ProtocolError extends Error {
  constructor(message, code = 1002) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8enc = new TextEncoder();

function bad(what) { throw new ProtocolError(what); }

class Reader {
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
    if (n > max) throw new ProtocolError(what + ' too long', 1009);
    if (n > this.b.length - this.p) bad('truncated');
    return this.b.slice(this.p, (this.p += n));
  }
  hash() {
    if (this.p + 16 > this.b.length) bad('truncated');
    return String(this.b.subarray(this.p, (this.p += 16)));
  }
  count(max, what) {
    const n = this.varint32();
    if (n > max) throw new ProtocolError(what + ' too long', 1009);
    if (n > this.b.length - this.p) bad('truncated');
    return n;
  }
  string(max, what) {
    const n = this.varint32();
    if (n > max) throw new ProtocolError(what + ' too long', 1009);
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

function readStyle(r) {
  const attrs = r.u8();
  const underline = r.u8();
  if (underline > 5) bad('underline out of range');
  const fg = r.color(), bg = r.color(), ul = r.color();
  const link = attrs & A_LINK ? r.string(4096, 'link') : null;
  return { attrs: attrs & 0x7f, underline, fg, bg, ul, link };
}

/** Decodes one Line (PROTOCOL.md section 5) and lays it out to `cols` columns. */
function readLine(r, cols) {
  const flags = r.flags(0x1f, 'line flags');
  const text = r.string(128000, 'line text');
  const wide = [];
  if (flags & 2) {
    const n = r.count(500, 'wide runs');
    if (n === 0) bad('empty wide list');
    let min = 0;
    for (let i = 0; i < n; i++) {
      const col = r.range(0, 999, 'wide col');
      const count = r.range(1, 500, 'wide count');
      if (col < min) bad('wide runs out of order');
      min = col + 2 * count;
      wide.push([col, count]);
    }
  }
  const clusters = [];
  if (flags & 4) {
    const n = r.count(1000, 'clusters');
    if (n === 0) bad('empty cluster list');
    let prev = -1;
    for (let i = 0; i < n; i++) {
      const col = r.range(0, 999, 'cluster col');
      const cps = r.range(2, 32, 'cluster codepoints');
      if (col <= prev) bad('clusters out of order');
      prev = col;
      clusters.push([col, cps]);
    }
  }
  const nruns = r.count(1000, 'style runs');
  const wire = [];
  for (let i = 0; i < nruns; i++) {
    const style = r.varint32();
    const len = i < nruns - 1 ? r.range(1, 1000, 'run length') : 0;
    wire.push(style, len);
  }
  const fill = flags & 8 ? r.varint32() : 0;
  // Image pieces (PROTOCOL.md section 5, "Images"): source in 1/16 pixels.
  let images;
  if (flags & 16) {
    images = [];
    for (let n = r.count(16, 'images') || bad('empty image list'); n--;) {
      const hash = r.hash(), z = r.varint32(), col = r.range(0, cols - 1, 'image col');
      images.push({ hash, z: (z >>> 1) ^ -(z & 1), col, w: r.range(1, cols - col, 'image cols'),
        src: [r.varint32() / 16, r.varint32() / 16, r.range(1, 2 ** 32, 'image w') / 16, r.range(1, 2 ** 32, 'image h') / 16] });
    }
  }

  // Lay out the cells.
  const cellText = new Array(cols);
  const width = new Uint8Array(cols);
  const style = new Uint32Array(cols);
  const n = text.length;
  let i = 0, col = 0;
  let wi = 0, wCol = wide.length ? wide[0][0] : -1, wLeft = wide.length ? wide[0][1] : 0;
  let ci = 0, cCol = clusters.length ? clusters[0][0] : -1;
  while (i < n) {
    if (col >= cols) bad('line wider than the screen');
    const start = i;
    let k = 1;
    if (col === cCol) {
      k = clusters[ci][1];
      ci++;
      cCol = ci < clusters.length ? clusters[ci][0] : -1;
    }
    for (let j = 0; j < k; j++) {
      if (i >= n) bad('cluster past the end of the text');
      const c = text.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
    }
    cellText[col] = i - start === 1 ? text[start] : text.slice(start, i);
    if (col === wCol) {
      if (col + 1 >= cols) bad('line wider than the screen');
      width[col] = 2;
      cellText[col + 1] = '';
      width[col + 1] = 0;
      col += 2;
      if (--wLeft > 0) wCol += 2;
      else if (++wi < wide.length) { wCol = wide[wi][0]; wLeft = wide[wi][1]; }
      else wCol = -1;
    } else {
      width[col] = 1;
      col += 1;
    }
  }
  if (wCol !== -1) bad('wide cell where no cell starts');
  if (cCol !== -1) bad('cluster where no cell starts');
  const columns = col;

  const runs = [];
  if (nruns > 0) {
    if (nruns > columns) bad('more style runs than columns');
    let pos = 0;
    for (let k = 0; k < nruns; k++) {
      const s = wire[2 * k];
      let len = wire[2 * k + 1];
      if (k < nruns - 1) {
        if (pos + len >= columns) bad('style run reaches past the line');
      } else {
        len = columns - pos;
      }
      if (s) style.fill(s, pos, pos + len);
      pos += len;
      runs.push([len, s]);
    }
  }
  for (let c = columns; c < cols; c++) {
    cellText[c] = ' ';
    width[c] = 1;
  }
  if (fill && columns < cols) style.fill(fill, columns, cols);
  return {
    wrapped: (flags & 1) !== 0, columns, fill, images,
    simple: wide.length === 0 && clusters.length === 0 && text.length === columns,
    text: cellText, width, style,
    raw: { text, wide, clusters, runs },
  };
}

/** A compressed Frame (0x0F) as the plain Frame it holds; any other message as it is. */
export async function inflate(data) {
  const b = new Uint8Array(data);
  if (b[0] !== 0x0f) return data;
  const r = new Reader(b);
  r.p = 1;
  r.varint64();
  const head = r.p, n = r.range(0, 8 << 20, 'compressed frame length');
  const body = new Uint8Array(await new Response(new Blob([b.subarray(r.p)]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).arrayBuffer());
  if (body.length !== n) bad('compressed frame length');
  const out = new Uint8Array(head + n);
  out.set(b.subarray(0, head));
  out[0] = 3;
  out.set(body, head);
  return out;
}

/**
 * Decodes one server -> client message (a WebSocket binary message).
 * Throws ProtocolError (with the close code) when it is malformed.
 */
export function decode(data) {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  const r = new Reader(bytes);
  const type = r.u8();
  let m;
  switch (type) {
    case 0x01: {
      if (bytes.length < 3) bad('truncated');
      const version = bytes[1] | (bytes[2] << 8);
      if (version !== VERSION) {
        // Only the version is read; the caller closes with 1002.
        return { type: 'hello', version };
      }
      r.p = 3;
      const role = r.u8();
      if (role > 1) bad('role out of range');
      const cols = r.range(1, 1000, 'cols');
      const rows = r.range(1, 1000, 'rows');
      const sessionId = r.string(128, 'session id');
      m = { type: 'hello', version, role: role ? 'control' : 'view', cols, rows, sessionId };
      break;
    }
    case 0x02: {
      const reset = (r.flags(1, 'styles flags') & 1) === 1;
      const epoch = r.varint32();
      const n = r.count(65536, 'style definitions');
      const defs = [];
      for (let i = 0; i < n; i++) {
        const id = r.varint32();
        if (id === 0) bad('style id 0 defined');
        defs.push({ id, style: readStyle(r) });
      }
      m = { type: 'styles', reset, epoch, defs };
      break;
    }
    case 0x03: {
      const seq = r.varint64();
      const cols = r.range(1, 1000, 'cols');
      const rows = r.range(1, 1000, 'rows');
      const flags = r.flags(3, 'frame flags');
      const cf = r.flags(0x0f, 'cursor flags');
      if ((cf & 3) === 3) bad('cursor shape out of range');
      const crow = r.range(0, rows - 1, 'cursor row');
      const ccol = r.range(0, cols - 1, 'cursor col');
      const mv = r.varint32();
      if (mv >= 4096) bad('reserved mode bits set');
      const mouse = (mv >> 7) & 7;
      if (mouse > 4) bad('mouse mode out of range');
      const title = flags & 2 ? r.string(4096, 'title') : null;
      const full = (flags & 1) === 1;
      const scroll = r.varint32();
      if (full && scroll !== 0) bad('scroll set on a full frame');
      const scrollback = r.varint32();
      const pushed = r.varint32();
      if (full && pushed !== 0) bad('pushed set on a full frame');
      const kept = r.varint32();
      if (kept > pushed || kept > rows) bad('kept out of range');
      const n = r.count(rows, 'lines');
      const lines = [];
      let prev = -1;
      for (let i = 0; i < n; i++) {
        const row = r.range(0, rows - 1, 'line row');
        if (row <= prev) bad('lines out of order');
        prev = row;
        lines.push({ row, line: readLine(r, cols) });
      }
      m = {
        type: 'frame', seq, cols, rows, full,
        cursor: { row: crow, col: ccol, shape: SHAPES[cf & 3], visible: (cf & 4) !== 0, blink: (cf & 8) !== 0 },
        modes: {
          appCursor: (mv & 1) !== 0, bracketedPaste: (mv & 2) !== 0, appKeypad: (mv & 4) !== 0,
          altScreen: (mv & 8) !== 0, focusEvents: (mv & 16) !== 0, mouseSgr: (mv & 32) !== 0,
          reverseVideo: (mv & 64) !== 0, mouse: MOUSE_MODES[mouse], keyReleases: (mv & 1024) !== 0, keyAll: (mv & 2048) !== 0,
        },
        title, scroll, scrollback, pushed, kept, lines,
      };
      break;
    }
    case 0x04:
      m = { type: 'bell' };
      break;
    case 0x05: {
      const f = r.flags(1, 'exit flags');
      let code = null;
      if (f & 1) {
        const u = r.varint32();
        code = (u >>> 1) ^ -(u & 1);
      }
      m = { type: 'exit', code };
      break;
    }
    case 0x06: {
      const code = r.range(0, 65535, 'error code');
      m = { type: 'error', code, message: r.string(1024, 'error message') };
      break;
    }
    case 0x07: {
      const total = r.varint64();
      const start = r.varint64();
      if (start < 1n) bad('scrollback start out of range');
      const cols = r.range(1, 1000, 'cols');
      const n = r.count(1000, 'scrollback lines');
      const lines = [];
      for (let i = 0; i < n; i++) lines.push(readLine(r, cols));
      m = { type: 'scrollback', total, start, cols, lines };
      break;
    }
    case 0x08:
      m = { type: 'pong', token: r.varint64() };
      break;
    case 0x09:
      m = { type: 'clipboard', text: r.string(65536, 'clipboard text') };
      break;
    case 0x0a:
      m = { type: 'presence', view: r.range(0, 0xffffffff, 'view'), control: r.range(0, 0xffffffff, 'control') };
      break;
    case 0x0b: {
      const playing = r.flags(1, 'replay flags') === 1, speed = r.range(50, 800, 'speed');
      const duration = Number(r.varint64()), position = Number(r.varint64()), markers = [];
      if (position > duration) bad('position past the end');
      const title = r.string(4096, 'replay title');
      for (let n = r.count(1024, 'markers'); n--;) markers.push({ time: Number(r.varint64()), label: r.string(256, 'marker label') });
      m = { type: 'replay_state', playing, speed, duration, position, title, markers };
      break;
    }
    case 0x0c: {
      const youDrive = r.flags(1, 'room flags') === 1, policy = POLICIES[r.u8()], entries = [];
      if (!policy) bad('size policy out of range');
      for (let n = r.count(64, 'room entries'); n--;) {
        const f = r.flags(3, 'room entry flags'), kind = MEMBER_KINDS[r.u8()];
        if (!kind) bad('member kind out of range');
        const connections = r.range(1, 0xffffffff, 'connections');
        entries.push({ name: r.string(64, 'member name'), kind, role: f & 1 ? 'control' : 'view', drives: (f & 2) !== 0, connections });
      }
      m = { type: 'room', policy, youDrive, entries, unlisted: r.range(0, 0xffffffff, 'unlisted') };
      break;
    }
    case 0x0d:
      m = { type: 'file_offer', name: r.string(255, 'file name'), data: r.bytes(1 << 28, 'file data') };
      break;
    case 0x0e:
      m = { type: 'image', hash: r.hash(), w: r.range(1, 1e4, 'image width'), h: r.range(1, 1e4, 'image height'), png: r.bytes(1 << 24, 'image png') };
      break;
    default:
      if (type === 0 || type >= 0x80) bad('not a server message type');
      return { type: 'unknown', typeByte: type };
  }
  r.end();
  return m;
}

// ---- Encoding client -> server messages ----

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

/** Key: `key` is a named key ('Enter', 'F12', 'KpEnter', ...) or {char: 'c'}; `event` a KEY_*. */
export function encodeKey(key, m = 0, event = 0) {
  const w = new Writer(8).u8(0x81);
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
  return w.u8(mods(m) | checkRange(event, 0, 2, 'key event') << 4).done();
}

function stringMessage(type, text, max) {
  const bytes = utf8enc.encode(text);
  if (bytes.length > max) throw new RangeError('text too long: ' + bytes.length + ' bytes');
  return new Writer(bytes.length + 6).u8(type).varint(bytes.length).bytes(bytes).done();
}

/** Text: at most 65536 bytes of UTF-8 (see splitUtf8). */
export function encodeText(text) { return stringMessage(0x82, text, 65536); }

/** Paste: the whole message at most 1 MiB. */
export function encodePaste(text) { return stringMessage(0x83, text, (1 << 20) - 6); }

/** Mouse: kind and button are indices (or names) of MOUSE_KINDS / BUTTONS. */
export function encodeMouse(kind, button, m, row, col) {
  const k = typeof kind === 'string' ? MOUSE_KINDS.indexOf(kind) : kind;
  const b = typeof button === 'string' ? BUTTONS.indexOf(button) : button;
  return new Writer(10).u8(0x84).u8(checkRange(k, 0, 6, 'mouse kind')).u8(checkRange(b, 0, 3, 'button'))
    .u8(mods(m)).varint(checkRange(row, 0, 999, 'row')).varint(checkRange(col, 0, 999, 'col')).done();
}

export function encodeResize(cols, rows) {
  return new Writer(6).u8(0x85).varint(checkRange(cols, 1, 1000, 'cols'))
    .varint(checkRange(rows, 1, 1000, 'rows')).done();
}

export function encodeScrollbackRequest(start, count) {
  if (BigInt(start) < 1n) throw new RangeError('start must be at least 1');
  return new Writer(16).u8(0x86).varint(BigInt(start)).varint(checkRange(count, 1, 1000, 'count')).done();
}

export function encodeFocus(focused) { return Uint8Array.of(0x87, focused ? 1 : 0); }

export function encodePing(token) { return new Writer(12).u8(0x88).varint(BigInt(token)).done(); }

/** Theme: its id in THEME_IDS; any other theme is sent as dark. */
export const THEME_IDS = ['dark', 'light', 'contrast'];
export const encodeTheme = (name) => Uint8Array.of(0x89, Math.max(0, THEME_IDS.indexOf(name)));

/** TakeControl: this connection drives the session's size. */
export const encodeTakeControl = () => Uint8Array.of(0x8f);

/** Replay controls: play, pause, speed (percent, 50-800), seek (ms), marker (true: next). */
export function encodeReplay(op, v) {
  const w = new Writer(12).u8(0x8a + ['play', 'pause', 'speed', 'seek', 'marker'].indexOf(op));
  return (op === 'speed' ? w.varint(checkRange(v, 50, 800, 'speed')) : op === 'seek' ? w.varint(BigInt(v)) : op === 'marker' ? w.u8(v ? 1 : 0) : w).done();
}

/** Splits text into pieces of at most `max` UTF-8 bytes, never inside a codepoint. */
export function splitUtf8(text, max = 65536) {
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
