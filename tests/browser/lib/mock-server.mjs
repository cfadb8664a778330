// A mock panecast server for testing the web client in a real browser before
// (and independently of) the Rust server: the HTTP routes of the design's API
// contract, the web/ files, and the WebSocket protocol, with a toy "shell"
// behind each session (echo, seq, color, cjk, exit, title, mouse ...). It
// records every client message it receives, so tests can check what the
// browser sent. It is not an emulator: it only lays out text it prints itself.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, extname } from 'node:path';
import * as wire from './wire.mjs';
import { accept } from './ws.mjs';

export const TOKEN = 'T';
const TYPES = { '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.md': 'text/markdown; charset=utf-8', '.json': 'application/json' };

export function cellWidth(cp) {
  if ((cp >= 0x300 && cp <= 0x36f) || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3)
    || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60)
    || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) || (cp >= 0x20000 && cp <= 0x3fffd)) return 2;
  return 1;
}

const STYLE_DEFS = [
  { id: 1, style: { attrs: ['bold'], fg: { indexed: 1 } } },
  { id: 2, style: { fg: { indexed: 2 } } },
  { id: 3, style: { fg: { rgb: [80, 160, 255] }, underline: 'single' } },
  { id: 4, style: { fg: { indexed: 0 }, bg: { indexed: 3 } } },
  { id: 5, style: { fg: { indexed: 4 }, underline: 'single', link: 'https://example.com/' } },
];

let nextGen = 1;
const blank = () => ({ cells: [], gen: nextGen++, wrapped: false });

class Session {
  constructor(id, { cols = 80, rows = 24, command = ['shell'] } = {}) {
    Object.assign(this, { id, cols, rows, command });
    this.lines = Array.from({ length: rows }, blank);
    this.history = []; // scrolled-off lines, oldest first
    this.scrolled = 0;
    this.cursor = { row: 0, col: 0 };
    this.title = '';
    this.titleGen = 0;
    this.modes = { bracketed_paste: true, mouse: 'off' };
    this.conns = new Set();
    this.received = [];
    this.input = '';
    this.running = true;
    this.exitCode = null;
    this.style = 0;
    this.prompt();
    const exit = /exit (\d+)/.exec(command.join(' '));
    if (exit) setTimeout(() => this.exit(Number(exit[1])), 1000);
  }

  info() {
    return { id: this.id, command: this.command, cols: this.cols, rows: this.rows, running: this.running, exit_code: this.exitCode, viewers: this.conns.size };
  }

  // ---- the toy terminal ----
  touch(r) { this.lines[r].gen = nextGen++; }
  newline() {
    this.cursor.col = 0;
    if (this.cursor.row < this.rows - 1) { this.cursor.row++; return; }
    this.history.push(this.lines.shift());
    this.lines.push(blank());
    this.scrolled++;
  }
  write(text, style = this.style) {
    for (const ch of text) {
      const cp = ch.codePointAt(0);
      if (ch === '\n') { this.newline(); continue; }
      const w = cellWidth(cp);
      const line = this.lines[this.cursor.row];
      if (w === 0) { // joins the cell before
        const last = line.cells[line.cells.length - 1];
        if (last) last.text += ch;
        this.touch(this.cursor.row);
        continue;
      }
      if (this.cursor.col + w > this.cols) {
        line.wrapped = true;
        this.newline();
      }
      const l = this.lines[this.cursor.row];
      while (this.colOf(l) < this.cursor.col) l.cells.push({ text: ' ', width: 1, style: 0 });
      this.truncate(l, this.cursor.col);
      l.cells.push({ text: ch, width: w, style });
      this.cursor.col += w;
      this.touch(this.cursor.row);
    }
  }
  colOf(l) { return l.cells.reduce((a, c) => a + c.width, 0); }
  truncate(l, col) {
    let c = 0, i = 0;
    while (i < l.cells.length && c + l.cells[i].width <= col) c += l.cells[i++].width;
    l.cells.length = i;
  }
  prompt() { this.write('$ '); }
  run(cmdline) {
    const [cmd, ...args] = cmdline.trim().split(/\s+/);
    const arg = cmdline.trim().slice(cmd.length + 1);
    this.newline();
    switch (cmd) {
      case '': break;
      case 'echo': this.write(arg + '\n'); break;
      case 'seq': {
        const [a, b] = args.length > 1 ? args.map(Number) : [1, Number(args[0])];
        for (let i = a; i <= b; i++) this.write(i + '\n');
        break;
      }
      case 'printf': { // only octal escapes and \n, enough for the tests
        const fmt = arg.replace(/^'|'$/g, '');
        const bytes = [];
        for (let i = 0; i < fmt.length; i++) {
          const m = /^\\([0-7]{3})/.exec(fmt.slice(i));
          if (m) { bytes.push(parseInt(m[1], 8)); i += 3; } else if (fmt.startsWith('\\n', i)) { bytes.push(10); i++; } else bytes.push(fmt.charCodeAt(i));
        }
        this.write(Buffer.from(bytes).toString('utf8'));
        break;
      }
      case 'stty': this.write(`${this.rows} ${this.cols}\n`); break;
      case 'color':
        this.write('red', 1); this.write(' '); this.write('green', 2); this.write(' ');
        this.write('blue', 3); this.write(' '); this.write('yellow', 4); this.write(' '); this.write('link', 5); this.write('\n');
        break;
      case 'cjk': this.write('你好|😀|e\u0301|\n'); break;
      case 'title': this.title = arg; this.titleGen = nextGen++; break;
      case 'mouse': this.modes.mouse = args[0] === 'off' ? 'off' : args[0] || 'drag'; this.modes.mouse_sgr = true; break;
      case 'focus': this.modes.focus_events = args[0] !== 'off'; break;
      case 'cursor': this.cursorShape = args[0]; this.cursorBlink = args[1] === 'blink'; break;
      case 'bell': this.broadcast(wire.bell()); break;
      case 'exit': this.exit(Number(args[0] || 0)); return;
      default: this.write(`mock: ${cmd}: command not found\n`);
    }
    this.prompt();
  }
  exit(code) {
    this.running = false;
    this.exitCode = code;
    this.publish();
    for (const c of this.conns) { c.ws.send(wire.exit({ code })); c.ws.close(4001, 'session ended'); }
  }
  type(text) {
    for (const ch of text) {
      if (ch === '\r' || ch === '\n') { const l = this.input; this.input = ''; this.run(l); continue; }
      if (ch === '\x7f') {
        if (this.input) {
          this.input = [...this.input].slice(0, -1).join('');
          const l = this.lines[this.cursor.row];
          l.cells.pop();
          this.cursor.col = this.colOf(l);
          this.touch(this.cursor.row);
        }
        continue;
      }
      if (ch === '\x03') { this.input = ''; this.write('^C'); this.newline(); this.prompt(); continue; }
      if (ch < ' ') continue;
      this.input += ch;
      this.write(ch);
    }
  }
  resize(cols, rows) {
    if (cols === this.cols && rows === this.rows) return;
    const keep = this.lines.slice(0, this.cursor.row + 1).slice(-rows);
    this.cols = cols;
    this.rows = rows;
    for (const l of keep) { this.truncate(l, cols); l.gen = nextGen++; }
    this.lines = [...keep, ...Array.from({ length: rows - keep.length }, blank)];
    this.cursor = { row: keep.length - 1, col: Math.min(this.cursor.col, cols - 1) };
    this.history = [];
    for (const c of this.conns) c.full = true;
  }

  // ---- the protocol ----
  attach(ws, role) {
    const c = { ws, role, seq: 0, full: true, gens: [], scrolled: this.scrolled, titleGen: -1 };
    this.conns.add(c);
    ws.send(wire.hello({ role, cols: this.cols, rows: this.rows, session_id: this.id }));
    ws.send(wire.styles({ defs: STYLE_DEFS }));
    this.send(c);
    if (!this.running) { ws.send(wire.exit({ code: this.exitCode })); ws.close(4001, 'session ended'); }
    ws.onmessage = (b) => this.message(c, b);
    ws.onclose = () => this.conns.delete(c);
  }
  message(c, bytes) {
    let m;
    try { m = wire.decodeClient(bytes); } catch { c.ws.close(1002, 'malformed'); return; }
    this.received.push({ ...m, role: c.role });
    const input = ['key', 'text', 'paste', 'mouse', 'resize', 'focus'].includes(m.type);
    if (input && c.role !== 'control') { c.ws.close(1008, 'view connection sent input'); return; }
    switch (m.type) {
      case 'text': this.type(m.text); break;
      case 'paste': this.type(m.text.replace(/\n/g, '\r')); break;
      case 'key':
        if (m.key.named === 'Enter' || m.key.named === 'KpEnter') this.type('\r');
        else if (m.key.named === 'Backspace') this.type('\x7f');
        else if (m.key.char && m.mods.includes('ctrl') && m.key.char.toLowerCase() === 'c') this.type('\x03');
        else if (m.key.char && !m.mods.includes('ctrl') && !m.mods.includes('alt')) this.type(m.key.char);
        break;
      case 'resize': this.resize(m.cols, m.rows); break;
      case 'ping': c.ws.send(wire.pong({ token: m.token })); break;
      case 'scrollback_request': {
        // A command a test queued runs between the request and the answer; as
        // the real server does, the frame goes first and the indices are rebased.
        const scrolled = this.scrolled;
        if (this.beforeAnswer) { this.run(this.beforeAnswer); this.beforeAnswer = null; this.publish(); }
        const start = Number(m.start) + this.scrolled - scrolled;
        const lines = [];
        for (let i = start; i < start + m.count && i <= this.history.length; i++) {
          const l = this.history[this.history.length - i];
          lines.push({ cells: l.cells, wrapped: l.wrapped });
        }
        c.ws.send(wire.scrollback({ total: this.history.length, start, cols: this.cols, lines }));
        return;
      }
      default: break;
    }
    this.publish();
  }
  publish() { for (const c of this.conns) this.send(c); }
  send(c) {
    let scroll = 0, kept = 0;
    if (c.full) {
      c.gens = [];
      c.scrolled = this.scrolled;
    } else if (this.scrolled > c.scrolled) {
      // Every scroll pushes a line; the first pushed that the client has as it is are kept.
      scroll = this.scrolled - c.scrolled;
      const pushed = this.history.slice(-scroll);
      while (kept < Math.min(scroll, this.rows) && pushed[kept].gen === c.gens[kept]) kept++;
      c.gens = c.gens.slice(Math.min(scroll, c.gens.length));
      c.scrolled = this.scrolled;
    }
    const lines = [];
    this.lines.forEach((l, row) => {
      if (c.gens[row] !== l.gen) {
        if (!(c.full && l.cells.length === 0)) lines.push({ row, line: { cells: l.cells, wrapped: l.wrapped } });
        c.gens[row] = l.gen;
      }
    });
    const title = c.titleGen !== this.titleGen ? this.title : null;
    if (!c.full && !lines.length && title === null && !scroll && c.modesKey === JSON.stringify([this.modes, this.cursor, this.cursorShape])) return;
    c.modesKey = JSON.stringify([this.modes, this.cursor, this.cursorShape]);
    c.titleGen = this.titleGen;
    c.ws.send(wire.frame({
      seq: c.seq++, cols: this.cols, rows: this.rows, full: c.full, title, scroll: c.full ? 0 : scroll,
      scrollback: this.history.length, pushed: c.full ? 0 : scroll, kept, lines,
      cursor: { row: this.cursor.row, col: Math.min(this.cursor.col, this.cols - 1), shape: this.cursorShape || 'block', visible: true, blink: !!this.cursorBlink },
      modes: this.modes,
    }));
    c.full = false;
  }
  broadcast(bytes) { for (const c of this.conns) c.ws.send(bytes); }
}

export async function startMock({ webDir, port = 0 } = {}) {
  const sessions = new Map();
  const pages = new Map(); // extra pages a test serves: path -> html
  let n = 0;
  const create = (opts = {}) => {
    const s = new Session(`m${++n}`, opts);
    sessions.set(s.id, s);
    return s;
  };
  const authed = (req, url) => {
    const cookie = /(?:^|;\s*)panecast_token=([^;]+)/.exec(req.headers.cookie || '');
    const offered = (req.headers['sec-websocket-protocol'] || '').split(',').map((p) => p.trim());
    return url.searchParams.get('token') === TOKEN || req.headers.authorization === `Bearer ${TOKEN}` || (cookie && cookie[1] === TOKEN)
      || offered.includes(`panecast.token.${TOKEN}`);
  };
  const json = (res, status, body) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const file = async (res, path, headers = {}) => {
    try {
      const body = await readFile(join(webDir, path));
      res.writeHead(200, { 'Content-Type': TYPES[extname(path)] || 'application/octet-stream', 'Cache-Control': 'no-cache', ...headers });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    if (p.startsWith('/web/') && /^\/web\/[\w.-]+$/.test(p)) return file(res, p.slice(5), { 'Access-Control-Allow-Origin': '*' });
    if (pages.has(p)) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return res.end(pages.get(p));
    }
    if (!authed(req, url)) return json(res, 401, { error: 'unauthorized', code: 'unauthorized' });
    const setCookie = url.searchParams.get('token') === TOKEN ? { 'Set-Cookie': `panecast_token=${TOKEN}; HttpOnly; SameSite=Lax; Path=/` } : {};
    if (p === '/') return file(res, 'index.html', setCookie);
    if (/^\/s\/[^/]+$/.test(p)) return file(res, 'terminal.html', setCookie);
    if (/^\/embed\/[^/]+$/.test(p)) return file(res, 'embed.html', setCookie);
    if (p === '/api/profiles') return json(res, 200, ['shell']);
    if (p === '/api/sessions' && req.method === 'GET') return json(res, 200, [...sessions.values()].map((s) => s.info()));
    if (p === '/api/sessions' && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const opts = JSON.parse(body || '{}');
      return json(res, 201, create({ cols: opts.cols, rows: opts.rows, command: opts.command || [opts.profile || 'shell'] }).info());
    }
    const m = /^\/api\/sessions\/([^/]+)(\/[a-z]+)?$/.exec(p);
    const s = m && sessions.get(m[1]);
    if (!s) return json(res, 404, { error: 'no such session', code: 'not_found' });
    if (!m[2] && req.method === 'GET') return json(res, 200, s.info());
    if (!m[2] && req.method === 'DELETE') {
      sessions.delete(s.id);
      for (const c of s.conns) c.ws.close(4002, 'session deleted');
      res.writeHead(204);
      return res.end();
    }
    if ((m[2] === '/input' || m[2] === '/resize') && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const b = JSON.parse(body || '{}');
      if (m[2] === '/input') s.type(b.text || '');
      else s.resize(b.cols, b.rows);
      s.publish();
      res.writeHead(204);
      return res.end();
    }
    if (m[2] === '/screen') {
      const lines = s.lines.map((l) => l.cells.map((c) => c.text).join('').replace(/ +$/, ''));
      if (url.searchParams.get('format') === 'json') return json(res, 200, { cols: s.cols, rows: s.rows, cursor: s.cursor, title: s.title, lines });
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      return res.end(lines.join('\n') + '\n');
    }
    return json(res, 404, { error: 'not found', code: 'not_found' });
  });
  server.on('upgrade', (req, socket) => {
    const url = new URL(req.url, 'http://x');
    const m = /^\/api\/sessions\/([^/]+)\/ws$/.exec(url.pathname);
    const s = m && sessions.get(m[1]);
    if (!authed(req, url) || !s) {
      socket.end(`HTTP/1.1 ${s ? 401 : 404} No\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    accept(req, socket, (ws) => s.attach(ws, url.searchParams.get('role') === 'view' ? 'view' : 'control'));
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base, sessions, create, pages,
    /** Drops every WebSocket without a close frame, as a crashed proxy would. */
    dropAll() { for (const s of sessions.values()) for (const c of s.conns) c.ws.destroy(); },
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }),
  };
}
