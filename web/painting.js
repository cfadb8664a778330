// Painting the screen: changed rows at the next animation frame, then the overlay
// (cursor, selection, search, links, predictions) and the cursor's blink.
import { media } from './platform.js';

/** Methods of Terminal (terminal.js). */
export const Painting = {
  schedule() {
    if (!this.raf) this.raf = requestAnimationFrame(() => this.paint());
  },

  paint() {
    this.raf = 0;
    const p = this.painter, sc = this.screen;
    if (p.cols !== sc.cols || p.rows !== sc.rows) {
      p.resize(sc.cols, sc.rows);
      this.dirtyAll = true;
    }
    if (this.dirtyAll || this.pendingScroll >= sc.rows) {
      for (let y = 0; y < sc.rows; y++) p.paintRow(sc, y, this.displayLine(y));
    } else {
      if (this.pendingScroll) p.scroll(this.pendingScroll);
      for (const y of this.dirty) if (y < sc.rows) p.paintRow(sc, y, this.displayLine(y));
    }
    this.dirtyAll = false;
    this.dirty.clear();
    this.pendingScroll = 0;
    this.drawOverlay();
    this.paints = (this.paints || 0) + 1;
  },

  drawOverlay() {
    const sc = this.screen, predicted = !this.viewOffset && this.typing.cursor();
    const c = predicted ? { ...sc.cursor, row: predicted.row, col: predicted.col } : sc.cursor;
    const top = sc.base - this.viewOffset;
    const row = c.row + this.viewOffset;
    const showCursor = c.visible && row < sc.rows && (this.cursorOn || !c.blink || !this.focused);
    const cursor = showCursor ? { row, col: c.col, shape: c.shape } : null;
    if (this.touch.shown) this.touch.place();
    this.painter.drawOverlay(sc, {
      selection: this.selection.rects(top, sc.rows, sc.cols),
      found: this.search.rects(top, sc.rows, sc.cols),
      link: this.link,
      cursor,
      focused: this.focused,
      composition: this.composition && !this.viewOffset ? this.composition : '',
      predicted: this.viewOffset ? [] : this.typing.marks(),
    });
    // Keep the hidden textarea on the cursor so the IME's window opens there.
    const cell = this.painter.cellCss;
    const left = Math.round(c.col * cell.width) + 'px';
    const topPx = Math.round(c.row * cell.height) + 'px';
    if (this.ta.style.left !== left) this.ta.style.left = left;
    if (this.ta.style.top !== topPx) this.ta.style.top = topPx;
    // Blink only while focused and the cursor asks for it.
    const blink = c.blink && this.focused && c.visible && !media('(prefers-reduced-motion: reduce)');
    if (blink && !this.blinkTimer) {
      this.blinkTimer = setInterval(() => {
        this.cursorOn = !this.cursorOn;
        this.drawOverlay();
      }, 530);
    } else if (!blink && this.blinkTimer) {
      clearInterval(this.blinkTimer);
      this.blinkTimer = null;
    }
  },
};
