// Decoding server -> client messages (PROTOCOL.md section 4; decoded shapes:
// web/README.md). No DOM.
import { VERSION, MSG, LIMIT, FRAME, MODE, FLAG, SHAPES, MOUSE_MODES, POLICIES, MEMBER_KINDS, ProtocolError } from './protocol.js';
import { bad, Reader } from './wire-reader.js';
import { readStyle, readLine } from './wire-line.js';

// Message names by type byte: MSG's, in lower case (the decoded `type`).
const NAMES = [];
for (const k in MSG) NAMES[MSG[k]] = k.toLowerCase();

/** A compressed Frame (0x0F) as the plain Frame it holds; any other message as it is. */
export async function inflate(data) {
  const b = new Uint8Array(data);
  if (b[0] !== MSG.DEFLATED_FRAME) return data;
  const r = new Reader(b);
  r.p = 1;
  r.varint64();
  const head = r.p, n = r.range(0, LIMIT.DEFLATED_BODY, 'compressed frame length');
  const body = new Uint8Array(await new Response(new Blob([b.subarray(r.p)]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).arrayBuffer());
  if (body.length !== n) bad('compressed frame length');
  const out = new Uint8Array(head + n);
  out.set(b.subarray(0, head));
  out[0] = MSG.FRAME;
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
  const name = NAMES[type];
  switch (name) {
    case 'hello': {
      if (bytes.length < 3) bad('truncated');
      const version = bytes[1] | (bytes[2] << 8);
      if (version !== VERSION) {
        // Only the version is read; the caller closes with 1002.
        return { type: 'hello', version };
      }
      r.p = 3;
      const role = r.u8();
      if (role > 1) bad('role out of range');
      const cols = r.range(1, LIMIT.COLS, 'cols');
      const rows = r.range(1, LIMIT.ROWS, 'rows');
      const sessionId = r.string(LIMIT.SESSION_ID, 'session id');
      m = { type: 'hello', version, role: role ? 'control' : 'view', cols, rows, sessionId };
      break;
    }
    case 'styles': {
      const reset = r.flags(FLAG.STYLES_RESET, 'styles flags') === FLAG.STYLES_RESET;
      const epoch = r.varint32();
      const n = r.count(LIMIT.STYLE_DEFS, 'style definitions');
      const defs = [];
      for (let i = 0; i < n; i++) {
        const id = r.varint32();
        if (id === 0) bad('style id 0 defined');
        defs.push({ id, style: readStyle(r) });
      }
      m = { type: name, reset, epoch, defs };
      break;
    }
    case 'frame': {
      const seq = r.varint64();
      const cols = r.range(1, LIMIT.COLS, 'cols');
      const rows = r.range(1, LIMIT.ROWS, 'rows');
      const flags = r.flags(FRAME.FULL | FRAME.HAS_TITLE, 'frame flags');
      const cf = r.flags(FRAME.CURSOR_SHAPE | FRAME.CURSOR_VISIBLE | FRAME.CURSOR_BLINK, 'cursor flags');
      if ((cf & FRAME.CURSOR_SHAPE) === FRAME.CURSOR_SHAPE) bad('cursor shape out of range');
      const crow = r.range(0, rows - 1, 'cursor row');
      const ccol = r.range(0, cols - 1, 'cursor col');
      const mv = r.varint32();
      if (mv & ~FRAME.MODES) bad('reserved mode bits set');
      const modes = { mouse: MOUSE_MODES[(mv >> FRAME.MOUSE_SHIFT) & 7] };
      if (!modes.mouse) bad('mouse mode out of range');
      for (const k in MODE) modes[k] = (mv & MODE[k]) !== 0;
      const title = flags & FRAME.HAS_TITLE ? r.string(LIMIT.TITLE, 'title') : null;
      const full = (flags & FRAME.FULL) !== 0;
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
        type: name, seq, cols, rows, full,
        cursor: { row: crow, col: ccol, shape: SHAPES[cf & FRAME.CURSOR_SHAPE], visible: (cf & FRAME.CURSOR_VISIBLE) !== 0, blink: (cf & FRAME.CURSOR_BLINK) !== 0 },
        modes,
        title, scroll, scrollback, pushed, kept, lines,
      };
      break;
    }
    case 'bell':
      m = { type: name };
      break;
    case 'exit': {
      const f = r.flags(FLAG.EXIT_HAS_CODE, 'exit flags');
      let code = null;
      if (f & FLAG.EXIT_HAS_CODE) {
        const u = r.varint32();
        code = (u >>> 1) ^ -(u & 1);
      }
      m = { type: name, code };
      break;
    }
    case 'error': {
      const code = r.range(0, 65535, 'error code');
      m = { type: name, code, message: r.string(LIMIT.ERROR_MESSAGE, 'error message') };
      break;
    }
    case 'scrollback': {
      const total = r.varint64();
      const start = r.varint64();
      if (start < 1n) bad('scrollback start out of range');
      const cols = r.range(1, LIMIT.COLS, 'cols');
      const n = r.count(LIMIT.SCROLLBACK_LINES, 'scrollback lines');
      const lines = [];
      for (let i = 0; i < n; i++) lines.push(readLine(r, cols));
      m = { type: name, total, start, cols, lines };
      break;
    }
    case 'pong':
      m = { type: name, token: r.varint64() };
      break;
    case 'sync': {
      const generation = r.varint64(), scrollCount = r.varint64(), pushes = r.varint64(), styleEpoch = r.varint32();
      const cols = r.range(1, LIMIT.COLS, 'cols'), rows = r.range(1, LIMIT.ROWS, 'rows'), input = r.varint64();
      const e = r.flags(FLAG.ECHO_KNOWN | FLAG.ECHO_ON | FLAG.ECHO_CANONICAL | FLAG.ECHO_BARRED, 'echo flags');
      // Opaque: sent back as is to resume (the stream's `resume` parameter).
      const revision = [generation, scrollCount, pushes, styleEpoch, cols, rows].join('.');
      const echo = { known: (e & FLAG.ECHO_KNOWN) !== 0, echo: (e & FLAG.ECHO_ON) !== 0, canonical: (e & FLAG.ECHO_CANONICAL) !== 0, barred: (e & FLAG.ECHO_BARRED) !== 0 };
      m = { type: name, revision, input, echo };
      break;
    }
    case 'clipboard':
      m = { type: name, text: r.string(LIMIT.CLIPBOARD, 'clipboard text') };
      break;
    case 'presence':
      m = { type: name, view: r.range(0, 0xffffffff, 'view'), control: r.range(0, 0xffffffff, 'control') };
      break;
    case 'replay_state': {
      const playing = r.flags(FLAG.REPLAY_PLAYING, 'replay flags') === FLAG.REPLAY_PLAYING, speed = r.range(LIMIT.MIN_REPLAY_SPEED, LIMIT.MAX_REPLAY_SPEED, 'speed');
      const duration = Number(r.varint64()), position = Number(r.varint64()), markers = [];
      if (position > duration) bad('position past the end');
      const title = r.string(LIMIT.TITLE, 'replay title');
      for (let n = r.count(LIMIT.REPLAY_MARKERS, 'markers'); n--;) markers.push({ time: Number(r.varint64()), label: r.string(LIMIT.MARKER_LABEL, 'marker label') });
      m = { type: name, playing, speed, duration, position, title, markers };
      break;
    }
    case 'room': {
      const youDrive = r.flags(FLAG.ROOM_YOU_DRIVE, 'room flags') === FLAG.ROOM_YOU_DRIVE, policy = POLICIES[r.u8()], entries = [];
      if (!policy) bad('size policy out of range');
      for (let n = r.count(LIMIT.ROOM_ENTRIES, 'room entries'); n--;) {
        const f = r.flags(FLAG.ROOM_CONTROL | FLAG.ROOM_DRIVES, 'room entry flags'), kind = MEMBER_KINDS[r.u8()];
        if (!kind) bad('member kind out of range');
        const connections = r.range(1, 0xffffffff, 'connections');
        entries.push({ name: r.string(LIMIT.MEMBER_NAME, 'member name'), kind, role: f & FLAG.ROOM_CONTROL ? 'control' : 'view', drives: (f & FLAG.ROOM_DRIVES) !== 0, connections });
      }
      m = { type: name, policy, youDrive, entries, unlisted: r.range(0, 0xffffffff, 'unlisted') };
      break;
    }
    case 'file_offer':
      m = { type: name, name: r.string(LIMIT.FILE_NAME, 'file name'), data: r.bytes(LIMIT.FILE_OFFER, 'file data') };
      break;
    case 'image':
      m = { type: name, hash: r.hash(), w: r.range(1, LIMIT.IMAGE_SIDE, 'image width'), h: r.range(1, LIMIT.IMAGE_SIDE, 'image height'), png: r.bytes(LIMIT.IMAGE_PNG, 'image png') };
      break;
    default:
      if (type === 0 || type >= 0x80) bad('not a server message type');
      return { type: 'unknown', typeByte: type };
  }
  r.end();
  return m;
}
