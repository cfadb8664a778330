// What the terminal does with each message from the server (web/README.md).
import * as P from './protocol.js';
import { decode } from './decode.js';

/** Methods of Terminal (terminal.js). */
export const Dispatch = {
  onMessage(data) {
    let m;
    try {
      m = decode(data);
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
  },

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
  },

  /** Marks the rows whose shown predictions changed. */
  repaintPredictions() {
    const rows = this.typing.touched();
    if (!rows.size) return;
    for (const r of rows) this.dirty.add(r);
    this.schedule();
  },
};
