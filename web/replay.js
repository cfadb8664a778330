// The /r/{name} page: a recording played by the server in the terminal, with
// a control bar (keys and controls: web/README.md).
import { Terminal } from './terminal.js';
import { encodeReplay } from './protocol.js';

const $ = (id) => document.getElementById(id);
const [, prefix = '', name = ''] = location.pathname.match(/^(.*)\/r\/([^/]+)\/?$/) || [];
const token = new URLSearchParams(location.hash.slice(1)).get('t');
if (token) history.replaceState(history.state, '', location.pathname + location.search);
const url = new URL(`${prefix}/api/recordings/${name}/ws`, location.href);
url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
const t = new Terminal(document.querySelector('main'), { url: url.href, role: 'view', protocols: token ? ['panecast', `panecast.token.${token}`] : [] });
let s = null, at = 0;
const send = (op, v) => t.conn && t.conn.send(encodeReplay(op, v));
const clock = (ms) => `${Math.floor(ms / 60000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}`;
/** The position now, in ms: the last state's, advanced while it plays. */
const now = () => (s ? Math.min(s.duration, s.position + (s.playing ? (performance.now() - at) * s.speed / 100 : 0)) : 0);
const show = () => {
  const p = now();
  $('seek').value = p;
  $('time').value = `${clock(p)} / ${clock(s.duration)}`;
};
const toggle = () => send(s && s.playing ? 'pause' : 'play');
const seek = (ms) => send('seek', Math.max(0, Math.round(ms)));
t.addEventListener('hello', () => {
  // A new connection starts a new replay: resume where this page was.
  if (s) { seek(now()); send('speed', s.speed); if (s.playing) send('play'); } else send('play');
});
t.addEventListener('replay', (e) => {
  s = e.detail;
  at = performance.now();
  document.title = `${s.title} · panecast`;
  $('seek').max = s.duration;
  $('play').textContent = s.playing ? '\u23F8' : '\u25B6';
  $('play').setAttribute('aria-label', s.playing ? 'Pause' : 'Play');
  $('speed').value = s.speed;
  $('bar').replaceChildren($('seek'), ...s.markers.map((m) => Object.assign(document.createElement('i'), {
    title: m.label, style: `left:${(100 * m.time) / (s.duration || 1)}%`,
  })));
  show();
});
setInterval(() => s && s.playing && show(), 250);
$('play').onclick = toggle;
$('prev').onclick = () => send('marker', false);
$('next').onclick = () => send('marker', true);
$('speed').onchange = (e) => send('speed', Number(e.target.value));
$('seek').oninput = (e) => seek(Number(e.target.value));
addEventListener('keydown', (e) => {
  if (e.target.closest && e.target.closest('nav') && e.key !== 'k') return;
  const step = { ArrowLeft: -5000, ArrowRight: 5000 }[e.key];
  if (e.key === ' ' || e.key === 'k') toggle();
  else if (step) seek(now() + step);
  else if (e.key === '[' || e.key === ']') send('marker', e.key === ']');
  else return;
  e.preventDefault();
});
t.connect();
// For tests and the console.
window.panecast = t;
