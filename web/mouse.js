// The mouse: selecting, opening links, reporting to the program, the wheel.
import { encodeKey, encodeMouse } from './encode.js';
import { modsOf } from './input.js';
import { isMac } from './platform.js';
import { safeLink } from './links.js';

/** Methods of Terminal (terminal.js). */
export const Mouse = {
  cellAt(e) {
    const r = this.canvas.getBoundingClientRect();
    const col = Math.floor(((e.clientX - r.left) / r.width) * this.cols);
    const row = Math.floor(((e.clientY - r.top) / r.height) * this.rows);
    return {
      col: Math.max(0, Math.min(this.cols - 1, col)),
      row: Math.max(0, Math.min(this.rows - 1, row)),
    };
  },

  reporting(e) {
    return this.canType && this.screen.modes.mouse !== 'off' && !e.shiftKey && !this.viewOffset;
  },

  bindMouse() {
    const s = this.screenEl;
    const BTN = [1, 2, 3]; // DOM button 0/1/2 -> left/middle/right
    s.addEventListener('pointerdown', (e) => {
      this.focus();
      e.preventDefault();
      if (e.pointerType === 'touch') return this.touch.down(e);
      const cell = this.cellAt(e);
      if (this.reporting(e)) {
        if (e.button > 2) return;
        s.setPointerCapture(e.pointerId);
        this.buttons = BTN[e.button];
        this.mouseCell = cell;
        this.sendInput(encodeMouse(0, BTN[e.button], modsOf(e), cell.row, cell.col));
        return;
      }
      if (e.button !== 0) return;
      const a = this.screen.base - this.viewOffset + cell.row;
      const link = this.linkAt(cell);
      if (link && (e.ctrlKey || e.metaKey)) {
        const url = safeLink(link.url);
        if (url) window.open(url, '_blank', 'noopener,noreferrer');
        return;
      }
      s.setPointerCapture(e.pointerId);
      // A pointerdown's detail is 0 in some browsers: count clicks.
      const now = Date.now(), last = this.lastClick;
      const clicks = last && now - last.t < 450 && Math.abs(last.x - e.clientX) < 5 && Math.abs(last.y - e.clientY) < 5 ? last.n % 3 + 1 : 1;
      this.lastClick = { t: now, x: e.clientX, y: e.clientY, n: clicks };
      const mode = clicks === 3 ? 'line' : clicks === 2 ? 'word' : 'char';
      if (e.shiftKey && this.selection.anchor) this.selection.extend(this.screen, { a, col: cell.col });
      else this.selection.start(this.screen, { a, col: cell.col }, mode);
      this.selecting = true;
      this.schedule();
    });
    s.addEventListener('pointerleave', () => this.hover(null));
    s.addEventListener('pointermove', (e) => {
      if (e.pointerType === 'touch') return this.touch.move(e);
      const cell = this.cellAt(e);
      if (this.selecting) {
        const r = this.canvas.getBoundingClientRect();
        // Past the right half of a cell selects it too.
        const x = ((e.clientX - r.left) / r.width) * this.cols;
        const col = Math.max(0, Math.min(this.cols, Math.round(x)));
        if (e.clientY < r.top) this.scrollView(1);
        else if (e.clientY > r.bottom) this.scrollView(-1);
        this.selection.extend(this.screen, { a: this.screen.base - this.viewOffset + cell.row, col });
        this.schedule();
        return;
      }
      if (this.reporting(e)) {
        const mode = this.screen.modes.mouse;
        if ((mode === 'drag' && this.buttons) || mode === 'motion') {
          if (!this.mouseCell || cell.row !== this.mouseCell.row || cell.col !== this.mouseCell.col) {
            this.mouseCell = cell;
            this.sendInput(encodeMouse(2, this.buttons, modsOf(e), cell.row, cell.col));
          }
        }
        return;
      }
      const link = this.linkAt(cell);
      this.hover(link && { ...link, y: cell.row });
      s.style.cursor = link ? 'pointer' : 'text';
      s.title = link ? `${link.url}\n(${isMac ? 'Cmd' : 'Ctrl'}-click to open)` : '';
    });
    const up = (e) => {
      if (e.pointerType === 'touch') return this.touch.up(e);
      if (this.selecting) {
        this.selecting = false;
        if (!this.selection.active) this.selection.clear();
        this.schedule();
        return;
      }
      if (this.buttons && this.canType) {
        const cell = this.cellAt(e);
        this.sendInput(encodeMouse(1, this.buttons, modsOf(e), cell.row, cell.col));
        this.buttons = 0;
      }
    };
    s.addEventListener('pointerup', up);
    s.addEventListener('pointercancel', up);
    s.addEventListener('contextmenu', (e) => { if (this.reporting(e)) e.preventDefault(); });
    this.el.addEventListener('wheel', (e) => {
      e.preventDefault();
      const lineH = this.painter.cellCss.height;
      const d = e.deltaMode === 1 ? e.deltaY : e.deltaMode === 2 ? e.deltaY * this.rows : e.deltaY / lineH;
      this.wheelAcc += d;
      const n = Math.trunc(this.wheelAcc);
      if (!n) return;
      this.wheelAcc -= n;
      this.wheelLines(Math.max(-30, Math.min(30, n)), e);
    }, { passive: false });
  },

  /** n lines of wheel or drag (down > 0): scrollback, mouse wheel events or Up/Down. */
  wheelLines(n, e) {
    if (this.reporting(e)) {
      const cell = this.cellAt(e);
      const kind = n < 0 ? 3 : 4;
      for (let i = 0; i < Math.min(Math.abs(n), 5); i++) this.sendInput(encodeMouse(kind, 0, modsOf(e), cell.row, cell.col));
    } else if (this.screen.modes.altScreen && this.canType) {
      // As xterm's alternateScroll.
      for (let i = 0; i < Math.min(Math.abs(n), 10); i++) this.sendInput(encodeKey(n < 0 ? 'Up' : 'Down', 0));
    } else {
      this.scrollView(-n);
    }
  },
};
