// The /s/{id} and /embed/{id} pages: one <panecast-terminal> for the session
// in the URL. URL parameters: role (control|view), fontSize, theme, fit, and
// token (used once: the server turns it into a cookie; it is then removed
// from the address bar, and kept in memory for the WebSocket).
import './element.js';

const params = new URLSearchParams(location.search);
const token = params.get('token') || '';
if (token) {
  params.delete('token');
  const q = params.toString();
  history.replaceState(history.state, '', location.pathname + (q ? '?' + q : '') + location.hash);
}
const m = location.pathname.match(/\/(s|embed)\/([^/]+)\/?$/);
const el = document.querySelector('panecast-terminal');
const embed = m && m[1] === 'embed';
const get = (...names) => names.map((n) => params.get(n)).find((v) => v !== null && v !== '');
if (m) {
  const role = get('role') === 'view' ? 'view' : 'control';
  el.setAttribute('access', role);
  const size = get('fontSize', 'font-size', 'fontsize');
  if (size) el.setAttribute('font-size', size);
  const theme = get('theme');
  if (theme) el.setAttribute('theme', theme);
  const fit = get('fit');
  if (fit) el.setAttribute('fit', fit);
  if (token) el.setAttribute('token', token);
  el.setAttribute('src', location.pathname);
  const id = decodeURIComponent(m[2]);
  el.addEventListener('title', (e) => {
    if (!embed) document.title = e.detail ? `${e.detail} · panecast` : `${id} · panecast`;
  });
  if (!embed) {
    document.title = `${id} · panecast`;
    queueMicrotask(() => el.focus());
  }
} else {
  document.body.textContent = 'No session in this URL.';
}
// For tests and the console.
Object.defineProperty(window, 'panecast', { get: () => el.terminal });
