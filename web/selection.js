// Selection in absolute line numbers, by character, word or line (web/README.md).
import { Screen } from './screen.js';

const SEPARATORS = ' \t()[]{}<>\'"`,;|│';

const before = (p, q) => p.a < q.a || (p.a === q.a && p.col < q.col);

export class Selection {
  constructor() { this.clear(); }

  clear() {
    this.anchor = null;
    this.head = null;
    this.mode = 'char';
  }

  get active() {
    return !!this.anchor && (this.anchor.a !== this.head.a || this.anchor.col !== this.head.col || this.mode !== 'char');
  }

  start(screen, pos, mode = 'char') {
    this.mode = mode;
    this.anchor = { ...pos };
    this.head = { ...pos };
    this.origin = this.range(screen, pos);
    [this.anchor, this.head] = this.origin;
  }

  extend(screen, pos) {
    if (!this.anchor) return;
    const [s, e] = this.range(screen, pos);
    const [os, oe] = this.origin;
    // Keep the word or line first clicked, grow to the one under the pointer.
    if (before(s, os)) { this.anchor = oe; this.head = s; } else { this.anchor = os; this.head = e; }
  }

  /** The [start, end) range a click at pos covers in the current mode. */
  range(screen, pos) {
    const line = screen.line(pos.a);
    if (this.mode === 'line') {
      let a0 = pos.a, a1 = pos.a;
      while (screen.line(a0 - 1) && screen.line(a0 - 1).wrapped) a0--;
      while (screen.line(a1) && screen.line(a1).wrapped && screen.line(a1 + 1)) a1++;
      return [{ a: a0, col: 0 }, { a: a1, col: screen.cols }];
    }
    if (this.mode === 'word' && line) {
      const [from, to] = wordAt(line, pos.col);
      return [{ a: pos.a, col: from }, { a: pos.a, col: to }];
    }
    return [{ ...pos }, { ...pos }];
  }

  /** Ordered [start, end) or null. */
  bounds() {
    if (!this.active) return null;
    return before(this.head, this.anchor) ? [this.head, this.anchor] : [this.anchor, this.head];
  }

  contains(a, col) {
    const b = this.bounds();
    if (!b) return false;
    const p = { a, col };
    return !before(p, b[0]) && before(p, b[1]);
  }

  /** Rectangles for the overlay: rows top..top+rows-1 of the display. */
  rects(top, rows, cols) {
    const b = this.bounds();
    if (!b) return [];
    const out = [];
    for (let a = Math.max(b[0].a, top); a <= Math.min(b[1].a, top + rows - 1); a++) {
      const from = a === b[0].a ? b[0].col : 0;
      const to = a === b[1].a ? b[1].col : cols;
      if (to > from) out.push({ y: a - top, from, to });
    }
    return out;
  }

  text(screen) {
    const b = this.bounds();
    if (!b) return '';
    let out = '';
    for (let a = b[0].a; a <= b[1].a; a++) {
      const line = screen.line(a);
      const from = a === b[0].a ? b[0].col : 0;
      const to = a === b[1].a ? b[1].col : screen.cols;
      if (!line) {
        if (a < b[1].a) out += '\n';
        continue;
      }
      const t = Screen.lineText(line, from, to);
      if (a < b[1].a && line.wrapped) out += t;
      else out += t.replace(/ +$/, '') + (a < b[1].a ? '\n' : '');
    }
    return out;
  }
}

/** The word around column col of a line: [from, to) columns. */
export function wordAt(line, col) {
  const cols = line.text.length;
  while (col > 0 && line.width[col] === 0) col--;
  const kind = (c) => {
    const t = line.text[c];
    return line.width[c] === 0 ? -1 : SEPARATORS.includes(t) ? (t === ' ' ? 0 : 2) : 1;
  };
  const k = kind(col);
  if (k === 2) return [col, col + Math.max(1, line.width[col])];
  let from = col, to = col + 1;
  while (from > 0 && (kind(from - 1) === k || (kind(from - 1) === -1 && k !== 0))) from--;
  while (to < cols && (kind(to) === k || kind(to) === -1)) to++;
  return [from, to];
}
