// The view into the scrollback: scrolling it, asking the server for its lines.
import * as P from './protocol.js';
import { encodeScrollbackRequest } from './encode.js';

/** Methods of Terminal (terminal.js). */
export const ScrollView = {
  scrollView(lines) {
    const sc = this.screen;
    const v = Math.max(0, Math.min(sc.total, this.viewOffset + lines));
    if (v === this.viewOffset) return;
    this.viewOffset = v;
    this.dirtyAll = true;
    this.fetchScrollback();
    this.schedule();
  },

  /** Scrolls so that absolute line `a` shows, about mid-screen when it is in the scrollback. */
  reveal(a) {
    const sc = this.screen;
    this.scrollView((a >= sc.base ? 0 : sc.base - a + (this.rows >> 1)) - this.viewOffset);
  },

  /** Requests the scrollback lines the view shows but the cache lacks, and a page either side. */
  fetchScrollback() {
    const sc = this.screen;
    if (!this.viewOffset || !this.conn) return;
    const top = sc.base - this.viewOffset;
    let lo = Infinity, hi = 0; // scrollback indices missing (1 = just above the screen)
    for (let y = 0; y < this.rows && top + y < sc.base; y++) {
      if (!sc.line(top + y)) {
        lo = Math.min(lo, sc.base - top - y);
        hi = Math.max(hi, sc.base - top - y);
      }
    }
    if (!hi) return;
    if (this.inflight.some((r) => r.near >= sc.base - lo && r.far <= sc.base - hi)) return;
    const start = Math.max(1, lo - this.rows);
    const count = Math.min(P.LIMIT.SCROLLBACK_LINES, hi - start + 1 + this.rows);
    this.inflight.push({ near: sc.base - start, far: sc.base - (start + count - 1) });
    this.send(encodeScrollbackRequest(BigInt(start), count));
  },

  /** The line shown on display row y (scrolled back or not). */
  displayLine(y) {
    const line = this.screen.line(this.screen.base - this.viewOffset + y);
    return this.viewOffset ? line : this.typing.line(y, line);
  },
};
