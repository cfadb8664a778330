// The terminal: connection, screen, painter, input, selection (web/README.md).
import * as P from './protocol.js';
import { Screen } from './screen.js';
import { Painter, DEFAULT_FONT } from './painter.js';
import { Input, modsOf } from './input.js';
import { Selection } from './selection.js';
import { Connection } from './connection.js';
import { Search } from './search.js';
import { Touch, DEFAULT_KEYS } from './touch.js';
import { Typing } from './typing.js';
import { keyEffect } from './predict.js';

const CSS = `
.pc-term{position:relative;overflow:hidden;width:100%;height:100%;outline:none;user-select:none;-webkit-user-select:none;touch-action:none}
.pc-screen{position:absolute;left:0;top:0;cursor:text}
.pc-screen canvas{position:absolute;left:0;top:0;display:block}
.pc-input{position:absolute;width:2px;height:1em;padding:0;border:0;margin:0;opacity:0;resize:none;overflow:hidden;white-space:pre;color:transparent;background:transparent;caret-color:transparent;outline:none;z-index:-1}
.pc-status{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;background:rgba(0,0,0,.45);font:14px system-ui,sans-serif;z-index:3}
.pc-status[hidden]{display:none}.pc-status.pc-banner{bottom:auto;background:none;pointer-events:none}.pc-banner div{pointer-events:auto;margin-top:8px}
.pc-status div{background:#222;color:#eee;padding:12px 18px;border-radius:6px;box-shadow:0 2px 12px rgba(0,0,0,.5);text-align:center;max-width:80%}
.pc-status button{margin-left:10px;font:inherit;cursor:pointer}
.pc-badge{position:absolute;right:6px;top:6px;padding:2px 8px;border-radius:4px;background:#b83030;color:#fff;font:12px system-ui,sans-serif;z-index:2;pointer-events:none}
.pc-badge[hidden]{display:none}
.pc-keys{position:absolute;left:0;right:0;bottom:0;height:40px;display:flex;background:#333;z-index:3}[data-role=view] .pc-keys,.pc-copy[hidden]{display:none}
.pc-keys button,.pc-copy{flex:1;font:15px sans-serif;color:#eee;background:#444;border:1px solid #222;margin:2px}[aria-pressed=true]{background:#07c}.pc-copy{position:absolute;padding:8px;z-index:4}
.pc-h{position:absolute;width:24px;height:24px;background:#4a8af4;z-index:4;border-radius:0 50% 50%}.pc-h0{margin-left:-24px;border-radius:50% 0 50% 50%}
.pc-note{position:absolute;left:6px;bottom:6px;padding:2px 8px;border-radius:4px;background:#333;color:#eee;font:12px system-ui,sans-serif;z-index:2}.pc-note:empty{display:none}
.pc-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:pre;margin:0}
.pc-bell{animation:pc-bell .15s}
@media (prefers-reduced-motion:reduce){.pc-bell{animation:none}}
.pc-find{position:absolute;right:8px;top:8px;z-index:4;display:flex;gap:4px;align-items:center;padding:4px;background:#333;color:#eee;font:13px system-ui,sans-serif}
.pc-find[hidden]{display:none}.pc-find input{font:inherit}.pc-find button{font:inherit;min-width:2em}
@keyframes pc-bell{from{filter:brightness(1.6)}to{filter:none}}
`;

let helpIds = 0;
const media = (q) => typeof matchMedia === 'function' && matchMedia(q).matches;

/** A theme name; `auto` follows prefers-contrast and prefers-color-scheme. */
export function themeOf(t) {
  if (t && t !== 'auto') return t;
  return media('(prefers-contrast: more)') ? 'contrast' : media('(prefers-color-scheme: light)') ? 'light' : 'dark';
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || '');

/** The link schemes opened: the server's (a Rust test checks). */
export const LINK_SCHEMES = ['http', 'https', 'mailto'];

function safeLink(url) {
  try {
    const u = new URL(url);
    return LINK_SCHEMES.includes(u.protocol.slice(0, -1)) ? u.href : null;
  } catch {
    return null;
  }
}

export class Terminal extends EventTarget {
  constructor(container, opts = {}) {
    super();
    this.opts = { role: 'control', fontSize: 14, fontFamily: DEFAULT_FONT, theme: 'auto', fit: 'auto', ...opts };
    this.container = container;
    const doc = container.ownerDocument || document;
    const root = container.getRootNode ? container.getRootNode() : doc;
    if (!(root.querySelector && root.querySelector('style[data-panecast]'))) {
      const style = doc.createElement('style');
      style.dataset.panecast = '';
      style.textContent = CSS;
      (root === doc ? doc.head : root).appendChild(style);
    }
    const el = (tag, cls, parent) => {
      const e = doc.createElement(tag);
      e.className = cls;
      parent.appendChild(e);
      return e;
    };
    this.el = el('div', 'pc-term', container);
    this.screenEl = el('div', 'pc-screen', this.el);
    this.canvas = el('canvas', 'pc-cells', this.screenEl);
    this.overlayCanvas = el('canvas', 'pc-overlay', this.screenEl);
    this.ta = el('textarea', 'pc-input', this.el);
    for (const [k, v] of Object.entries({ autocomplete: 'off', autocorrect: 'off', autocapitalize: 'off', spellcheck: 'false', 'aria-label': 'Terminal', 'aria-roledescription': 'terminal', 'aria-describedby': 'pc-help' + ++helpIds, tabindex: '0' })) this.ta.setAttribute(k, v);
    this.el.tabIndex = -1; // Ctrl-Shift-M goes here
    this.mirror = el('pre', 'pc-sr', this.el);
    this.mirror.setAttribute('role', 'region');
    this.mirror.setAttribute('aria-label', 'Terminal screen');
    this.live = el('div', 'pc-sr', this.el);
    this.live.setAttribute('aria-live', 'polite');
    const help = el('p', 'pc-sr', this.el);
    help.id = this.ta.getAttribute('aria-describedby');
    help.textContent = 'Ctrl-Shift-M leaves the terminal.';
    this.spoken = new Set();
    this.search = new Search(this);
    this.statusEl = el('div', 'pc-status', this.el);
    this.badge = el('div', 'pc-badge', this.el);
    this.badge.textContent = 'read-only';
    this.badge.hidden = true;
    this.note = el('div', 'pc-note', this.el);
    this.note.setAttribute('role', 'status');
    for (const t of ['keydown', 'pointerdown']) this.el.addEventListener(t, () => this.writeClip(), true);

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

  onMessage(data) {
    let m;
    try {
      m = P.decode(data);
    } catch (e) {
      console.error('panecast: bad message from the server:', e.message);
      this.conn.ws && this.conn.ws.close(P.CLOSE.MALFORMED_FROM_SERVER, 'malformed message');
      return;
    }
    switch (m.type) {
      case 'hello':
        if (m.version !== P.VERSION) {
          this.conn.close(P.CLOSE.NORMAL, 'unsupported protocol version');
          this.setStatus('closed', `This page speaks protocol ${P.VERSION}, the server ${m.version}: reload the page`);
          return;
        }
        this.screen.hello(m, this.typing.resuming);
        this.framed = false;
        this.held(this.typing.hello(m.role));
        this.exitCode = undefined;
        this.selection.clear();
        this.viewOffset = 0;
        this.inflight = [];
        this.painter.styleCache = new Map();
        this.badge.hidden = m.role !== 'view';
        this.ta.setAttribute('aria-readonly', m.role === 'view');
        this.el.dataset.role = m.role;
        this.lastResize = null;
        this.needLayout = true;
        this.sendTheme();
        this.dispatchEvent(new CustomEvent('hello', { detail: m }));
        break;
      case 'styles':
        if (this.screen.applyStyles(m)) this.dirtyAll = true;
        this.painter.styleCache = new Map();
        this.dirtyAll = true; // a redefined id may be on screen
        break;
      case 'frame':
        this.onFrame(m);
        break;
      case 'bell':
        this.el.classList.remove('pc-bell');
        void this.el.offsetWidth;
        this.el.classList.add('pc-bell');
        this.dispatchEvent(new Event('bell'));
        break;
      case 'clipboard':
        this.clip = m.text;
        this.writeClip();
        break;
      case 'replay_state': this.dispatchEvent(new CustomEvent('replay', { detail: m })); break;
      case 'room':
        this.room = m;
        this.dispatchEvent(new CustomEvent('room', { detail: m }));
        break;
      case 'image':
        createImageBitmap(new Blob([m.png])).then((b) => {
          this.screen.images.set(m.hash, b);
          this.dirtyAll = true;
          this.schedule();
        }, () => {});
        break;
      case 'file_offer': this.dispatchEvent(new CustomEvent('file_offer', { detail: m })); break;
      case 'presence':
        this.presence = { view: m.view, control: m.control };
        this.dispatchEvent(new CustomEvent('presence', { detail: this.presence }));
        break;
      case 'exit':
        this.exitCode = m.code;
        this.setStatus('exited', m.code === null ? 'The program was killed by a signal' : `The program exited with code ${m.code}`);
        this.dispatchEvent(new CustomEvent('exit', { detail: { code: m.code } }));
        break;
      case 'sync':
        this.typing.sync(m, this.screen);
        this.repaintPredictions();
        break;
      case 'pong': {
        const ms = this.conn.pong(m.token);
        this.typing.predictor.rtt(ms);
        this.repaintPredictions();
        this.dispatchEvent(new CustomEvent('rtt', { detail: { ms, srtt: this.rtt } }));
        break;
      }
      case 'error':
        this.lastError = m;
        if (m.code >= P.WARNINGS.FIRST && m.code < P.WARNINGS.END) console.warn('panecast:', m.message);
        break;
      case 'scrollback':
        this.inflight.shift();
        // An answer may hold fewer lines than asked for (a cap on its
        // cells): ask for what the view still lacks, as long as answers bring lines.
        if (this.screen.applyScrollback(m) > 0) this.fetchScrollback();
        if (this.viewOffset > 0) {
          this.viewOffset = Math.min(this.viewOffset, this.screen.total);
          this.dirtyAll = true;
          this.schedule();
        }
        break;
      default:
        break; // unknown types
    }
  }

  /** Marks the rows whose shown predictions changed. */
  repaintPredictions() {
    const rows = this.typing.touched();
    if (!rows.size) return;
    for (const r of rows) this.dirty.add(r);
    this.schedule();
  }

  /** Says how many inputs held while the link was down were dropped (none: nothing said). */
  held(dropped) {
    if (!dropped) return;
    clearTimeout(this.noteTimer);
    this.note.textContent = `${dropped} input${dropped > 1 ? 's' : ''} typed while the link was down could not be sent`;
    this.noteTimer = setTimeout(() => { this.note.textContent = ''; }, 8000);
  }

  onFrame(m) {
    const sc = this.screen;
    const ch = sc.applyFrame(m);
    this.framed = true;
    this.typing.frame(ch, sc);
    this.repaintPredictions();
    if (this.painter.setReverse(!!m.modes.reverseVideo)) this.dirtyAll = true;
    if (ch.full) {
      this.dirtyAll = true;
      this.pendingScroll = 0;
      this.viewOffset = 0;
      this.inflight = [];
      if (ch.resized) {
        this.selection.clear();
        this.layout();
      }
    } else if (this.viewOffset > 0) {
      this.viewOffset += ch.pushed; // on the same lines
      this.viewOffset = Math.min(this.viewOffset, sc.total);
      this.dirtyAll = true;
      this.fetchScrollback(); // rows that changed before they left are not kept
    } else if (ch.scroll) {
      const moved = new Set();
      for (const r of this.dirty) if (r - ch.scroll >= 0) moved.add(r - ch.scroll);
      this.dirty = moved;
      this.pendingScroll += ch.scroll;
    }
    for (const r of ch.rows) {
      this.dirty.add(r);
      this.spoken.add(r);
    }
    if (!this.speakTimer) this.speakTimer = setTimeout(() => this.announce(), 500);
    if (m.title !== null) {
      this.ta.setAttribute('aria-label', sc.title ? 'Terminal: ' + sc.title : 'Terminal');
      this.dispatchEvent(new CustomEvent('title', { detail: sc.title }));
    }
    if (this.status !== 'connected' && this.status !== 'exited') this.setStatus('connected');
    if (this.needLayout) {
      this.needLayout = false;
      this.layout();
    }
    this.cursorOn = true;
    this.schedule();
    this.dispatchEvent(new CustomEvent('frame', { detail: m }));
  }

  onClose({ code, reason, retryIn, opened }) {
    this.typing.closed();
    if (this.status === 'exited' || this.disposed) return;
    if (retryIn === null) {
      // The server refused this page's origin, and says what would allow it.
      this.setStatus('closed', P.CLOSE_TEXT[code] || (code === P.CLOSE.ORIGIN_FORBIDDEN ? `Refused: ${reason}` : `Disconnected (${code})`));
      return;
    }
    if (code === P.CLOSE.SERVICE_RESTART) {
      // An upgrade in place: the screen stays as it is, no overlay; the
      // reconnection (at once) brings the exact screen back. Should it
      // fail, its own close shows the usual status.
      this.setStatus('restarting');
      return;
    }
    if (!opened && this.opts.probe) {
      // The upgrade failed: ask the API why (a 404 or 401 will not heal).
      this.opts.probe().then((why) => {
        if (why && !this.conn.ws) {
          this.conn.close();
          this.setStatus('closed', why);
        }
      }, () => {});
    }
    this.setStatus('reconnecting', retryIn);
  }

  /** Puts OSC 52 text on the clipboard now if allowed, else on the next click or key; the note says which. */
  writeClip() {
    const t = this.clip, say = (s) => { this.note.textContent = s; };
    if (t == null) return;
    clearTimeout(this.noteTimer);
    (navigator.clipboard ? navigator.clipboard.writeText(t) : Promise.reject()).then(() => {
      if (this.clip === t) this.clip = null;
      say('The program copied text to the clipboard');
      this.noteTimer = setTimeout(say, 3000, '');
    }, () => say('The program copied text: click or press a key to put it on the clipboard'));
  }

  setStatus(status, detail) {
    this.status = status;
    clearInterval(this.statusTimer);
    const s = this.statusEl;
    s.hidden = status === 'connected' || status === 'idle' || status === 'restarting';
    // While the link is down or quiet the screen stays in sight, and typing goes on.
    s.classList.toggle('pc-banner', status === 'reconnecting' || status === 'quiet');
    s.textContent = '';
    const box = document.createElement('div');
    s.appendChild(box);
    if (status === 'connecting') box.textContent = 'Connecting…';
    else if (status === 'quiet') box.textContent = 'No answer from the server: what you type is kept until it answers';
    else if (status === 'reconnecting') {
      const until = Date.now() + detail;
      const label = document.createElement('span');
      const btn = document.createElement('button');
      btn.textContent = 'Reconnect now';
      btn.onclick = () => this.conn.retryNow();
      box.append(label, btn);
      const tick = () => {
        label.textContent = `Disconnected. Reconnecting in ${Math.max(0, Math.ceil((until - Date.now()) / 1000))} s… (what you type is kept)`;
      };
      tick();
      this.statusTimer = setInterval(tick, 500);
    } else if (status === 'exited' || status === 'closed') box.textContent = detail;
    this.el.dataset.status = status;
    this.dispatchEvent(new CustomEvent('status', { detail: { status, detail } }));
  }

  /** At most twice a second: the text to the mirror, changed rows but the cursor's to the live region. */
  announce() {
    this.speakTimer = 0;
    const sc = this.screen, rows = [...this.spoken].sort((a, b) => a - b).filter((r) => r !== sc.cursor.row && r < sc.rows);
    this.spoken.clear();
    this.mirror.textContent = sc.text().replace(/\n+$/, '');
    const said = rows.slice(-12).map((r) => Screen.lineText(sc.lines[r]).trim()).filter(Boolean).join('\n');
    if (said) this.live.textContent = said;
  }

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
    return this.sendInput(P.encodeKey(key, mods, event), effect);
  }

  sendText(text) {
    if (this.sticky && [...text].length === 1) return this.sendKey({ char: text });
    if (!this.canType || !text) return false;
    this.typed();
    for (const part of P.splitUtf8(text)) this.sendInput(P.encodeText(part), { text: part });
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

  /** Says so while inputs wait too long for the server (a link gone silent), and stops watching once none wait. */
  watchQuiet() {
    const quiet = this.typing.quiet();
    if (quiet && this.status === 'connected') this.setStatus('quiet');
    else if (!quiet && this.status === 'quiet') this.setStatus('connected');
    if (!this.typing.waiting() && this.status !== 'quiet') {
      clearInterval(this.quietTimer);
      this.quietTimer = null;
    }
  }

  paste(text) {
    if (!this.canType || !text) return false;
    if (new TextEncoder().encode(text).length > P.MAX_PASTE) {
      console.warn('panecast: paste larger than 1 MiB refused');
      return false;
    }
    this.typed();
    return this.sendInput(P.encodePaste(text));
  }

  onFocus(f) {
    this.focused = f;
    if (f) this.ta.tabIndex = 0;
    this.cursorOn = true;
    if (this.canType && this.screen.modes.focusEvents) this.sendInput(P.encodeFocus(f), 'neutral');
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

  scrollView(lines) {
    const sc = this.screen;
    const v = Math.max(0, Math.min(sc.total, this.viewOffset + lines));
    if (v === this.viewOffset) return;
    this.viewOffset = v;
    this.dirtyAll = true;
    this.fetchScrollback();
    this.schedule();
  }

  /** Scrolls so that absolute line `a` shows, about mid-screen when it is in the scrollback. */
  reveal(a) {
    const sc = this.screen;
    this.scrollView((a >= sc.base ? 0 : sc.base - a + (this.rows >> 1)) - this.viewOffset);
  }

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
    const count = Math.min(1000, hi - start + 1 + this.rows);
    this.inflight.push({ near: sc.base - start, far: sc.base - (start + count - 1) });
    this.send(P.encodeScrollbackRequest(BigInt(start), count));
  }

  /** The line shown on display row y (scrolled back or not). */
  displayLine(y) {
    const line = this.screen.line(this.screen.base - this.viewOffset + y);
    return this.viewOffset ? line : this.typing.line(y, line);
  }

  schedule() {
    if (!this.raf) this.raf = requestAnimationFrame(() => this.paint());
  }

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
  }

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
  }

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
        const cols = Math.max(1, Math.min(1000, Math.floor(box.width / cell.width)));
        const rows = Math.max(1, Math.min(1000, Math.floor(box.height / cell.height)));
        const want = cols + 'x' + rows;
        if ((cols !== sc.cols || rows !== sc.rows) && this.lastResize !== want) {
          this.lastResize = want;
          this.send(P.encodeResize(cols, rows));
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
  }

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
  }

  /** Drives the session's size from now on (a control connection). */
  takeControl() { return this.send(P.encodeTakeControl()); }

  setFontSize(px) {
    this.baseFont = px;
    this.painter.measure(px);
    this.dirtyAll = true;
    this.layout();
  }

  setTheme(theme) {
    this.opts.theme = theme;
    this.painter.setTheme(this.theme = themeOf(theme));
    this.el.style.background = this.painter.palette.bg;
    this.dirtyAll = true;
    this.schedule();
    this.sendTheme();
  }

  /** Tells the session the theme painted (control role), for colour queries. */
  sendTheme() { if (this.screen.role === 'control') this.send(P.encodeTheme(this.theme)); }

  cellAt(e) {
    const r = this.canvas.getBoundingClientRect();
    const col = Math.floor(((e.clientX - r.left) / r.width) * this.cols);
    const row = Math.floor(((e.clientY - r.top) / r.height) * this.rows);
    return {
      col: Math.max(0, Math.min(this.cols - 1, col)),
      row: Math.max(0, Math.min(this.rows - 1, row)),
    };
  }

  hover(link) {
    if (JSON.stringify(link) !== JSON.stringify(this.link)) {
      this.link = link;
      this.schedule();
    }
  }

  /** The OSC 8 link or http(s) URL at a display cell: {url, from, to} or null. */
  linkAt({ row, col }) {
    const line = this.displayLine(row);
    if (!line) return null;
    const at = (c) => this.painter.resolve(this.screen, line.style[c]).link;
    const url = at(col);
    let from = col, to = col + 1;
    if (url) {
      while (from && at(from - 1) === url) from--;
      while (to < line.text.length && at(to) === url) to++;
      return { url, from, to };
    }
    const text = line.text.map((t, i) => (line.width[i] === 1 && t.length === 1 ? t : ' ')).join('');
    for (const m of text.matchAll(/https?:\/\/[^\s"'<>`]*[^\s"'<>`.,;:!?)\]}]/g)) {
      if (m.index <= col && col < m.index + m[0].length) return { url: m[0], from: m.index, to: m.index + m[0].length };
    }
    return null;
  }

  reporting(e) {
    return this.canType && this.screen.modes.mouse !== 'off' && !e.shiftKey && !this.viewOffset;
  }

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
        this.sendInput(P.encodeMouse(0, BTN[e.button], modsOf(e), cell.row, cell.col));
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
            this.sendInput(P.encodeMouse(2, this.buttons, modsOf(e), cell.row, cell.col));
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
        this.sendInput(P.encodeMouse(1, this.buttons, modsOf(e), cell.row, cell.col));
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
  }

  /** n lines of wheel or drag (down > 0): scrollback, mouse wheel events or Up/Down. */
  wheelLines(n, e) {
    if (this.reporting(e)) {
      const cell = this.cellAt(e);
      const kind = n < 0 ? 3 : 4;
      for (let i = 0; i < Math.min(Math.abs(n), 5); i++) this.sendInput(P.encodeMouse(kind, 0, modsOf(e), cell.row, cell.col));
    } else if (this.screen.modes.altScreen && this.canType) {
      // As xterm's alternateScroll.
      for (let i = 0; i < Math.min(Math.abs(n), 10); i++) this.sendInput(P.encodeKey(n < 0 ? 'Up' : 'Down', 0));
    } else {
      this.scrollView(-n);
    }
  }

  /** The screen as text (what the client holds, trailing blanks trimmed). */
  text() { return this.screen.text(); }

  selectionText() { return this.selection.text(this.screen); }

  /** Geometry for tests and embedders. */
  metrics() {
    const p = this.painter;
    return { cw: p.cw, ch: p.ch, dpr: p.dpr, baseline: p.baseline, fonts: p.fonts, fontSize: p.fontSize, cols: this.cols, rows: this.rows, cell: p.cellCss };
  }
}
