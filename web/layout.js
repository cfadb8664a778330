// Fitting the terminal to its container: the session's size or the font size
// (`fit`: web/README.md).
import * as P from './protocol.js';
import { encodeResize } from './encode.js';

/** Methods of Terminal (terminal.js). */
export const Layout = {
  /** Fits the terminal to its container (`fit`: web/README.md). */
  layout() {
    const r = this.el.getBoundingClientRect(), bar = this.el.querySelector('.pc-keys');
    const box = { width: r.width, height: r.height - (bar ? bar.offsetHeight : 0) };
    if (!box.width || !box.height) return;
    const p = this.painter, sc = this.screen;
    if (p.dpr !== (window.devicePixelRatio || 1)) {
      p.measure(p.fontSize);
      this.dirtyAll = true;
    }
    const control = sc.role === 'control';
    const fit = this.opts.fit === 'auto' ? (control ? 'resize' : 'scale') : this.opts.fit;
    let size = this.baseFont;
    if (fit === 'resize' || fit === 'scale') {
      if (fit === 'resize' && control && this.conn && this.conn.open) {
        if (p.fontSize !== this.baseFont) p.measure(this.baseFont);
        const cell = p.cellCss;
        const cols = Math.max(1, Math.min(P.LIMIT.COLS, Math.floor(box.width / cell.width)));
        const rows = Math.max(1, Math.min(P.LIMIT.ROWS, Math.floor(box.height / cell.height)));
        const want = cols + 'x' + rows;
        if ((cols !== sc.cols || rows !== sc.rows) && this.lastResize !== want) {
          this.lastResize = want;
          this.send(encodeResize(cols, rows));
        }
      }
      size = this.fitFont(box, fit === 'resize' ? this.baseFont : Infinity);
    }
    if (Math.abs(size - p.fontSize) > 0.01) {
      p.measure(size);
      this.dirtyAll = true;
    }
    if (p.resize(sc.cols, sc.rows)) this.dirtyAll = true;
    this.schedule();
  },

  /** The largest font size, at most max, at which the screen fits in box. */
  fitFont(box, max) {
    const p = this.painter, sc = this.screen;
    const fits = () => sc.cols * p.cellCss.width <= box.width + 0.01 && sc.rows * p.cellCss.height <= box.height + 0.01;
    if (p.fontSize === max && fits()) return max;
    const ratio = Math.min(box.width / (sc.cols * p.cellCss.width), box.height / (sc.rows * p.cellCss.height));
    const start = p.fontSize;
    p.measure(Math.max(4, Math.min(max, start * ratio)));
    for (let i = 0; i < 10 && !fits() && p.fontSize > 4; i++) p.measure(Math.max(4, p.fontSize * 0.97));
    const size = p.fontSize;
    p.measure(start);
    return size;
  },

  setFontSize(px) {
    this.baseFont = px;
    this.painter.measure(px);
    this.dirtyAll = true;
    this.layout();
  },
};
