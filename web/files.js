// The session page's files in and out (notes: web/README.md): drop files
// on the terminal or press Upload (progress in a bar, the outcome in a
// status line), and a button to save the file a program offers.
const make = (tag, props, ...kids) => {
  const n = Object.assign(document.createElement(tag), props);
  n.append(...kids);
  return n;
};

/** Adds the file controls for the session at `api`, when its profile moves
 *  files and this page may type; `el` is the terminal element, `session` a
 *  promise of the session object (`GET api`), or of null. */
export async function mountFiles(root, el, api, token, session) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const s = await session;
  if (!s || !s.files || s.access === 'view') return;
  const bar = make('progress', { hidden: true, ariaLabel: 'Upload progress' });
  const status = make('span', { role: 'status' });
  const box = make('div', { style: 'position:fixed;bottom:6px;left:10px;z-index:10;font:12px sans-serif;color:#ddd' },
    make('button', { type: 'button', textContent: 'Upload', onclick: () => make('input', { type: 'file', multiple: true, onchange: (e) => send(e.target.files) }).click() }),
    ' ', bar, ' ', status, ' ');
  root.append(box);
  let link;

  const put = (file) => new Promise((done) => {
    const x = new XMLHttpRequest();
    x.open('PUT', `${api}/files/${encodeURIComponent(file.name)}`);
    headers['Content-Type'] = 'application/octet-stream';
    for (const k in headers) x.setRequestHeader(k, headers[k]);
    x.upload.onprogress = (e) => { bar.max = e.total; bar.value = e.loaded; };
    x.onloadend = () => {
      let b = {};
      try { b = JSON.parse(x.responseText); } catch { /* no answer */ }
      done(x.status === 201 ? `Uploaded ${b.name} to ${b.directory}` : `${file.name}: ${b.error || 'failed'}`);
    };
    x.send(file);
  });
  const send = async (files) => {
    for (const file of files) {
      status.textContent = `Uploading ${file.name}`;
      bar.value = 0;
      bar.hidden = false;
      status.textContent = await put(file);
      bar.hidden = true;
    }
  };
  const over = (e) => {
    const files = e.dataTransfer && e.dataTransfer.types.includes('Files');
    if (files) e.preventDefault();
    return files;
  };
  el.addEventListener('dragover', over);
  el.addEventListener('drop', (e) => { if (over(e)) send(e.dataTransfer.files); });
  el.addEventListener('file_offer', ({ detail: { name, data } }) => {
    if (link) { URL.revokeObjectURL(link.href); link.remove(); }
    link = make('a', { href: URL.createObjectURL(new Blob([data])), download: name, textContent: `Download ${name}` });
    box.append(link);
    status.textContent = '';
  });
}
