// Loads proto/vectors and converts decoded messages to the vectors' JSON shape.
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const VECTORS = join(ROOT, 'proto', 'vectors');

export function loadVectors() {
  return readdirSync(VECTORS).filter((f) => f.endsWith('.json')).sort().map((f) => {
    const json = JSON.parse(readFileSync(join(VECTORS, f), 'utf8'));
    const bin = new Uint8Array(readFileSync(join(VECTORS, f.replace(/\.json$/, '.bin'))));
    return { ...json, bin };
  });
}

const ATTRS = ['bold', 'dim', 'italic', 'blink', 'inverse', 'invisible', 'strike'];
const UNDERLINES = ['none', 'single', 'double', 'curly', 'dotted', 'dashed'];

export function colorJson(c) {
  if (c === -1) return 'default';
  if (c < 256) return { indexed: c };
  return { rgb: [(c >> 16) & 255, (c >> 8) & 255, c & 255] };
}

export function styleJson(s) {
  return {
    attrs: ATTRS.filter((_, i) => s.attrs & (1 << i)),
    underline: UNDERLINES[s.underline],
    fg: colorJson(s.fg), bg: colorJson(s.bg), underline_color: colorJson(s.ul),
    link: s.link,
  };
}

/** A client image hash (its 16 bytes joined by commas) as hex. */
const hashHex = (h) => Buffer.from(h.split(',').map(Number)).toString('hex');

export function lineJson(l) {
  const cells = [];
  for (let c = 0; c < l.columns; c++) {
    if (l.width[c] === 0) continue;
    cells.push({ col: c, text: l.text[c], width: l.width[c], style: l.style[c] });
  }
  return {
    wrapped: l.wrapped, text: l.raw.text, wide: l.raw.wide, clusters: l.raw.clusters,
    runs: l.raw.runs.length === 0 && l.columns > 0 ? [[l.columns, 0]] : l.raw.runs,
    columns: l.columns, fill: l.fill, cells,
    images: (l.images || []).map((p) => ({ hash: hashHex(p.hash), z: p.z, col: p.col, cols: p.w, src: p.src.map((v) => v * 16) })),
  };
}

const MODE_KEYS = {
  appCursor: 'app_cursor', bracketedPaste: 'bracketed_paste', appKeypad: 'app_keypad',
  altScreen: 'alt_screen', focusEvents: 'focus_events', mouseSgr: 'mouse_sgr',
  reverseVideo: 'reverse_video', mouse: 'mouse', keyReleases: 'key_releases', keyAll: 'key_all',
};

export function messageJson(m) {
  switch (m.type) {
    case 'hello':
      return { version: m.version, session_id: m.sessionId, role: m.role, cols: m.cols, rows: m.rows };
    case 'styles':
      return { reset: m.reset, epoch: m.epoch, defs: m.defs.map((d) => ({ id: d.id, style: styleJson(d.style) })) };
    case 'frame':
      return {
        seq: String(m.seq), cols: m.cols, rows: m.rows, full: m.full, cursor: m.cursor,
        modes: Object.fromEntries(Object.entries(m.modes).map(([k, v]) => [MODE_KEYS[k], v])),
        title: m.title, scroll: m.scroll, scrollback: m.scrollback, pushed: m.pushed, kept: m.kept,
        lines: m.lines.map((l) => ({ row: l.row, line: lineJson(l.line) })),
      };
    case 'bell': return {};
    case 'exit': return { code: m.code };
    case 'error': return { code: m.code, message: m.message };
    case 'scrollback':
      return { total: String(m.total), start: String(m.start), cols: m.cols, lines: m.lines.map(lineJson) };
    case 'pong': return { token: String(m.token) };
    case 'sync': {
      const [generation, scroll_count, pushes, style_epoch, cols, rows] = m.revision.split('.');
      return {
        revision: { generation, scroll_count, pushes, style_epoch: Number(style_epoch), cols: Number(cols), rows: Number(rows) },
        input: String(m.input), echo: m.echo,
      };
    }
    case 'clipboard': return { text: m.text };
    case 'presence': return { view: m.view, control: m.control };
    case 'room': return { policy: m.policy, you_drive: m.youDrive, entries: m.entries, unlisted: m.unlisted };
    case 'image': return { hash: hashHex(m.hash), width: m.w, height: m.h, png_hex: Buffer.from(m.png).toString('hex') };
    case 'file_offer': return { name: m.name, data_hex: Buffer.from(m.data).toString('hex') };
    case 'replay_state':
      return {
        title: m.title, duration_ms: String(m.duration), position_ms: String(m.position), playing: m.playing, speed: m.speed,
        markers: m.markers.map((k) => ({ time_ms: String(k.time), label: k.label })),
      };
    default: throw new Error('unexpected type ' + m.type);
  }
}

/** Sorts object keys recursively so deepStrictEqual ignores key order. */
export function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]));
  }
  return v;
}
