// <panecast-terminal>: Terminal in a shadow root (web/README.md).
import { Terminal } from './terminal.js';
import { subprotocols } from './encode.js';

/** WebSocket and API URLs of a session from `src`, resolved against `base`. */
export function sessionUrls(src, { role = 'control' } = {}, base = globalThis.location && location.href) {
  const u = new URL(src, base);
  const m = u.pathname.match(/^(.*?)\/(?:s|embed|api\/sessions)\/([^/]+)(\/ws)?\/?$/);
  if (!m) throw new Error(`panecast-terminal: cannot find a session in src="${src}"`);
  const prefix = m[1];
  const id = decodeURIComponent(m[2]);
  const api = `${u.origin}${prefix}/api/sessions/${encodeURIComponent(id)}`;
  const ws = new URL(`${api}/ws`);
  ws.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  ws.searchParams.set('role', role === 'view' ? 'view' : 'control');
  return { id, api, ws: ws.href };
}

export class PanecastTerminal extends HTMLElement {
  static get observedAttributes() { return ['src', 'token', 'access', 'role', 'font-size', 'theme', 'fit', 'keys', 'predict']; }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = ':host{display:block;position:relative;width:100%;height:100%;min-height:4em;overflow:hidden}.box{position:absolute;inset:0}';
    this.box = document.createElement('div');
    this.box.className = 'box';
    root.append(style, this.box);
  }

  connectedCallback() { this.restart(); }

  disconnectedCallback() {
    if (this.terminal) this.terminal.dispose();
    this.terminal = null;
  }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    if (this.terminal && name === 'theme') this.terminal.setTheme(value);
    else if (this.terminal && name === 'font-size') this.terminal.setFontSize(Number(value) || 14);
    else this.restart();
  }

  /** Starts (again) once the current task has set all its attributes. */
  restart() {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      this.start();
    });
  }

  start() {
    if (this.terminal) this.terminal.dispose();
    this.terminal = null;
    const src = this.getAttribute('src');
    if (!src || !this.isConnected) return;
    const role = this.getAttribute('access') || this.getAttribute('role') || 'control';
    const token = this.getAttribute('token') || '';
    const urls = sessionUrls(src, { role });
    const t = new Terminal(this.box, {
      url: urls.ws,
      protocols: subprotocols(token),
      role,
      fontSize: Number(this.getAttribute('font-size')) || 14,
      theme: this.getAttribute('theme') || 'auto',
      fit: this.getAttribute('fit') || 'auto',
      keys: this.getAttribute('keys') ?? undefined,
      predict: this.getAttribute('predict') !== 'false',
      api: urls.api,
      token,
      probe: () => probe(urls.api, token),
    });
    for (const type of ['hello', 'frame', 'title', 'bell', 'exit', 'status', 'presence', 'room', 'file_offer', 'rtt']) {
      t.addEventListener(type, (e) => this.dispatchEvent(new CustomEvent(type, { detail: e.detail, bubbles: type !== 'frame', composed: true })));
    }
    this.terminal = t;
    t.connect();
  }

  focus() { if (this.terminal) this.terminal.focus(); }
}

/** After a failed WebSocket upgrade: a reason not to retry, or null. */
async function probe(api, token) {
  const r = await fetch(api, { headers: token ? { Authorization: `Bearer ${token}` } : {}, credentials: 'same-origin' });
  if (r.status === 404) return 'Session not found';
  if (r.status === 401 || r.status === 403) return 'Not authorised: open the link with its token again';
  return null;
}

if (!customElements.get('panecast-terminal')) customElements.define('panecast-terminal', PanecastTerminal);
