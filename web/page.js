// The /s/{id} and /embed/{id} pages (notes: web/README.md).
import { sessionUrls } from './element.js';
import { mountShare } from './share.js';
import { mountFiles } from './files.js';

const params = new URLSearchParams(location.search);
const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get('t') || '';
if (token) {
  fragment.delete('t');
  const h = fragment.toString();
  history.replaceState(history.state, '', location.pathname + location.search + (h ? '#' + h : ''));
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
  if (get('predict') === '0' || get('predict') === 'false') el.setAttribute('predict', 'false');
  const keys = params.get('keys');
  if (keys !== null) el.setAttribute('keys', keys || 'none');
  if (token) el.setAttribute('token', token);
  el.setAttribute('src', location.pathname);
  const { api } = sessionUrls(location.pathname);
  if (token) {
    fetch(`${api}/login`, { method: 'POST', credentials: 'same-origin', headers: { Authorization: `Bearer ${token}` } }).catch(() => {});
  }
  if (!embed) {
    // One look at the session (what this credential may do, whether it
    // moves files) for the share bar and the file controls both.
    const session = fetch(api, { credentials: 'same-origin', headers: token ? { Authorization: `Bearer ${token}` } : {} })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null);
    mountShare(document.body, el, api, token, session);
    if (role === 'control') mountFiles(document.body, el, api, token, session);
  }
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
