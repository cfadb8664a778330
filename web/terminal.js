// The terminal: its parts tied together, its connection, and what is typed
// (web/README.md). Each of its other jobs is a module of methods, added to
// the class at the end: dispatch, status, clipboard, scrollview, painting,
// layout, mouse, links, theme, a11y.
import * as P from './protocol.js';
import { encodeFocus, encodeKey, encodeTakeControl, encodeText, splitUtf8 } from './encode.js';
import { Screen } from './screen.js';
import { Painter, DEFAULT_FONT } from './painter.js';
import { Input } from './input.js';
import { Selection } from './selection.js';
import { Connection } from './connection.js';
import { Touch, DEFAULT_KEYS } from './touch.js';
import { Typing } from './typing.js';
import { keyEffect } from './predict.js';
import { isMac } from './platform.js';
import { mount } from './dom.js';
import { Dispatch } from './dispatch.js';
import { Status } from './status.js';
import { Clipboard } from './clipboard.js';
import { ScrollView } from './scrollview.js';
import { Painting } from './painting.js';
import { Layout } from './layout.js';
import { Mouse } from './mouse.js';
import { Links } from './links.js';
import { Theme } from './theme.js';
import { Accessibility } from './a11y.js';

export class Terminal extends EventTarget {
  constructor(container, opts = {}) {
    super();
    this.opts = { role: 'control', fontSize: 14, fontFamily: DEFAULT_FONT, theme: 'auto', fit: 'auto', ...opts };
    this.container = container;
    mount(this, container);
    this.screen = new Screen();
    this.painter = new Painter(this.canvas, this.overlayCanvas, this.opts);
    this.setTheme(this.opts.theme);
    this.mq = ['(prefers-color-scheme: light)', '(prefers-contrast: more)'].map((q) => matchMedia(q));
    for (const q of this.mq) q.onchange = () => this.setTheme(this.opts.theme);
    this.selection = new Selection();
    this.dirty = new Set();
    this.dirtyAll = true;
    this.pendingScroll = 0;
    this.viewOffset = 0; // lines scrolled back into the scrollback
    // Scrollback requests not yet answered, oldest first, as absolute line numbers
    // {near, far}: the server answers them in order, possibly at rebased indices.
    this.inflight = [];
    this.focused = false;
    this.cursorOn = true;
    this.composition = '';
    this.status = 'idle';
    this.baseFont = this.opts.fontSize;
    this.raf = 0;
    this.wheelAcc = 0;
    this.mouseCell = null;
    this.buttons = 0;
    this.typing = new Typing((bytes) => this.send(bytes), { predict: this.opts.predict !== false });
    this.framed = false; // a frame came since the last Hello: the screen can be resumed from

    this.input = new Input(this.ta, {
      key: (key, mods, event) => this.sendKey(key, mods, event),
      text: (t) => this.sendText(t),
      paste: (t) => this.paste(t),
      focus: (f) => this.onFocus(f),
      copy: () => (this.selection.active ? this.selectionText() : null),
      copyKey: () => {
        if (this.selection.active && navigator.clipboard) navigator.clipboard.writeText(this.selectionText()).catch(() => {});
      },
      localKey: (e) => this.localKey(e),
      composing: (s) => { this.composition = s; this.schedule(); },
      hasSelection: () => this.selection.active,
      modes: () => this.screen.modes,
    }, isMac);
    this.bindMouse();
    this.touch = new Touch(this);
    this.sticky = 0; // one-shot modifiers from the keys bar
    const keys = this.opts.keys ?? DEFAULT_KEYS;
    if (keys !== 'none' && matchMedia('(pointer: coarse)').matches) this.touch.bar(keys);
    const vv = window.visualViewport;
    this.onViewport = () => this.touch.follow(vv);
    for (const k of ['resize', 'scroll']) vv?.addEventListener(k, this.onViewport);
    this.ro = new ResizeObserver(() => this.layout());
    this.ro.observe(this.el);
    this.painter.resize(this.screen.cols, this.screen.rows);
    this.setStatus('idle');
  }

  get role() { return this.screen.role; }
  get cols() { return this.screen.cols; }
  get rows() { return this.screen.rows; }
  /** Whether input goes (or is held while the link is down, to go when it is back). */
  get canType() { return this.screen.role === 'control' && ['connected', 'quiet', 'reconnecting', 'restarting'].includes(this.status); }

  /** The smoothed round trip to the server (ms), once measured. */
  get rtt() { return this.typing.predictor.srtt; }

  connect() {
    if (this.conn) this.conn.dispose();
    this.setStatus('connecting');
    this.conn = new Connection(this.opts.url, {
      open: () => {},
      message: (data) => this.onMessage(data),
      close: (info) => this.onClose(info),
      params: () => this.typing.params(this.framed),
    }, { protocols: this.opts.protocols || [] });
    this.conn.connect();
  }

  dispose() {
    if (this.conn) this.conn.dispose();
    this.ro.disconnect();
    cancelAnimationFrame(this.raf);
    clearInterval(this.blinkTimer);
    clearInterval(this.quietTimer);
    clearTimeout(this.speakTimer);
    cancelAnimationFrame(this.touch.fling);
    for (const k of ['resize', 'scroll']) window.visualViewport?.removeEventListener(k, this.onViewport);
    for (const q of this.mq) q.onchange = null;
    this.el.remove();
  }

  focus() { this.ta.focus({ preventScroll: true }); }

  send(bytes) { return this.conn ? this.conn.send(bytes) : false; }

  /** Something is typed: back to the bottom of the scrollback. */
  typed() {
    if (this.viewOffset) {
      this.viewOffset = 0;
      this.dirtyAll = true;
    }
    this.cursorOn = true;
    this.schedule();
  }

  sendKey(key, mods = 0, event) {
    if (!this.canType) return false;
    this.typed();
    mods |= this.sticky;
    this.sticky = 0;
    this.touch.sync();
    // A release changes nothing on the screen.
    const effect = event === undefined || event === P.KEY_EVENT.PRESS || event === P.KEY_EVENT.REPEAT ? keyEffect(key, mods) : 'neutral';
    return this.sendInput(encodeKey(key, mods, event), effect);
  }

  sendText(text) {
    if (this.sticky && [...text].length === 1) return this.sendKey({ char: text });
    if (!this.canType || !text) return false;
    this.typed();
    for (const part of splitUtf8(text)) this.sendInput(encodeText(part), { text: part });
    return true;
  }

  /** Sends (or holds, while the link is down) an input message that has `effect` on the line (predict.js). */
  sendInput(bytes, effect = 'other') {
    const sent = this.typing.input(bytes, effect, this.screen);
    if (!sent) this.held(1);
    this.conn?.typed();
    this.repaintPredictions();
    if (!this.quietTimer) this.quietTimer = setInterval(() => this.watchQuiet(), 250);
    return sent;
  }

  onFocus(f) {
    this.focused = f;
    if (f) this.ta.tabIndex = 0;
    this.cursorOn = true;
    if (this.canType && this.screen.modes.focusEvents) this.sendInput(encodeFocus(f), 'neutral');
    if (f && this.screen.role === 'control') {
      this.lastResize = null; // the controller being typed in takes the size back
      this.layout();
    }
    this.schedule();
  }

  /** Keys the terminal handles itself (search, Ctrl-Shift-M, scrolling). */
  localKey(e) {
    if (e.code === 'KeyF' && (isMac ? e.metaKey && !e.ctrlKey : e.ctrlKey && e.shiftKey)) {
      this.search.open();
      return true;
    }
    if (e.ctrlKey && e.shiftKey && e.code === 'KeyM') {
      this.ta.tabIndex = -1; // until the terminal is focused again
      this.el.focus();
      return true;
    }
    if (e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey && !this.screen.modes.altScreen) {
      const page = this.rows - 1;
      const d = { PageUp: page, PageDown: -page, Home: Infinity, End: -Infinity }[e.key];
      if (d !== undefined && (this.viewOffset > 0 || d > 0)) {
        this.scrollView(d === Infinity ? 1e9 : d === -Infinity ? -1e9 : d);
        return true;
      }
    }
    if (this.screen.role !== 'control' && (e.key === 'PageUp' || e.key === 'PageDown')) {
      this.scrollView(e.key === 'PageUp' ? this.rows - 1 : 1 - this.rows);
      return true;
    }
    return false;
  }

  /** Drives the session's size from now on (a control connection). */
  takeControl() { return this.send(encodeTakeControl()); }

  /** The screen as text (what the client holds, trailing blanks trimmed). */
  text() { return this.screen.text(); }

  /** Geometry for tests and embedders. */
  metrics() {
    const p = this.painter;
    return { cw: p.cw, ch: p.ch, dpr: p.dpr, baseline: p.baseline, fonts: p.fonts, fontSize: p.fontSize, cols: this.cols, rows: this.rows, cell: p.cellCss };
  }
}

Object.assign(Terminal.prototype, Dispatch, Status, Clipboard, ScrollView, Painting, Layout, Mouse, Links, Theme, Accessibility);
