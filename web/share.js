// The session page's presence badge and Share panel (notes: web/README.md).
const LIST_REFRESH_MS = 3000;
const LIFETIMES = [['1 hour', 3600], ['1 day', 86400], ['7 days', 604800]];
const CSS = `.pc-bar{position:fixed;bottom:6px;right:10px;z-index:10;display:flex;gap:8px;align-items:center;font:12px system-ui,sans-serif;color:#ddd}
.pc-bar button,.pc-share button,.pc-share select{font:inherit;cursor:pointer}
.pc-room{background:#222;padding:3px 8px;border-radius:10px}.pc-driver:empty,.pc-rtt:empty{display:none}.pc-room ul{margin:4px 0;padding-left:16px}
.pc-share{position:fixed;bottom:34px;right:10px;z-index:10;background:#252526;color:#eee;border:1px solid #555;border-radius:6px;padding:10px;font:13px system-ui,sans-serif;width:min(420px,90vw)}
.pc-share[hidden]{display:none}@media (pointer:coarse){.pc-bar{bottom:46px}}.pc-share input{width:100%;box-sizing:border-box;font:12px monospace}
.pc-share table{width:100%;border-collapse:collapse;margin-top:8px}.pc-share td{padding:2px 4px;border-top:1px solid #444}`;

function make(tag, props = {}, ...children) {
  const n = Object.assign(document.createElement(tag), props);
  n.append(...children);
  return n;
}

/** What a room entry is called: its name, or what signed it in. */
const who = (x) => x.name || (x.kind === 'link' ? 'a shared link' : x.kind);

/** Adds the badge and the people here (fed by `source`'s presence and room
 *  events), who drives the size with Take control, and, for admins, the
 *  Share panel for the session at `api`; `session` is a promise of the
 *  session object (`GET api`), or of null when it could not be read. */
export async function mountShare(root, source, api, token, session) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const call = async (path, init = {}) => {
    const r = await fetch(api + path, { credentials: 'same-origin', ...init, headers: { 'Content-Type': 'application/json', ...headers } });
    const body = r.status === 204 ? null : await r.json().catch(() => null);
    if (!r.ok) throw new Error((body && body.error) || `${r.status}`);
    return body;
  };
  root.append(make('style', { textContent: CSS }));
  const presence = make('span', { className: 'pc-presence', role: 'status', ariaLive: 'polite' });
  const people = make('ul', { ariaLabel: 'People here' });
  const driver = make('div', { className: 'pc-driver', role: 'status', ariaLive: 'polite' });
  const rtt = make('div', { className: 'pc-rtt' });
  const room = make('details', { className: 'pc-room' }, make('summary', {}, presence), rtt, driver, people);
  const take = make('button', { type: 'button', textContent: 'Take control', hidden: true, title: 'Size the session to your window' });
  take.onclick = () => source.terminal.takeControl();
  // Compact, so that on a phone it leaves the terminal's left side free
  // for touch: the counts open the list of people and who drives.
  const bar = make('div', { className: 'pc-bar' }, take, room);
  root.append(bar);
  source.addEventListener('room', ({ detail: r }) => {
    const d = r.entries.find((x) => x.drives);
    driver.textContent = r.policy !== 'driver' ? `size: ${r.policy}` : r.youDrive ? 'you drive the size' : d ? `${who(d)} drives the size` : '';
    take.hidden = r.policy !== 'driver' || r.youDrive || source.terminal.screen.role !== 'control';
    people.replaceChildren(...r.entries.map((x) => make('li', {
      textContent: `${who(x)}${x.name ? ` (${x.kind})` : ''}: ${x.role === 'control' ? 'controlling' : 'watching'}${x.drives ? ', drives the size' : ''}${x.connections > 1 ? `, ${x.connections} windows` : ''}`,
    })), ...(r.unlisted ? [make('li', { textContent: `${r.unlisted} more` })] : []));
  });
  source.addEventListener('presence', (e) => {
    presence.textContent = `${e.detail.view} watching · ${e.detail.control} controlling`;
    presence.dataset.view = e.detail.view;
    presence.dataset.control = e.detail.control;
  });
  // Why typing may feel slow: the measured round trip (pings), in the
  // list and as the counts' tooltip.
  source.addEventListener('rtt', ({ detail }) => {
    const ms = Math.round(detail.srtt);
    rtt.textContent = `round trip ${ms} ms`;
    presence.title = `Round trip to the server: ${ms} ms`;
  });
  const info = await session;
  if (info && info.access === 'admin') adminPanel(bar, root, call);
}

function adminPanel(bar, root, call) {
  const toggle = make('button', { type: 'button', textContent: 'Share', ariaExpanded: 'false' });
  const role = make('select', { ariaLabel: 'Role' }, make('option', { value: 'view', textContent: 'view only' }), make('option', { value: 'control', textContent: 'can type' }));
  const label = make('input', { ariaLabel: 'Name shown for people who open it', placeholder: 'name (optional)', maxLength: 64, size: 12 });
  const ttl = make('select', { ariaLabel: 'Lifetime' }, ...LIFETIMES.map(([t, v]) => make('option', { value: v, textContent: t, selected: v === 86400 })));
  const mint = make('button', { type: 'button', textContent: 'Create link' });
  const url = make('input', { readOnly: true, ariaLabel: 'Link', placeholder: 'the new link appears here' });
  const copy = make('button', { type: 'button', textContent: 'Copy' });
  const msg = make('div', { role: 'status' });
  const rows = make('tbody');
  const panel = make('div', { className: 'pc-share', hidden: true, role: 'dialog', ariaLabel: 'Share this session' },
    make('div', {}, role, ' ', ttl, ' ', label, ' ', mint), make('div', {}, url, copy), msg, make('table', {}, rows));
  bar.prepend(toggle);
  root.append(panel);
  let timer = null;

  const list = async () => {
    try {
      const { links } = await call('/links');
      rows.replaceChildren(...links.map((l) => {
        const revoke = make('button', { type: 'button', textContent: 'Revoke' });
        revoke.onclick = async () => {
          try { await call(`/links/${l.id}`, { method: 'DELETE' }); msg.textContent = 'Link revoked'; } catch (e) { msg.textContent = e.message; }
          list();
        };
        const row = make('tr', {}, make('td', { textContent: l.label || '' }), make('td', { textContent: l.role }), make('td', { textContent: `until ${new Date(l.expires_at).toLocaleString()}` }),
          make('td', { textContent: `${l.viewers} open` }), make('td', {}, revoke));
        row.dataset.link = l.id;
        return row;
      }));
    } catch (e) { msg.textContent = e.message; }
  };
  toggle.onclick = () => {
    panel.hidden = !panel.hidden;
    toggle.ariaExpanded = String(!panel.hidden);
    clearInterval(timer);
    if (!panel.hidden) {
      list();
      timer = setInterval(list, LIST_REFRESH_MS);
    }
  };
  mint.onclick = async () => {
    try {
      const link = await call('/links', { method: 'POST', body: JSON.stringify({ role: role.value, ttl: Number(ttl.value), ...(label.value && { label: label.value }) }) });
      url.value = link.url;
      msg.textContent = `A ${link.role} link was created`;
      list();
    } catch (e) { msg.textContent = e.message; }
  };
  copy.onclick = async () => {
    url.select();
    try { await navigator.clipboard.writeText(url.value); msg.textContent = 'Copied'; } catch { msg.textContent = 'Press Ctrl-C to copy'; }
  };
}
