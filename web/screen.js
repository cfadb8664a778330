// The client's copy of a session's screen (notes: web/README.md).

/** The most scrollback lines cached (least recently used evicted, refetched when shown). */
export const CACHE_LINES = 2000;

export function blankLine(cols, style = 0) {
  return {
    wrapped: false,
    text: new Array(cols).fill(' '),
    width: new Uint8Array(cols).fill(1),
    style: style ? new Uint32Array(cols).fill(style) : new Uint32Array(cols),
  };
}

const DEFAULT_STYLE = Object.freeze({ attrs: 0, underline: 0, fg: -1, bg: -1, ul: -1, link: null });

export class Screen {
  constructor() {
    this.cols = 80;
    this.rows = 24;
    this.lines = [];
    this.cursor = { row: 0, col: 0, shape: 'block', visible: true, blink: false };
    this.modes = { mouse: 'off' };
    this.title = '';
    this.role = 'view';
    this.sessionId = '';
    this.styles = new Map();
    this.base = 0;
    this.scrollback = new Map(); // absolute line -> line, least recently used first
    this.total = 0; // scrollback lines the session holds (from the last frame or answer)
    this.images = new Map(); // image hash -> ImageBitmap, for this connection
    this.resize(80, 24);
  }

  style(id) { return this.styles.get(id) || DEFAULT_STYLE; }

  resize(cols, rows) {
    this.cols = cols;
    this.rows = rows;
    this.lines = [];
    for (let r = 0; r < rows; r++) this.lines.push(blankLine(cols));
  }

  /** A new connection. One that resumes from the screen held (`resuming`)
   *  keeps its lines, styles and pictures: its first frame is a diff from
   *  them, or a full frame if the server could not resume. Else nothing
   *  carries over. Scrollback lines are asked for again either way. */
  hello(m, resuming = false) {
    const same = resuming && m.sessionId === this.sessionId;
    this.role = m.role;
    this.sessionId = m.sessionId;
    this.dropScrollback();
    if (same) return;
    this.images = new Map();
    this.styles.clear();
    if (m.cols !== this.cols || m.rows !== this.rows) this.resize(m.cols, m.rows);
  }

  /** Returns true when the table was reset (a full frame follows). */
  applyStyles(m) {
    if (m.reset) this.styles.clear();
    for (const d of m.defs) this.styles.set(d.id, d.style);
    return m.reset;
  }

  dropScrollback() {
    this.scrollback.clear();
    this.total = 0;
    this.base = 0;
  }

  /**
   * Applies a frame. Returns what changed: {full, scroll, pushed, rows
   * (changed rows), resized}. `scroll` is the shift applied (0 when full),
   * `pushed` the lines added to the scrollback.
   */
  applyFrame(m) {
    const resized = m.cols !== this.cols || m.rows !== this.rows;
    const full = m.full || resized;
    let scroll = 0;
    if (full) {
      this.resize(m.cols, m.rows);
      this.dropScrollback();
    } else {
      // The first `kept` lines pushed into the scrollback are these top rows, unchanged.
      for (let r = 0; r < m.kept; r++) this.cache(this.base + r, this.lines[r]);
      this.base += m.pushed;
      if (m.scroll > 0) {
        scroll = Math.min(m.scroll, this.rows);
        this.lines.splice(0, scroll);
        for (let r = 0; r < scroll; r++) this.lines.push(blankLine(this.cols));
      }
    }
    // Lines the session no longer holds go: their style ids may be reused.
    this.total = m.scrollback;
    this.evict();
    const rows = [];
    for (const { row, line } of m.lines) {
      this.lines[row] = line;
      rows.push(row);
    }
    this.cursor = m.cursor;
    this.modes = m.modes;
    if (m.title !== null) this.title = m.title;
    return { full, scroll, pushed: full ? 0 : m.pushed, rows, resized };
  }

  /** Stores a Scrollback answer; returns how many lines it kept (lines laid out at another width are dropped). */
  applyScrollback(m) {
    this.total = Number(m.total);
    if (m.cols !== this.cols) return 0;
    const start = Number(m.start);
    m.lines.forEach((line, i) => this.cache(this.base - (start + i), line));
    this.evict();
    return m.lines.length;
  }

  /** Caches scrollback line `a` as the most recently used. */
  cache(a, line) {
    this.scrollback.delete(a);
    this.scrollback.set(a, line);
  }

  /** Drops the lines the session no longer holds, then the least recently used past the cap. */
  evict() {
    const m = this.scrollback, cap = Math.min(CACHE_LINES, Math.max(this.total, this.rows));
    for (const a of m.keys()) if (a < this.base - this.total) m.delete(a);
    for (const a of m.keys()) {
      if (m.size <= cap) break;
      m.delete(a);
    }
  }

  /** Line at absolute number `a`: a screen row, a cached scrollback line (now the most recently used), or undefined. */
  line(a) {
    const r = a - this.base;
    if (r >= 0) return this.lines[r];
    const l = this.scrollback.get(a);
    if (l) this.cache(a, l);
    return l;
  }

  /** The text of a line between columns [from, to), spacers skipped. */
  static lineText(line, from = 0, to = Infinity) {
    let s = '';
    const end = Math.min(to, line.text.length);
    for (let c = from; c < end; c++) if (line.width[c] !== 0) s += line.text[c];
    return s;
  }

  /** Screen rows as text, trailing blanks trimmed (as the API's text format). */
  text() {
    return this.lines.map((l) => Screen.lineText(l).replace(/ +$/, '')).join('\n');
  }
}
