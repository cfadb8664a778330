// Paints a Screen on a canvas, in device pixels (notes: web/README.md).
import { Palette, mix } from './palette.js';
import { ATTR } from './protocol.js';
import { drawn, drawGlyph } from './glyphs.js';

/** Monospace, then CJK and emoji fallbacks. */
export const DEFAULT_FONT = '"DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", "Noto Sans Mono", "Noto Sans CJK SC", "WenQuanYi Micro Hei", "PingFang SC", "Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji", monospace';

export class Painter {
  constructor(canvas, overlay, { fontFamily = DEFAULT_FONT, fontSize = 14, lineHeight = 1, theme = 'dark' } = {}) {
    this.canvas = canvas;
    this.overlay = overlay;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.octx = overlay ? overlay.getContext('2d') : null;
    this.mctx = document.createElement('canvas').getContext('2d'); // measures
    this.family = fontFamily;
    this.fontSize = fontSize;
    this.lineHeight = lineHeight;
    this.palette = new Palette(theme);
    this.cols = 0;
    this.rows = 0;
    this.reverse = false;
    this.measure();
  }

  setTheme(theme) {
    this.palette = new Palette(theme);
    this.styleCache = new Map();
  }

  /** Measures the font at `fontSize` CSS px times devicePixelRatio. */
  measure(fontSize = this.fontSize) {
    this.fontSize = fontSize;
    this.dpr = (typeof devicePixelRatio === 'number' && devicePixelRatio > 0) ? devicePixelRatio : 1;
    const px = fontSize * this.dpr;
    this.fonts = ['', 'bold ', 'italic ', 'bold italic '].map((w) => `${w}${px}px ${this.family}`);
    const m = this.mctx;
    m.font = this.fonts[0];
    const t = m.measureText('M'.repeat(20));
    this.cw = t.width / 20 || px * 0.6;
    const asc = t.fontBoundingBoxAscent ?? px * 0.8;
    const desc = t.fontBoundingBoxDescent ?? px * 0.2;
    this.ch = Math.max(1, Math.ceil(Math.max(asc + desc, px * 1.1) * this.lineHeight));
    this.baseline = Math.round((this.ch - (asc + desc)) / 2 + asc);
    this.line = Math.max(1, Math.round(this.dpr));
    this.glyphs = [new Map(), new Map(), new Map(), new Map()]; // font -> text -> advance
    this.ascii = [0, 1, 2, 3].map(() => new Uint8Array(128)); // 1 fits a cell, 2 not
    this.styleCache = new Map();
    this.boxes = new Map(); // box-drawing rectangles by character and cell width
    if (this.cols) this.resize(this.cols, this.rows, true);
  }

  /** Cell size in CSS pixels. */
  get cellCss() { return { width: this.cw / this.dpr, height: this.ch / this.dpr }; }

  resize(cols, rows, force = false) {
    if (!force && cols === this.cols && rows === this.rows) return false;
    this.cols = cols;
    this.rows = rows;
    this.W = Math.ceil(cols * this.cw);
    this.H = rows * this.ch;
    for (const c of [this.canvas, this.overlay]) {
      if (!c) continue;
      c.width = this.W;
      c.height = this.H;
      c.style.width = this.W / this.dpr + 'px';
      c.style.height = this.H / this.dpr + 'px';
    }
    this.ctx.textBaseline = 'alphabetic';
    if ('fontKerning' in this.ctx) this.ctx.fontKerning = 'none';
    if ('textRendering' in this.ctx) this.ctx.textRendering = 'optimizeSpeed'; // no ligatures
    this.font = this.fill = null;
    return true;
  }

  x(col) { return Math.round(col * this.cw); }

  setReverse(on) {
    if (on !== this.reverse) {
      this.reverse = on;
      this.styleCache = new Map();
      return true;
    }
    return false;
  }

  get defFg() { return this.reverse ? this.palette.bg : this.palette.fg; }
  get defBg() { return this.reverse ? this.palette.fg : this.palette.bg; }

  /** Resolved paint style for a style id (cached until styles, theme or reverse video change). */
  resolve(screen, id) {
    let r = this.styleCache.get(id);
    if (r) return r;
    const s = screen.style(id);
    const p = this.palette;
    let fgc = s.fg;
    if ((s.attrs & ATTR.BOLD) && p.boldBright && fgc >= 0 && fgc < 8) fgc += 8;
    let fg = p.css(fgc, this.defFg);
    let bg = p.css(s.bg, this.defBg);
    if (s.attrs & ATTR.INVERSE) [fg, bg] = [bg, fg];
    if (s.attrs & ATTR.DIM) fg = mix(fg, bg, 0.5);
    r = {
      font: ((s.attrs & ATTR.BOLD) ? 1 : 0) | ((s.attrs & ATTR.ITALIC) ? 2 : 0),
      fg, bg,
      invisible: (s.attrs & ATTR.INVISIBLE) !== 0,
      strike: (s.attrs & ATTR.STRIKE) !== 0,
      underline: s.underline,
      ul: s.ul >= 0 ? p.css(s.ul, fg) : fg,
      link: s.link,
    };
    this.styleCache.set(id, r);
    return r;
  }

  /** Advance of `text` in font `fi`, measured once. */
  advance(fi, text) {
    const cache = this.glyphs[fi];
    let w = cache.get(text);
    if (w === undefined) {
      if (cache.size > 4096) cache.clear();
      this.mctx.font = this.fonts[fi];
      w = this.mctx.measureText(text).width;
      cache.set(text, w);
    }
    return w;
  }

  /** Shifts the canvas up by n rows (the scroll hint). */
  scroll(n) {
    if (n <= 0 || n >= this.rows) return;
    this.font = this.fill = null;
    const h = (this.rows - n) * this.ch;
    this.ctx.drawImage(this.canvas, 0, n * this.ch, this.W, h, 0, 0, this.W, h);
  }

  /** Paints row y with `line` (undefined: not fetched yet). */
  paintRow(screen, y, line) {
    const ctx = this.ctx, ch = this.ch, y0 = y * ch, cols = this.cols;
    this.setFill(this.defBg);
    ctx.fillRect(0, y0, this.W, ch);
    if (!line) return;
    this.pics(screen, line, y0, 1);
    const st = line.style, n = Math.min(cols, line.text.length);
    for (let c = 0; c < n;) {
      const id = st[c];
      let e = c + 1;
      while (e < n && st[e] === id) e++;
      if (id !== 0) {
        const rs = this.resolve(screen, id);
        if (rs.bg !== this.defBg) {
          this.setFill(rs.bg);
          ctx.fillRect(this.x(c), y0, this.x(e) - this.x(c), ch);
        }
      }
      c = e;
    }
    let clipped = false;
    for (let c = 0; c < n;) {
      const id = st[c];
      let e = c + 1;
      while (e < n && st[e] === id) e++;
      const rs = this.resolve(screen, id);
      if (!rs.invisible) clipped = this.textRun(line, c, e, rs, y0, clipped);
      if (rs.underline || rs.strike) this.decorate(c, e, rs, y0);
      c = e;
    }
    if (clipped) {
      ctx.restore();
      this.font = this.fill = null;
    }
    this.pics(screen, line, y0, 0);
  }

  /** Draws `line`'s image pieces under the text (z < 0) or over it, the source clipped to the picture and the cells in proportion. */
  pics(screen, line, y0, under) {
    for (const { hash, z, col, w, src: [x, y, sw, sh] } of line.images || []) {
      const b = screen.images.get(hash), dx = this.x(col);
      const cw = b && Math.min(sw, b.width - x), chh = b && Math.min(sh, b.height - y);
      if (z < 0 == under && cw > 0 && chh > 0) this.ctx.drawImage(b, x, y, cw, chh, dx, y0, (this.x(col + w) - dx) * cw / sw, this.ch * chh / sh);
    }
  }

  /** Whether a one-cell text can join a run: its advance is exactly the cell width. */
  fits(fi, t) {
    if (t.length !== 1) return false;
    const code = t.charCodeAt(0);
    const table = this.ascii[fi];
    if (code < 128) {
      let v = table[code];
      if (!v) v = table[code] = Math.abs(this.advance(fi, t) - this.cw) < 0.01 ? 1 : 2;
      return v === 1;
    }
    return Math.abs(this.advance(fi, t) - this.cw) < 0.01;
  }

  textRun(line, c, e, rs, y0, clipped) {
    const ctx = this.ctx, tx = line.text, wd = line.width, cw = this.cw, fi = rs.font;
    const yb = y0 + this.baseline;
    const raw = line.simple ? line.raw.text : null;
    const spaceOk = this.fits(fi, ' ');
    let start = -1, last = -1;
    const flush = () => {
      if (start < 0) return;
      let s;
      if (raw) s = raw.slice(start, last + 1);
      else {
        s = '';
        for (let k = start; k <= last; k++) if (wd[k]) s += tx[k];
      }
      this.setFont(fi, rs.fg);
      ctx.fillText(s, start * cw, yb);
      start = -1;
    };
    for (let i = c; i < e; i++) {
      const w = wd[i];
      if (w === 0) continue;
      const t = tx[i];
      if (t === ' ') {
        if (!spaceOk) flush();
        continue;
      }
      const k = t.charCodeAt(0);
      if (k >= 0x2500 && t.length === 1 && drawn(k)) {
        flush();
        drawGlyph(this, k, this.x(i), this.x(i + w), y0, rs.fg);
        continue;
      }
      if (w === 1 && this.fits(fi, t)) {
        if (start < 0) start = i;
        last = i;
        continue;
      }
      flush();
      // Alone in its cells, centred; a fallback font may be taller: clip.
      if (!clipped) {
        ctx.save();
        ctx.beginPath();
        ctx.rect(0, y0, this.W, this.ch);
        ctx.clip();
        this.font = this.fill = null;
        clipped = true;
      }
      const box = w * cw, gw = this.advance(fi, t);
      this.setFont(fi, rs.fg);
      if (gw > box) ctx.fillText(t, i * cw, yb, box);
      else ctx.fillText(t, i * cw + (box - gw) / 2, yb);
    }
    flush();
    return clipped;
  }

  setFont(fi, fg) {
    const ctx = this.ctx;
    if (this.font !== fi) {
      ctx.font = this.fonts[fi];
      this.font = fi;
    }
    this.setFill(fg);
  }

  setFill(c) {
    if (this.fill !== c) {
      this.ctx.fillStyle = c;
      this.fill = c;
    }
  }

  decorate(c, e, rs, y0) {
    const ctx = this.ctx, x0 = this.x(c), x1 = this.x(e), t = this.line;
    if (rs.strike) {
      this.setFill(rs.fg);
      ctx.fillRect(x0, y0 + Math.round(this.ch / 2), x1 - x0, t);
    }
    const u = rs.underline;
    if (!u) return;
    const y = Math.min(y0 + this.baseline + t * 2, y0 + this.ch - t);
    this.setFill(rs.ul);
    ctx.strokeStyle = rs.ul;
    if (u === 1) ctx.fillRect(x0, y, x1 - x0, t);
    else if (u === 2) {
      ctx.fillRect(x0, y - t, x1 - x0, t);
      ctx.fillRect(x0, Math.min(y + t, y0 + this.ch - t), x1 - x0, t);
    } else {
      ctx.save();
      ctx.lineWidth = t;
      ctx.beginPath();
      if (u === 3) { // curly: a wave, one period per cell
        const a = Math.max(1, t * 1.5), half = this.cw / 2;
        ctx.moveTo(x0, y);
        for (let x = x0, k = 0; x < x1; x += half, k++) ctx.quadraticCurveTo(x + half / 2, y + (k & 1 ? a : -a), x + half, y);
      } else {
        ctx.setLineDash(u === 4 ? [t, t * 2] : [t * 4, t * 3]);
        ctx.moveTo(x0, y + t / 2);
        ctx.lineTo(x1, y + t / 2);
      }
      ctx.stroke();
      ctx.restore();
      this.font = this.fill = null;
    }
  }

  /** Redraws the overlay: matches, selection, hovered link ({y, from, to}s), cursor ({row, col, shape}), IME text. */
  drawOverlay(screen, { selection = [], found = [], link = null, cursor = null, focused = false, composition = '', predicted = [] } = {}) {
    const o = this.octx;
    if (!o) return;
    o.clearRect(0, 0, this.W, this.H);
    if (predicted.length) { // predicted cells, not yet echoed: a dotted underline
      o.fillStyle = this.defFg;
      const y = Math.min(this.baseline + this.line * 2, this.ch - this.line);
      for (const p of predicted) {
        for (let x = this.x(p.from); x < this.x(p.to); x += this.line * 3) o.fillRect(x, p.y * this.ch + y, this.line * 2, this.line);
      }
    }
    if (link) { // the hovered link's underline
      o.fillStyle = this.defFg;
      o.fillRect(this.x(link.from), link.y * this.ch + Math.min(this.baseline + this.line * 2, this.ch - this.line), this.x(link.to) - this.x(link.from), this.line);
    }
    for (const s of found) {
      o.fillStyle = s.cur ? 'rgba(255,128,0,.7)' : 'rgba(255,210,0,.35)';
      o.fillRect(this.x(s.from), s.y * this.ch, this.x(s.to) - this.x(s.from), this.ch);
    }
    if (selection.length) {
      o.fillStyle = this.palette.selection;
      for (const s of selection) o.fillRect(this.x(s.from), s.y * this.ch, this.x(s.to) - this.x(s.from), this.ch);
    }
    if (composition && cursor) {
      o.font = this.fonts[0];
      const w = Math.max(this.advance(0, composition), this.cw);
      const x = this.x(cursor.col), y0 = cursor.row * this.ch;
      o.fillStyle = this.defBg;
      o.fillRect(x, y0, w, this.ch);
      o.fillStyle = this.defFg;
      o.fillText(composition, x, y0 + this.baseline);
      o.fillRect(x, y0 + this.ch - this.line, w, this.line);
      return;
    }
    if (!cursor) return;
    const line = screen.lines[cursor.row];
    let wide = line && line.width[cursor.col] === 2 ? 2 : 1;
    const x = this.x(cursor.col), y0 = cursor.row * this.ch, w = this.x(cursor.col + wide) - x;
    const t = this.line;
    o.fillStyle = this.palette.cursor;
    o.strokeStyle = this.palette.cursor;
    if (cursor.shape === 'bar') o.fillRect(x, y0, Math.max(t * 2, Math.round(this.dpr * 2)), this.ch);
    else if (cursor.shape === 'underline') o.fillRect(x, y0 + this.ch - t * 2, w, t * 2);
    else if (!focused) {
      o.lineWidth = t;
      o.strokeRect(x + t / 2, y0 + t / 2, w - t, this.ch - t);
    } else {
      o.fillRect(x, y0, w, this.ch);
      const text = line && line.text[cursor.col];
      if (text && text !== ' ') {
        const rs = this.resolve(screen, line.style[cursor.col]);
        o.font = this.fonts[rs.font];
        o.fillStyle = rs.bg;
        const gw = this.advance(rs.font, text);
        o.fillText(text, x + Math.max(0, (w - gw) / 2), y0 + this.baseline, w);
      }
    }
  }
}
