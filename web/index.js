// The / page: sessions, new ones from profiles, and recordings (web/README.md).
import { route } from './base.js';

const params = new URLSearchParams(location.search);
if (params.has('token')) {
  params.delete('token');
  const q = params.toString();
  history.replaceState(null, '', location.pathname + (q ? '?' + q : ''));
}
const $ = (id) => document.getElementById(id);

async function api(path, init = {}) {
  const r = await fetch(path, { credentials: 'same-origin', ...init, headers: { 'Content-Type': 'application/json', ...(init.headers || {}) } });
  const body = r.status === 204 ? null : await r.json().catch(() => null);
  if (!r.ok) throw new Error((body && body.error) || `${r.status} ${r.statusText}`);
  return body;
}

function cell(row, text, cls) {
  const td = document.createElement('td');
  if (text instanceof Node) td.append(text); else td.textContent = text;
  if (cls) td.className = cls;
  row.append(td);
  return td;
}

function link(href, text) {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  return a;
}

async function refresh() {
  let list;
  try {
    list = await api(route('api/sessions'));
  } catch (e) {
    $('sessions').innerHTML = '';
    const tr = document.createElement('tr');
    cell(tr, `Cannot list sessions: ${e.message}`, 'err').colSpan = 5;
    $('sessions').append(tr);
    return;
  }
  const rows = (Array.isArray(list) ? list : list.sessions || []).map((s) => {
    const tr = document.createElement('tr');
    const id = encodeURIComponent(s.id);
    // Its name (or id), what the program calls itself, and the id when named.
    const what = cell(tr, link(route(`s/${id}`), s.name || s.id));
    if (s.title) what.append(' ', Object.assign(document.createElement('span'), { textContent: s.title }));
    if (s.name) what.append(' ', Object.assign(document.createElement('small'), { textContent: s.id, className: 'muted' }));
    const cmd = document.createElement('code');
    cmd.textContent = s.profile || (Array.isArray(s.command) ? s.command.join(' ') : s.command || '');
    cell(tr, cmd);
    cell(tr, s.cols && s.rows ? `${s.cols}×${s.rows}` : '');
    cell(tr, s.running === false ? `exited${s.exit_code != null ? ` (${s.exit_code})` : ''}` : 'running');
    const actions = cell(tr, '');
    actions.append(link(route(`s/${id}?role=view`), 'watch'), link(route(`embed/${id}?role=view`), 'embed'));
    const del = document.createElement('button');
    del.textContent = 'Delete';
    del.onclick = async () => {
      if (!confirm(`Delete session ${s.id}?`)) return;
      await api(route(`api/sessions/${id}`), { method: 'DELETE' }).catch((e) => { $('msg').textContent = e.message; });
      refresh();
    };
    actions.append(del);
    return tr;
  });
  $('sessions').replaceChildren(...rows);
  if (!rows.length) {
    const tr = document.createElement('tr');
    cell(tr, 'No sessions yet.', 'muted').colSpan = 5;
    $('sessions').append(tr);
  }
}

/** The recordings this credential reaches, each a link to its replay page; hidden when there are none. */
async function refreshRecordings() {
  const list = await api(route('api/recordings')).catch(() => null);
  const recordings = (list && list.recordings) || [];
  $('recordings-section').hidden = !recordings.length;
  $('recordings').replaceChildren(...recordings.map((r) => {
    const tr = document.createElement('tr');
    cell(tr, link(route(`r/${encodeURIComponent(r.name)}`), r.name));
    cell(tr, r.session || '');
    cell(tr, r.started_at ? new Date(r.started_at).toLocaleString() : '');
    cell(tr, r.live ? 'recording…' : `${Math.round(r.duration || 0)} s`);
    cell(tr, `${Math.ceil((r.bytes || 0) / 1024)} KiB`);
    return tr;
  }));
}

async function loadProfiles() {
  try {
    const list = await api(route('api/profiles'));
    const names = (Array.isArray(list) ? list : list.profiles || []).map((p) => (typeof p === 'string' ? p : p.name));
    $('profile').replaceChildren(...names.map((n) => new Option(n, n)));
  } catch (e) {
    $('profile').replaceChildren(new Option('shell', 'shell'));
    $('msg').textContent = `Cannot list profiles: ${e.message}`;
  }
}

$('create').addEventListener('submit', async (e) => {
  e.preventDefault();
  $('msg').textContent = '';
  try {
    const s = await api(route('api/sessions'), { method: 'POST', body: JSON.stringify({ profile: $('profile').value }) });
    location.href = route(`s/${encodeURIComponent(s.id)}`);
  } catch (err) {
    $('msg').textContent = err.message;
  }
});

loadProfiles();
refresh();
refreshRecordings();
setInterval(() => { if (!document.hidden) { refresh(); refreshRecordings(); } }, 5000);
