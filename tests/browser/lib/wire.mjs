// Test-side half of the protocol: encodes server -> client messages (for the
// mock server) and decodes client -> server messages (to check what the
// browser sent). The shipped client has the other half (web/encode.js, web/decode.js).
// Both halves are checked against proto/vectors in tests/browser/unit.

class W {
  constructor() { this.a = []; }
  u8(v) { this.a.push(v & 255); return this; }
  varint(v) {
    let x = BigInt(v);
    if (x < 0n) throw new RangeError('negative varint');
    do {
      let c = Number(x & 0x7fn);
      x >>= 7n;
      if (x) c |= 0x80;
      this.a.push(c);
    } while (x);
    return this;
  }
  str(s) {
    const b = Buffer.from(s, 'utf8');
    this.varint(b.length);
    for (const c of b) this.a.push(c);
    return this;
  }
  color(c) {
    if (c === undefined || c === null || c === 'default' || c === -1) return this.u8(0);
    if (typeof c === 'number' && c < 256) return this.u8(1).u8(c);
    if (typeof c === 'number') return this.u8(2).u8(c >> 16).u8(c >> 8).u8(c);
    if ('indexed' in c) return this.u8(1).u8(c.indexed);
    return this.u8(2).u8(c.rgb[0]).u8(c.rgb[1]).u8(c.rgb[2]);
  }
  done() { return Uint8Array.from(this.a); }
}

const ATTRS = ['bold', 'dim', 'italic', 'blink', 'inverse', 'invisible', 'strike'];
const UNDERLINES = ['none', 'single', 'double', 'curly', 'dotted', 'dashed'];
const SHAPES = ['block', 'underline', 'bar'];
const MOUSE = ['off', 'press', 'click', 'drag', 'motion'];

export function hello({ version = 1, role = 'control', cols, rows, session_id: id = 's' }) {
  const w = new W().u8(1).u8(version).u8(version >> 8).u8(role === 'control' ? 1 : 0).varint(cols).varint(rows).str(id);
  return w.done();
}

function style(w, s) {
  const attrs = (s.attrs || []).reduce((a, n) => a | (1 << ATTRS.indexOf(n)), 0) | (s.link ? 128 : 0);
  w.u8(attrs).u8(UNDERLINES.indexOf(s.underline || 'none')).color(s.fg).color(s.bg).color(s.underline_color);
  if (s.link) w.str(s.link);
}

export function styles({ reset = false, epoch = 0, defs }) {
  const w = new W().u8(2).u8(reset ? 1 : 0).varint(epoch).varint(defs.length);
  for (const d of defs) {
    w.varint(d.id);
    style(w, d.style);
  }
  return w.done();
}

/** Appends hex bytes as they are. */
function raw(w, hex) {
  for (const b of Buffer.from(hex, 'hex')) w.u8(b);
  return w;
}

/** cells: [{text, width, style}] left to right (spacers not listed); wrapped, fill; images as the vectors list them. */
function line(w, { cells = [], wrapped = false, fill = 0, images = [] }) {
  const wide = [];
  const clusters = [];
  let col = 0, text = '';
  const colStyles = [];
  for (const c of cells) {
    text += c.text;
    const n = [...c.text].length;
    if (n > 1) clusters.push([col, n]);
    if (c.width === 2) {
      const last = wide[wide.length - 1];
      if (last && last[0] + 2 * last[1] === col) last[1]++;
      else wide.push([col, 1]);
    }
    for (let i = 0; i < c.width; i++) colStyles.push(c.style || 0);
    col += c.width;
  }
  const runs = [];
  for (const s of colStyles) {
    const last = runs[runs.length - 1];
    if (last && last[1] === s) last[0]++;
    else runs.push([1, s]);
  }
  const noRuns = runs.length === 1 && runs[0][1] === 0;
  w.u8((wrapped ? 1 : 0) | (wide.length ? 2 : 0) | (clusters.length ? 4 : 0) | (fill ? 8 : 0) | (images.length ? 16 : 0)).str(text);
  if (wide.length) { w.varint(wide.length); for (const [c, k] of wide) w.varint(c).varint(k); }
  if (clusters.length) { w.varint(clusters.length); for (const [c, k] of clusters) w.varint(c).varint(k); }
  if (noRuns) w.varint(0);
  else {
    w.varint(runs.length);
    runs.forEach(([len, s], i) => { w.varint(s); if (i < runs.length - 1) w.varint(len); });
  }
  if (fill) w.varint(fill);
  if (images.length) {
    w.varint(images.length);
    for (const p of images) {
      raw(w, p.hash).varint(p.z < 0 ? -2 * p.z - 1 : 2 * p.z).varint(p.col).varint(p.cols);
      for (const v of p.src) w.varint(v);
    }
  }
}

export function frame(m) {
  const c = m.cursor || {};
  const md = m.modes || {};
  const modes = (md.app_cursor ? 1 : 0) | (md.bracketed_paste ? 2 : 0) | (md.app_keypad ? 4 : 0) | (md.alt_screen ? 8 : 0)
    | (md.focus_events ? 16 : 0) | (md.mouse_sgr ? 32 : 0) | (md.reverse_video ? 64 : 0) | (MOUSE.indexOf(md.mouse || 'off') << 7)
    | (md.key_releases ? 1024 : 0) | (md.key_all ? 2048 : 0);
  const w = new W().u8(3).varint(m.seq || 0).varint(m.cols).varint(m.rows)
    .u8((m.full ? 1 : 0) | (m.title !== null && m.title !== undefined ? 2 : 0))
    .u8(SHAPES.indexOf(c.shape || 'block') | (c.visible === false ? 0 : 4) | (c.blink ? 8 : 0))
    .varint(c.row || 0).varint(c.col || 0).varint(modes);
  if (m.title !== null && m.title !== undefined) w.str(m.title);
  w.varint(m.scroll || 0).varint(m.scrollback || 0).varint(m.pushed || 0).varint(m.kept || 0).varint(m.lines.length);
  for (const l of m.lines) {
    w.varint(l.row);
    line(w, l.line);
  }
  return w.done();
}

export const bell = () => Uint8Array.of(4);
export function exit({ code }) {
  if (code === null || code === undefined) return Uint8Array.of(5, 0);
  return new W().u8(5).u8(1).varint(((code << 1) ^ (code >> 31)) >>> 0).done();
}
export const error = ({ code, message }) => new W().u8(6).varint(code).str(message).done();
export function scrollback({ total, start, cols, lines }) {
  const w = new W().u8(7).varint(total).varint(start).varint(cols).varint(lines.length);
  for (const l of lines) line(w, l);
  return w.done();
}
export const pong = ({ token }) => new W().u8(8).varint(token).done();
export function sync({ revision: r, input, echo }) {
  const e = (echo.known ? 1 : 0) | (echo.echo ? 2 : 0) | (echo.canonical ? 4 : 0) | (echo.barred ? 8 : 0);
  return new W().u8(0x10).varint(r.generation).varint(r.scroll_count).varint(r.pushes).varint(r.style_epoch)
    .varint(r.cols).varint(r.rows).varint(input).u8(e).done();
}
export const presence = ({ view, control }) => new W().u8(0x0a).varint(view).varint(control).done();
export const clipboard = ({ text }) => new W().u8(9).str(text).done();
export function image({ hash, width, height, png_hex }) {
  return raw(raw(new W().u8(0x0e), hash).varint(width).varint(height).varint(png_hex.length / 2), png_hex).done();
}
export function file_offer({ name, data_hex }) {
  const data = Buffer.from(data_hex, 'hex');
  const w = new W().u8(0x0d).str(name).varint(data.length);
  for (const b of data) w.u8(b);
  return w.done();
}
export function replay_state({ title, duration_ms, position_ms, playing, speed, markers }) {
  const w = new W().u8(0x0b).u8(playing ? 1 : 0).varint(speed).varint(duration_ms).varint(position_ms).str(title).varint(markers.length);
  for (const m of markers) w.varint(m.time_ms).str(m.label);
  return w.done();
}

export function room({ policy, you_drive, entries, unlisted }) {
  const w = new W().u8(0x0c).u8(you_drive ? 1 : 0).u8(['driver', 'smallest', 'fixed'].indexOf(policy)).varint(entries.length);
  for (const e of entries) {
    w.u8((e.role === 'control' ? 1 : 0) | (e.drives ? 2 : 0)).u8(['admin', 'key', 'person', 'link'].indexOf(e.kind)).varint(e.connections).str(e.name);
  }
  return w.varint(unlisted).done();
}
export const encoders = { hello, styles, frame, bell, exit, error, scrollback, pong, sync, clipboard, presence, replay_state, room, file_offer, image };

// ---- client -> server decoding ----

const KEY_NAMES = { 1: 'Enter', 2: 'Tab', 3: 'Backspace', 4: 'Escape', 5: 'Up', 6: 'Down', 7: 'Left', 8: 'Right', 9: 'Home', 10: 'End', 11: 'PageUp', 12: 'PageDown', 13: 'Insert', 14: 'Delete', 0x4a: 'KpDecimal', 0x4b: 'KpDivide', 0x4c: 'KpMultiply', 0x4d: 'KpSubtract', 0x4e: 'KpAdd', 0x4f: 'KpEnter', 0x50: 'KpEqual', 0x60: 'ShiftLeft', 0x61: 'ShiftRight', 0x62: 'ControlLeft', 0x63: 'ControlRight', 0x64: 'AltLeft', 0x65: 'AltRight', 0x66: 'MetaLeft', 0x67: 'MetaRight' };
for (let n = 1; n <= 24; n++) KEY_NAMES[0x1f + n] = 'F' + n;
for (let n = 0; n <= 9; n++) KEY_NAMES[0x40 + n] = 'Kp' + n;
const MODS = ['shift', 'alt', 'ctrl', 'meta'];
const KINDS = ['press', 'release', 'move', 'wheel_up', 'wheel_down', 'wheel_left', 'wheel_right'];
const BUTTONS = ['none', 'left', 'middle', 'right'];

/** Decodes a client message into the vectors' JSON shape plus `type`. */
export function decodeClient(bytes) {
  const b = Buffer.from(bytes);
  let p = 1;
  const varint = () => {
    let x = 0n, s = 0n;
    for (;;) {
      if (p >= b.length) throw new Error('truncated');
      const c = b[p++];
      x |= BigInt(c & 0x7f) << s;
      if (!(c & 0x80)) return x;
      s += 7n;
    }
  };
  const num = () => Number(varint());
  const str = () => { const n = num(); const s = b.subarray(p, p + n).toString('utf8'); p += n; return s; };
  const mods = (m) => MODS.filter((_, i) => m & (1 << i));
  let m;
  switch (b[0]) {
    case 0x81: {
      const k = b[p++];
      const key = k === 0 ? { char: String.fromCodePoint(num()) } : { named: KEY_NAMES[k] };
      const event = ['press', 'repeat', 'release'][b[p] >> 4];
      m = { type: 'key', key, mods: mods(b[p++] & 15), event };
      break;
    }
    case 0x82: m = { type: 'text', text: str() }; break;
    case 0x83: m = { type: 'paste', text: str() }; break;
    case 0x84: {
      const kind = KINDS[b[p++]], button = BUTTONS[b[p++]], md = mods(b[p++]);
      m = { type: 'mouse', kind, button, mods: md, row: num(), col: num() };
      break;
    }
    case 0x85: m = { type: 'resize', cols: num(), rows: num() }; break;
    case 0x86: m = { type: 'scrollback_request', start: String(varint()), count: num() }; break;
    case 0x87: m = { type: 'focus', focused: b[p++] === 1 }; break;
    case 0x88: m = { type: 'ping', token: String(varint()) }; break;
    case 0x90: m = { type: 'received', bytes: String(varint()) }; break;
    case 0x89: m = { type: 'theme', theme: ['dark', 'light', 'contrast'][b[p++]] }; break;
    case 0x8f: m = { type: 'take_control' }; break;
    case 0x8a: m = { type: 'replay_play' }; break;
    case 0x8b: m = { type: 'replay_pause' }; break;
    case 0x8c: m = { type: 'replay_speed', speed: num() }; break;
    case 0x8d: m = { type: 'replay_seek', ms: String(varint()) }; break;
    case 0x8e: m = { type: 'replay_marker', forward: b[p++] === 1 }; break;
    default: throw new Error('not a client message: 0x' + b[0].toString(16));
  }
  if (p !== b.length) throw new Error('trailing bytes');
  return m;
}
