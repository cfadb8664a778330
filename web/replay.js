// The /r/{name} page: a replay in the terminal and its control bar (web/README.md).
import { Terminal } from './terminal.js';
import { encodeReplay, subprotocols } from './encode.js';

const $ = (id) => document.getElementById(id);
const [, base, name] = location.pathname.match(/^(.*)\/r\/([^/]+)/) || [, '', ''];
const token = new URLSearchParams(location.hash.slice(1)).get('t');
if (token) history.replaceState(null, '', location.pathname + location.search);
const url = new URL(`${base}/api/recordings/${name}/ws`, location.href);
url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
const t = new Terminal(document.querySelector('main'), { url: url.href, role: 'view', protocols: subprotocols(token) });
let s, at = 0;
const send = (op, v) => t.conn.send(encodeReplay(op, v));
const clock = (ms) => `${Math.floor(ms / 6e4)}:${String(Math.floor(ms / 1e3) % 60).padStart(2, '0')}`;
/** The position now, in ms: the last state's, advanced while it plays. */
const now = () => (s ? Math.min(s.duration, s.position + (s.playing && (performance.now() - at) * s.speed / 100)) : 0);
const show = () => { $('time').value = `${clock($('seek').value = now())} / ${clock(s.duration)}`; };
const seek = (ms) => send('seek', Math.max(0, Math.round(ms)));
const toggle = () => send(s?.playing ? 'pause' : 'play');
// A new connection is a new replay: resume where this page was.
t.addEventListener('hello', () => { if (s) { seek(now()); send('speed', s.speed); } if (!s || s.playing) send('play'); });
t.addEventListener('replay', ({ detail }) => {
  s = detail;
  at = performance.now();
  document.title = s.title + ' · panecast';
  $('seek').max = s.duration;
  $('play').textContent = s.playing ? '\u23F8' : '\u25B6';
  $('play').ariaLabel = s.playing ? 'Pause' : 'Play';
  $('speed').value = s.speed;
  $('bar').replaceChildren($('seek'), ...s.markers.map((m) => Object.assign(document.createElement('i'), { title: m.label, style: `left:${100 * m.time / (s.duration || 1)}%` })));
  show();
});
setInterval(() => s?.playing && show(), 250);
$('play').onclick = toggle;
$('prev').onclick = () => send('marker', false);
$('next').onclick = () => send('marker', true);
$('speed').onchange = (e) => send('speed', +e.target.value);
$('seek').oninput = (e) => seek(+e.target.value);
onkeydown = (e) => {
  const k = e.key, step = { ArrowLeft: -5e3, ArrowRight: 5e3 }[k];
  if (e.target.closest?.('nav') && k !== 'k') return;
  if (k === ' ' || k === 'k') toggle();
  else if (step) seek(now() + step);
  else if (k === '[' || k === ']') send('marker', k === ']');
  else return;
  e.preventDefault();
};
t.connect();
window.panecast = t;
