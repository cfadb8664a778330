// What is typed, between the keyboard and the link (notes: web/README.md):
// each input message numbered and held until acknowledged (outbox.js),
// predicted on the screen until the program echoes it (predict.js), and
// the screen revision to resume from when the link comes back.
import { Outbox, HELD_MESSAGES } from './outbox.js';
import { Predictor } from './predict.js';

/** An input unacknowledged this long (ms), or three round trips if longer, means the link is quiet. */
export const QUIET_AFTER_MS = 1000;

export class Typing {
  /** `send(bytes)` puts a message on the open connection; `predict: false` turns prediction off. */
  constructor(send, { predict = true } = {}) {
    this.outbox = new Outbox(send);
    this.predictor = new Predictor();
    this.predictor.enabled = predict;
    this.revision = null; // the last Sync's, while no frame came after it
    this.sentAt = new Map(); // input number -> when it was typed (performance.now())
    // Whether the server acknowledges input (it has sent a Sync): one that
    // does not (an older server) neither says what it applied nor applies
    // a number once, so nothing it was sent is sent again, and no wait for
    // an acknowledgement makes the link look quiet.
    this.acknowledging = false;
  }

  /** Sends (or holds) an input message that has `effect` (predict.js) on `screen`; false when it was dropped. */
  input(bytes, effect, screen, now = performance.now()) {
    const seq = this.outbox.push(bytes);
    if (seq === null) return false;
    this.sentAt.set(seq, now);
    if (this.sentAt.size > HELD_MESSAGES) this.sentAt.delete(this.sentAt.keys().next().value);
    this.predictor.input(seq, effect, screen);
    return true;
  }

  /** The next connection's query parameters; `resume` when the screen held is the last Sync's. */
  params(resume) {
    const p = this.outbox.params();
    this.resuming = resume && this.revision !== null;
    if (this.resuming) p.resume = this.revision;
    return p;
  }

  /** A Sync: the revision held, the echo state, and the inputs the program has had. */
  sync(m, screen) {
    this.acknowledging = true;
    this.revision = m.revision;
    this.predictor.setEcho(m.echo);
    const input = Number(m.input);
    this.outbox.acked(input);
    for (const seq of this.sentAt.keys()) if (seq <= input) this.sentAt.delete(seq);
    this.predictor.judge(input, screen);
  }

  /** A frame was applied (`change` as Screen.applyFrame returns it). */
  frame(change, screen) {
    this.revision = null; // until the Sync that follows it
    if (change.full || change.resized || change.scroll || change.pushed) this.predictor.reset(screen);
  }

  /** A connection's Hello: one that may type sends what was held; one that cannot drops it (how many). */
  hello(role) {
    if (role === 'control') {
      this.outbox.opened();
      return 0;
    }
    this.sentAt.clear();
    return this.outbox.discard();
  }

  /** The connection closed: what is typed is held until the next. */
  closed() {
    this.outbox.closed();
    if (!this.acknowledging) this.forgetSent();
  }

  /** Forgets what was put on a connection, as if acknowledged. */
  forgetSent() {
    const sent = this.outbox.sent;
    this.outbox.acked(sent);
    for (const seq of this.sentAt.keys()) if (seq <= sent) this.sentAt.delete(seq);
  }

  /** How long (ms) the oldest input has waited for its acknowledgement, or 0. */
  waiting(now = performance.now()) {
    for (const at of this.sentAt.values()) return now - at;
    return 0;
  }

  /** Whether the link has been quiet too long, given the oldest input's wait. */
  quiet(now = performance.now()) {
    if (!this.acknowledging) return false;
    const srtt = this.predictor.srtt || 0;
    return this.waiting(now) > Math.max(QUIET_AFTER_MS, 3 * srtt);
  }

  /** Line `y` as shown: the screen's, with the predictions shown on it. */
  line(y, line) {
    const shown = line ? this.predictor.shownOn(y) : [];
    if (!shown.length) return line;
    const copy = { wrapped: line.wrapped, text: line.text.slice(), width: line.width.slice(), style: line.style.slice() };
    for (const p of shown) {
      copy.text[p.col] = p.ch;
      copy.width[p.col] = 1;
      copy.style[p.col] = p.style;
    }
    return copy;
  }

  /** The predicted cursor, when it shows. */
  cursor() { return this.predictor.shownCursor(); }

  /** Where unconfirmed cells are marked: [{y, from, to}]. */
  marks() {
    const out = [];
    for (const p of this.predictor.cells.values()) {
      if (this.predictor.shows(p.epoch)) out.push({ y: p.row, from: p.col, to: p.col + 1 });
    }
    return out;
  }

  /** Rows whose shown predictions changed since the last call. */
  touched() { return this.predictor.takeTouched(); }
}
