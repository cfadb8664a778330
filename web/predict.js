// Predictive local echo (web/README.md, "Prediction and a link that drops"): what a key will do to
// the line the cursor is on, shown before the program echoes it, and
// judged against the screen once the server says the program has had time
// to echo it (Sync's input number, PROTOCOL.md).
//
// As mosh does: predictions belong to epochs, and an epoch's predictions
// show only once the program has echoed one of them (the first of each
// epoch waits for its echo). A new epoch begins at a key whose effect
// cannot be foreseen (Enter, control keys), and when a prediction proves
// wrong; so a password typed at a prompt that does not echo is never shown,
// even where the terminal's modes cannot tell (a remote one, through ssh).
// Where they can (a canonical terminal without ECHO), nothing is predicted.
// Pure logic: the terminal says what was sent and what the screen shows.

/** Predictions show once the smoothed round trip exceeds this (ms)... */
export const SHOW_ABOVE_MS = 30;
/** ...and stop once it falls below this (ms). */
export const HIDE_BELOW_MS = 20;
/** Cells predicted at once, at most: more are not predicted. */
const MAX_CELLS = 1024;
/** Inputs remembered until judged, at most (to predict again from a new base). */
const MAX_EFFECTS = 512;

/** Whether `ch` is one character a prediction can show: printable, one cell wide. */
export function predictable(ch) {
  return typeof ch === 'string' && [...ch].length === 1 && /^[\x20-\x7e\u00a0-\u02ff\u0370-\u052f]$/u.test(ch);
}

/** What an input message does, for prediction: {char}, 'backspace', 'left', 'right', 'neutral' or 'other'. */
export function keyEffect(key, mods) {
  if (mods) return 'other';
  if (typeof key === 'object') return predictable(key.char) ? { char: key.char } : 'other';
  return { Backspace: 'backspace', Left: 'left', Right: 'right' }[key] || 'other';
}

const text = (line, col) => (line.width[col] === 0 ? '' : line.text[col]);

export class Predictor {
  constructor() {
    this.epoch = 1;
    this.confirmed = 0; // the latest epoch one of whose predictions was echoed
    this.cells = new Map(); // row * 65536 + col -> {row, col, ch, style, seq, epoch, original, shownAt}
    this.cursor = null; // {row, col, seq, epoch}
    this.floor = null; // {row, col}: where typing on the cursor's line began (Backspace and Left stop there)
    this.effects = []; // {seq, effect} of the inputs sent and not yet judged, oldest first
    this.wait = 0; // an input whose effect was not foreseen: the next predictions start from the screen once it is judged
    this.judged = 0; // the last input judged
    this.sent = 0; // the last input sent that may change the line (focus reports do not)
    this.echo = { known: false, echo: false, canonical: false, barred: false };
    this.enabled = true;
    this.srtt = null;
    this.showing = false;
    this.touched = new Set(); // rows whose shown predictions changed
    // Inputs predicted and proved wrong, cells confirmed, cells shown then erased (and after how long, ms).
    this.stats = { predicted: 0, wrong: 0, confirmed: 0, wrongShown: 0, erasedAfter: [] };
  }

  /** Whether typed keys may be predicted at all (the setting, a password prompt, the profile). */
  get allowed() {
    const e = this.echo;
    return this.enabled && !e.barred && !(e.known && e.canonical && !e.echo);
  }

  /** A round-trip sample (ms): predictions show above SHOW_ABOVE_MS, not below HIDE_BELOW_MS. */
  rtt(ms) {
    this.srtt = this.srtt === null ? ms : this.srtt + (ms - this.srtt) / 8;
    const was = this.showing;
    if (this.srtt > SHOW_ABOVE_MS) this.showing = true;
    else if (this.srtt < HIDE_BELOW_MS) this.showing = false;
    if (was !== this.showing) this.touchAll();
  }

  /** The echo state a Sync brought; a prompt that will not echo drops every prediction. */
  setEcho(echo) {
    this.echo = echo;
    if (!this.allowed) this.drop();
  }

  /** Input `seq` was sent, with `effect` (keyEffect's, or {text} for typed text), on `screen`. */
  input(seq, effect, screen) {
    if (effect === 'neutral') return; // a focus report: the line stays as it is
    this.sent = seq;
    const chars = effect.text === undefined ? null : [...effect.text];
    const effects = !chars ? [effect] : chars.every(predictable) ? chars.map((ch) => ({ char: ch })) : ['other'];
    for (const e of effects) this.effects.push({ seq, effect: e });
    if (this.effects.length > MAX_EFFECTS) {
      // Too many in flight to predict from: start again once this one is judged.
      this.effects = [];
      this.unforeseen(seq);
      return;
    }
    // Until the last unforeseen input is judged, the base is not known:
    // these are predicted then, from the screen (rebase).
    if (this.judged < this.wait) return;
    for (const e of effects) if (!this.predict(seq, e, screen)) return;
  }

  /** Predicts one effect; false (and a new epoch) when it cannot be foreseen. */
  predict(seq, effect, screen) {
    if (!this.allowed || this.cells.size >= MAX_CELLS) return this.unforeseen(seq);
    const at = this.cursor || screen.cursor;
    const { row } = at;
    let { col } = at;
    const line = screen.lines[row];
    if (!line || (!this.cursor && !at.visible)) return this.unforeseen(seq);
    const cols = screen.cols;
    const shown = (c) => this.cellText(row, c, line);
    if (line.width.some((w) => w !== 1)) return this.unforeseen(seq); // wide characters: not foreseen
    let end = cols - 1; // the last non-blank column
    while (end >= 0 && shown(end) === ' ') end--;
    const floor = this.floor && this.floor.row === row ? this.floor.col : null;
    if (effect.char !== undefined) {
      if (col >= cols - 1) return this.unforeseen(seq); // the line would wrap
      if (floor === null) this.floor = { row, col };
      // The program inserts: what is right of the cursor moves right.
      for (let c = Math.min(end + 1, cols - 1); c > col; c--) this.set(row, c, shown(c - 1), line, seq);
      this.set(row, col, effect.char, line, seq);
      col++;
    } else if (effect === 'backspace') {
      if (floor === null || col <= floor) return this.unforeseen(seq);
      col--;
      for (let c = col; c <= Math.max(end, col); c++) this.set(row, c, c + 1 < cols ? shown(c + 1) : ' ', line, seq);
    } else if (effect === 'left') {
      if (floor === null || col <= floor) return this.unforeseen(seq);
      col--;
    } else if (effect === 'right') {
      if (col > end) return this.unforeseen(seq);
      col++;
    } else {
      return this.unforeseen(seq);
    }
    this.cursor = { row, col, seq, epoch: this.epoch };
    this.touched.add(row);
    this.stats.predicted++;
    return true;
  }

  set(row, col, ch, line, seq) {
    const key = row * 65536 + col;
    const old = this.cells.get(key);
    this.cells.set(key, {
      row, col, ch, seq, epoch: this.epoch,
      style: line.style[col] || line.style[Math.max(0, col - 1)] || 0,
      original: old ? old.original : text(line, col),
      shownAt: old ? old.shownAt : 0,
    });
  }

  /** A key whose effect is not foreseen: a new epoch, and no prediction until it is judged. */
  unforeseen(seq) {
    this.epoch++;
    this.wait = Math.max(this.wait, seq);
    this.cursor = null;
    this.floor = null;
    return false;
  }

  /** The Sync says inputs up to `input` have had time to echo on `screen`: judges what they predicted. */
  judge(input, screen, now = performance.now()) {
    if (input <= this.judged) return;
    const blocked = this.judged < this.wait;
    this.judged = input;
    while (this.effects.length && this.effects[0].seq <= input) this.effects.shift();
    const wrong = new Set(); // the inputs whose predictions were wrong
    for (const [key, p] of this.cells) {
      if (p.seq > input) continue;
      this.cells.delete(key);
      this.touched.add(p.row);
      const line = screen.lines[p.row];
      const actual = line && p.col < line.text.length ? text(line, p.col) : undefined;
      if (actual === p.ch) {
        // A cell that already showed what was predicted proves nothing.
        if (p.original !== p.ch) {
          this.confirmed = Math.max(this.confirmed, p.epoch);
          this.stats.confirmed++;
        }
      } else {
        wrong.add(p.seq);
        if (p.shownAt) {
          this.stats.wrongShown++;
          this.stats.erasedAfter.push(now - p.shownAt);
        }
      }
    }
    // The cursor is the last input's: once judged, the screen's is right.
    const c = this.cursor;
    if (c && c.seq <= input) {
      if (screen.cursor.row !== c.row || screen.cursor.col !== c.col) wrong.add(c.seq);
      this.cursor = null;
    }
    if (wrong.size) {
      // Wrong: all go, and the next must be echoed before any shows.
      this.stats.wrong += wrong.size;
      this.epoch++;
      this.rebase(screen);
    } else if (blocked && this.judged >= this.wait) {
      this.rebase(screen);
    }
  }

  /** Predicts again, from `screen`, what the inputs not yet judged will do. */
  rebase(screen) {
    this.drop();
    for (const { seq, effect } of this.effects) if (!this.predict(seq, effect, screen)) return;
  }

  /** Every prediction goes. */
  drop() {
    this.touchAll();
    this.cells.clear();
    this.cursor = null;
  }

  /** The screen moved under the predictions (scrolled, resized, replaced): they go, and are made again from it, in a new epoch. */
  reset(screen) {
    this.epoch++;
    this.floor = null;
    this.rebase(screen);
  }

  /** Whether predictions of `epoch` show now. */
  shows(epoch) { return this.showing && this.allowed && epoch <= this.confirmed; }

  /** The text row `row` shows at `col`: a shown prediction, or the screen's. */
  cellText(row, col, line) {
    const p = this.cells.get(row * 65536 + col);
    return p ? p.ch : text(line, col);
  }

  /** The predictions shown on `row`, [{col, ch, style}], marked shown at `now`. */
  shownOn(row, now = performance.now()) {
    const out = [];
    for (const p of this.cells.values()) {
      if (p.row !== row || !this.shows(p.epoch)) continue;
      if (!p.shownAt) p.shownAt = now;
      out.push(p);
    }
    return out;
  }

  /** The cursor as predicted, when it shows. */
  shownCursor() {
    const c = this.cursor;
    return c && this.shows(c.epoch) ? c : null;
  }

  touchAll() { for (const p of this.cells.values()) this.touched.add(p.row); if (this.cursor) this.touched.add(this.cursor.row); }

  /** Rows whose shown predictions changed since the last call. */
  takeTouched() {
    const rows = this.touched;
    this.touched = new Set();
    return rows;
  }
}
