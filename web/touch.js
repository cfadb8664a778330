// Touch gestures (web/README.md) and the extra-keys bar.
import { MOD } from './protocol.js';

/** The bar's keys unless the `keys` attribute or URL parameter lists others. */
export const DEFAULT_KEYS = 'esc tab ctrl alt left up down right | ~ / -';
const NAMED = { esc: 'Escape', tab: 'Tab', left: 'Left', up: 'Up', down: 'Down', right: 'Right' };
const LABEL = { esc: 'Esc', tab: 'Tab', ctrl: 'Ctrl', alt: 'Alt', left: '←', up: '↑', down: '↓', right: '→' };

/** What the visual viewport ({offsetTop, height}) shows of an element at `top` in a page `inner` px high: {shift, height}, or null for all. */
export function visiblePart(vv, inner, top) {
  const shift = Math.max(0, vv.offsetTop - top), bottom = vv.offsetTop + vv.height;
  return shift || bottom < inner - 0.5 ? { shift, height: Math.max(1, bottom - top - shift) } : null;
}

export class Touch {
  constructor(term) {
    this.t = term;
    this.pts = new Map();
  }

  down(e) {
    const t = this.t;
    if (this.shown) this.hide();
    cancelAnimationFrame(this.fling);
    clearTimeout(this.press);
    this.pts.set(e.pointerId, e);
    if (this.pts.size > 1) {
      this.d0 = this.dist();
      this.f0 = t.baseFont;
      this.z0 = this.zoom || 1;
      return;
    }
    Object.assign(this, { x0: e.clientX, y0: e.clientY, y: e.clientY, v: 0, last: e.timeStamp, acc: 0 });
    this.press = setTimeout(() => this.word(e), 500);
  }

  move(e) {
    if (!this.pts.has(e.pointerId)) return;
    this.pts.set(e.pointerId, e);
    if (this.pts.size > 1) return this.pinch();
    if (Math.hypot(e.clientX - this.x0, e.clientY - this.y0) > 10) clearTimeout(this.press);
    const dy = this.y - e.clientY, dt = e.timeStamp - this.last;
    if (dt > 0) this.v = 0.7 * (dy / dt) + 0.3 * this.v;
    this.y = e.clientY;
    this.last = e.timeStamp;
    this.scroll(dy, e);
  }

  /** A fast drag goes on after the finger lifts, slowing down. */
  up(e) {
    clearTimeout(this.press);
    if (!this.pts.delete(e.pointerId) || this.pts.size || Math.abs(this.v) < 0.3 || e.timeStamp - this.last > 100) return;
    let v = this.v, prev = performance.now();
    const step = (now) => {
      this.scroll(v * (now - prev), e);
      prev = now;
      v *= 0.95;
      if (Math.abs(v) > 0.05) this.fling = requestAnimationFrame(step);
    };
    this.fling = requestAnimationFrame(step);
  }

  scroll(px, e) {
    const h = this.t.painter.cellCss.height;
    this.acc += px;
    const n = Math.trunc(this.acc / h);
    if (n) this.t.wheelLines(n, e);
    this.acc -= n * h;
  }

  dist() {
    const [a, b] = this.pts.values();
    return Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY);
  }

  pinch() {
    const t = this.t, s = this.dist() / this.d0;
    if (t.screen.role === 'view') {
      const [a, b] = this.pts.values(), r = t.screenEl.getBoundingClientRect(), z = this.zoom || 1;
      this.zoom = Math.max(1, Math.min(4, this.z0 * s));
      t.screenEl.style.transformOrigin = `${((a.clientX + b.clientX) / 2 - r.left) / z}px ${((a.clientY + b.clientY) / 2 - r.top) / z}px`;
      t.screenEl.style.transform = `scale(${this.zoom})`;
    } else {
      const f = Math.round(Math.max(6, Math.min(40, this.f0 * s)));
      if (f !== t.baseFont) t.setFontSize(f);
    }
  }

  /** A long press selects the word under the finger, with handles and Copy. */
  word(e) {
    const t = this.t, c = t.cellAt(e);
    t.selection.start(t.screen, { a: t.screen.base - t.viewOffset + c.row, col: c.col }, 'word');
    if (!this.hs) {
      this.copy = this.button('Copy', t.el, 'pc-copy');
      this.copy.onclick = () => {
        navigator.clipboard?.writeText(t.selectionText()).catch(() => {});
        this.hide();
      };
      this.hs = [0, 1].map((i) => {
        const h = t.el.appendChild(document.createElement('i'));
        h.className = 'pc-h pc-h' + i;
        h.onpointerdown = (ev) => {
          const s = t.selection, b = s.bounds(), o = t.el.getBoundingClientRect(), p = this.ends()[i];
          h.setPointerCapture(ev.pointerId);
          [s.anchor, s.head, s.mode] = [b[1 - i], b[i], 'char'];
          this.d = [ev.clientX - o.left - p.x, ev.clientY - o.top - p.y + p.h / 2]; // finger to the end's point
        };
        h.onpointermove = (ev) => {
          if (!h.hasPointerCapture(ev.pointerId)) return;
          const r = t.canvas.getBoundingClientRect(), x = ev.clientX - this.d[0];
          t.selection.head = { a: t.screen.base - t.viewOffset + t.cellAt({ clientX: x, clientY: ev.clientY - this.d[1] }).row, col: Math.max(0, Math.min(t.cols, Math.round((x - r.left) / r.width * t.cols))) };
          t.schedule();
        };
        return h;
      });
    }
    this.shown = true;
    t.schedule();
  }

  /** The selection's ends, in CSS px of the terminal: [{x, y (line bottom), row, h}]. */
  ends() {
    const t = this.t, r = t.canvas.getBoundingClientRect(), o = t.el.getBoundingClientRect(), h = r.height / t.rows;
    return (t.selection.bounds() || []).map((p, row) => (row = p.a - t.screen.base + t.viewOffset, { x: r.left - o.left + p.col * r.width / t.cols, y: r.top - o.top + (row + 1) * h, row, h }));
  }

  /** Puts the handles at the selection's ends, Copy above it (below without room); on each paint. */
  place() {
    const e = this.ends(), c = this.copy, [s] = e;
    if (!s) return this.hide();
    e.forEach((p, i) => {
      Object.assign(this.hs[i].style, { left: p.x + 'px', top: p.y + 'px' });
      this.hs[i].hidden = p.row < 0 || p.row >= this.t.rows;
    });
    c.hidden = false;
    const y = s.y - s.h - c.offsetHeight - 4;
    Object.assign(c.style, { left: Math.max(0, Math.min(s.x, this.t.el.clientWidth - c.offsetWidth)) + 'px', top: (y < 0 ? e[1].y + 28 : y) + 'px' });
  }

  hide() {
    this.shown = false;
    for (const b of [this.copy, ...this.hs]) b.hidden = true;
    this.t.selection.clear();
    this.t.schedule();
  }

  /** Fits the terminal to what the visual viewport `vv` shows (a soft keyboard covers the rest). */
  follow(vv) {
    const el = this.t.el, v = visiblePart(vv, innerHeight, el.parentNode.getBoundingClientRect().top);
    el.style.transform = v ? `translateY(${v.shift}px)` : '';
    el.style.height = v ? v.height + 'px' : '';
  }

  button(text, parent, cls) {
    const b = document.createElement('button');
    b.textContent = text;
    b.className = cls;
    b.tabIndex = -1;
    b.onpointerdown = (e) => e.preventDefault(); // keeps the soft keyboard
    parent.appendChild(b);
    return b;
  }

  /** The extra-keys bar with the keys `spec` names; Ctrl and Alt apply to the next key. */
  bar(spec) {
    const t = this.t, bar = document.createElement('div');
    bar.className = 'pc-keys';
    this.mods = [];
    for (const k of spec.split(/[\s,]+/).filter(Boolean)) {
      const b = this.button(LABEL[k] || k, bar, '');
      const mod = k === 'ctrl' ? MOD.CTRL : k === 'alt' ? MOD.ALT : 0;
      if (mod) this.mods.push([b, mod]);
      b.onclick = () => {
        if (mod) t.sticky ^= mod;
        else if (NAMED[k]) t.sendKey(NAMED[k]);
        else t.sendText(k);
        this.sync();
      };
    }
    t.el.appendChild(bar);
    this.sync();
  }

  /** Shows which one-shot modifiers are on. */
  sync() {
    for (const [b, mod] of this.mods || []) b.setAttribute('aria-pressed', !!(this.t.sticky & mod));
  }
}
