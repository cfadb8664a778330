// End-to-end: the real server (target/release/panecast, or PANECAST_BIN) with
// the web client in headless Chromium. Run by tests/web.sh. Every test is
// skipped, with the reason, when the binary is missing; nothing else skips.
// Screenshots: tests/artifacts/browser/e2e-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { launch, readCanvas, screenshot, waitFor } from './lib/harness.mjs';
import { startServer, startProxy, missing, TOKEN } from './lib/server.mjs';

const skip = missing();
if (skip) console.log(`# SKIPPING the end-to-end browser tests: ${skip}`);
const e2e = (name, fn) => test(name, { skip: skip || false, timeout: 60000 }, fn);

let server, browser, proxy;
before(async () => {
  if (skip) return;
  server = await startServer();
  proxy = await startProxy(Number(new URL(server.base).port));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await proxy?.close();
  await server?.stop();
});

// A POSIX shell with a known prompt, whatever the machine's profiles are.
const SHELL = ['sh', '-c', "export PS1='$ '; exec sh -i"];

async function session(extra = {}) {
  const s = await server.api('POST', '/api/sessions', { command: SHELL, ...extra });
  assert.ok(s.id, 'the API returned an id');
  await waitFor(async () => (await screenText(s.id)).some((l) => l.startsWith('$')), { what: 'the prompt' });
  return s.id;
}

const screenText = async (id) => String(await server.api('GET', `/api/sessions/${id}/screen?format=text`)).split('\n');
const screenJson = (id) => server.api('GET', `/api/sessions/${id}/screen?format=json`);
const input = (id, text) => server.api('POST', `/api/sessions/${id}/input`, { text });

async function open(id, { role = 'control', base = server.base, viewport = { width: 900, height: 520 }, path = 's', context } = {}) {
  const ctx = context || await browser.newContext({ viewport });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${base}/${path}/${id}?token=${TOKEN}&role=${role}`);
  await connected(page);
  return page;
}

const connected = (page) => waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'connected'), { what: 'the page connected', timeout: 15000 });

/** Waits until the canvas row that the API shows `text` on reads `text` too. */
async function paintedLikeServer(page, id, text) {
  return waitFor(async () => {
    const lines = await screenText(id);
    const row = lines.findIndex((l) => l === text);
    if (row < 0) return false;
    const [painted] = await readCanvas(page, { rows: [row] });
    return painted === text && row;
  }, { what: `"${text}" in the session's screen and painted on the same row` });
}

async function finish(page, name) {
  await screenshot(page, 'e2e-' + name);
  assert.deepEqual(page.errors, [], 'no errors in the page');
  await page.context().close();
}

e2e('typing echo hello shows hello in the screen API and painted on the canvas', async () => {
  const id = await session();
  const page = await open(id);
  await page.keyboard.type('echo hello');
  await page.keyboard.press('Enter');
  const row = await paintedLikeServer(page, id, 'hello');
  const lines = await screenText(id);
  assert.match(lines[row - 1], /echo hello$/);
  const [cmd] = await readCanvas(page, { rows: [row - 1] });
  assert.equal(cmd, lines[row - 1].replace(/ +$/, ''), 'the command line is painted as the server has it');
  await finish(page, 'echo-hello');
});

e2e('a second tab on the same session sees the same screen', async () => {
  const id = await session();
  const a = await open(id);
  const b = await open(id);
  await a.keyboard.type('echo two tabs\n');
  const row = await paintedLikeServer(b, id, 'two tabs');
  assert.deepEqual(await readCanvas(a, { rows: [0, row] }), await readCanvas(b, { rows: [0, row] }));
  await finish(b, 'second-tab');
  await finish(a, 'first-tab');
});

e2e('a view page cannot type and shows the read-only marker', async () => {
  const id = await session();
  const page = await open(id, { role: 'view' });
  assert.equal(await page.evaluate(() => window.panecast.role), 'view', 'the server said view in Hello');
  assert.equal(await page.locator('panecast-terminal .pc-badge').isVisible(), true);
  await page.click('panecast-terminal');
  await page.keyboard.type('echo nope\n');
  await new Promise((r) => setTimeout(r, 800));
  assert.ok(!(await screenText(id)).join('\n').includes('nope'), 'nothing typed reached the session');
  assert.equal(await page.evaluate(() => window.panecast.status), 'connected', 'and the server had no reason to close');
  await input(id, 'echo from the api\r');
  await paintedLikeServer(page, id, 'from the api');
  await finish(page, 'view-role');
});

e2e('the server side closing the socket is followed by a reconnect that restores the screen', async () => {
  const id = await session();
  const page = await open(id, { base: proxy.base });
  await page.keyboard.type('echo before\n');
  await paintedLikeServer(page, id, 'before');
  await page.evaluate(() => { window.seen = []; window.panecast.addEventListener('status', (e) => window.seen.push(e.detail.status)); });
  proxy.dropAll();
  await waitFor(() => page.evaluate(() => window.seen.includes('reconnecting')), { what: 'the reconnecting overlay' });
  await input(id, 'echo during\r'); // the screen changes while the page is away
  await connected(page);
  await paintedLikeServer(page, id, 'during');
  await paintedLikeServer(page, id, 'before');
  await page.keyboard.type('echo after\n');
  await paintedLikeServer(page, id, 'after');
  await finish(page, 'reconnect');
});

e2e('resizing the window resizes the session', async () => {
  const id = await session();
  const page = await open(id, { viewport: { width: 900, height: 520 } });
  const cell = await page.evaluate(() => window.panecast.metrics().cell);
  const expect = (w, h) => [Math.floor(w / cell.width), Math.floor(h / cell.height)];
  await waitFor(async () => { const j = await screenJson(id); return j.cols === expect(900, 520)[0] && j.rows === expect(900, 520)[1]; }, { what: 'the session fitted to the window' });
  await page.setViewportSize({ width: 600, height: 330 });
  const [cols, rows] = expect(600, 330);
  await waitFor(async () => { const j = await screenJson(id); return j.cols === cols && j.rows === rows; }, { what: `the session at ${cols}x${rows}` });
  await waitFor(() => page.evaluate(([c, r]) => window.panecast.cols === c && window.panecast.rows === r, [cols, rows]), { what: 'the page at the new size' });
  await page.keyboard.type('stty size\n');
  await paintedLikeServer(page, id, `${rows} ${cols}`);
  await finish(page, 'resize');
});

e2e('CJK and emoji output paints in the right cells', async () => {
  const id = await session();
  const page = await open(id);
  // printf with octal escapes: 你好|😀|x
  await input(id, "printf '\\344\\275\\240\\345\\245\\275|\\360\\237\\230\\200|x\\n'\r");
  const row = await waitFor(async () => { const l = await screenText(id); const r = l.indexOf('你好|😀|x'); return r >= 0 && r; }, { what: 'the CJK line in the session' });
  const [painted] = await waitFor(async () => { const r = await readCanvas(page, { rows: [row] }); return r[0] === '##|#|x' && r; }, { what: 'wide cells and the bars painted at columns 4 and 7' });
  assert.equal(painted, '##|#|x');
  const json = await screenJson(id);
  assert.equal(json.lines[row], '你好|😀|x');
  await finish(page, 'cjk-emoji');
});

e2e('the program exiting shows the exit code', async () => {
  const s = await server.api('POST', '/api/sessions', { command: ['sh', '-c', 'sleep 1; exit 3'] });
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  page.errors = [];
  await page.goto(`${server.base}/s/${s.id}?token=${TOKEN}`);
  await waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'exited'), { what: 'the exited overlay', timeout: 15000 });
  assert.match(await page.locator('panecast-terminal .pc-status').textContent(), /exited with code 3/);
  await finish(page, 'exit-code');
});

e2e('the wheel scrolls back through scrollback fetched from the server', async () => {
  const id = await session();
  const page = await open(id, { viewport: { width: 700, height: 300 } });
  await page.keyboard.type('seq 1 300\n');
  await paintedLikeServer(page, id, '300');
  await page.mouse.move(200, 100);
  await page.mouse.wheel(0, -2000);
  const rows = await waitFor(async () => {
    const r = await readCanvas(page);
    return r.some((l) => /^\d+$/.test(l) && Number(l) < 280) && r;
  }, { what: 'older lines painted' });
  assert.ok(!rows.includes('300'));
  await page.keyboard.type('x');
  await waitFor(async () => (await readCanvas(page)).includes('300'), { what: 'typing returns to the bottom' });
  await page.keyboard.press('Backspace');
  await finish(page, 'scrollback');
});

e2e('after output that scrolled more than a screen at once, the line above the screen is the right one', async () => {
  const id = await session();
  const page = await open(id, { viewport: { width: 700, height: 300 } });
  // One write that scrolls many screens: the frame's scroll hint is larger than the screen.
  await input(id, 'seq 1 3000\r');
  await paintedLikeServer(page, id, '3000');
  const above = await waitFor(async () => {
    const t = await screenText(id);
    const top = Number(t[0]);
    return Number.isInteger(top) && top > 1 && top - 1;
  }, { what: 'a number on the top row' });
  await page.evaluate(() => window.panecast.scrollView(1));
  const shown = await waitFor(() => page.evaluate(() => {
    const l = window.panecast.displayLine(0);
    return l && l.text.join('').trim();
  }), { what: 'the line above the screen shown' });
  assert.equal(shown, String(above), 'scrolled back one line');
  await finish(page, 'scroll-hint-over-screen');
});

e2e('rows changed and scrolled off between two frames show their final text in the scrollback', async () => {
  const id = await session();
  const page = await open(id, { viewport: { width: 700, height: 300 } });
  // The rows below the prompt are blank on the page, then get 1, 2, ... and
  // scroll off before the next frame: the page never saw those texts.
  await input(id, 'seq 1 300\r');
  await paintedLikeServer(page, id, '300');
  await page.evaluate(() => window.panecast.scrollView(1e9));
  const top = await waitFor(() => page.evaluate(() => {
    const t = window.panecast, rows = [];
    for (let y = 0; y < t.rows; y++) { const l = t.displayLine(y); if (!l) return false; rows.push(l.text.join('').trim()); }
    return rows;
  }), { what: 'the top of the scrollback shown' });
  const first = top.indexOf('1');
  assert.ok(first >= 0 && top[first - 1].endsWith('seq 1 300'), `the command, then 1: ${JSON.stringify(top)}`);
  assert.deepEqual(top.slice(first), top.slice(first).map((_, i) => String(i + 1)));
  await finish(page, 'scrollback-final-text');
});

e2e('a scroll region at the top with a status line below pushes lines the page numbers right', async () => {
  const id = await session();
  const page = await open(id, { viewport: { width: 700, height: 300 } });
  await waitFor(() => page.evaluate(() => window.panecast.text().includes('$')), { what: 'the prompt on the page' });
  // The session's height once the page has sized it: the rows that fit the page, which the
  // page and the session both have (before the page's resize, both still have the old height).
  const rows = await waitFor(async () => {
    const r = (await server.api('GET', `/api/sessions/${id}`)).rows;
    const shown = await page.evaluate(() => {
      const t = window.panecast;
      return { rows: t.rows, fit: Math.floor(t.el.getBoundingClientRect().height / t.painter.cellCss.height) };
    });
    return r === shown.rows && r === shown.fit && r;
  }, { what: 'the session sized by the page' });
  // 1..30 scroll the whole screen; then, as apt draws its progress bar, a
  // region above a status line: R1..R20 leave its top for the scrollback
  // without the screen scrolling.
  await input(id, `clear; seq 1 30; printf '\\033[1;${rows - 1}r\\033[${rows};1Hstatus\\033[${rows - 1};1H\\n'; ` +
    'for i in $(seq 1 20); do echo R$i; sleep 0.05; done; printf \'\\033[r\'\r');
  await waitFor(async () => (await screenText(id)).includes('R20'), { what: 'R20 in the session' });
  await paintedLikeServer(page, id, 'R20');
  // One line back: the line just above the screen, from what the page keeps.
  await page.evaluate(() => window.panecast.scrollView(1));
  const { above } = await waitFor(() => page.evaluate(() => { const l = window.panecast.displayLine(0); return l && { above: l.text.join('').trim() }; }), { what: 'one line back' });
  const total = await page.evaluate(() => window.panecast.screen.total);
  const seen = [];
  for (let off = total; off > 0; off -= rows) {
    await page.evaluate((o) => { const t = window.panecast; t.scrollView(o - t.viewOffset); }, off);
    const view = await waitFor(() => page.evaluate(() => {
      const t = window.panecast, out = [];
      for (let y = 0; y < t.rows; y++) { const l = t.displayLine(y); if (!l) return false; out.push(l.text.join('').trim()); }
      return { off: t.viewOffset, out };
    }), { what: `the view ${off} lines back` });
    seen.push(...view.out.slice(0, Math.min(view.off, rows)));
  }
  const lines = seen.filter((l) => /^R?\d+$/.test(l));
  const last = lines.at(-1);
  const expected = [...Array(30).keys()].map((i) => String(i + 1));
  for (let i = 1; `R${i}` !== last; i++) expected.push(`R${i}`);
  expected.push(last);
  assert.ok(/^R\d+$/.test(last), `R lines reached the scrollback: ${JSON.stringify(seen)}`);
  assert.deepEqual(lines, expected, 'the scrollback in order, each line once');
  assert.equal(above, seen.at(-1), 'one line back showed the line just above the screen');
  await finish(page, 'scrollback-region-pushes');
});

e2e('the index page lists sessions and creates one from a profile', async () => {
  const id = await session();
  const name = `listed-${Date.now()}`;
  const named = await session({ name });
  // The program names its window: the list shows the title beside the name.
  await input(named, "printf '\\033]2;build watcher\\007'\r");
  await waitFor(async () => (await server.api('GET', `/api/sessions/${named}`)).title === 'build watcher', { what: 'the title set' });
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${server.base}/?token=${TOKEN}`);
  await page.locator(`a[href="/s/${id}"]`).waitFor();
  assert.ok(!page.url().includes('token='), 'the token left the address bar');
  const row = page.locator('#sessions tr', { has: page.locator(`a[href="/s/${named}"]`) });
  assert.equal(await row.locator('a').first().textContent(), name, 'a named session is listed by its name');
  const first = await row.locator('td').first().textContent();
  assert.ok(first.includes('build watcher') && first.includes(named), `its title and id beside the name: ${first}`);
  const profiles = await page.locator('#profile option').allTextContents();
  assert.ok(profiles.length > 0, 'profiles listed');
  await page.click('button[type=submit]');
  await page.waitForURL(/\/s\/[^/?]+$/);
  await connected(page);
  await finish(page, 'index');
});

e2e('the embed page is a bare terminal', async () => {
  const id = await session();
  await input(id, 'echo embedded\r');
  const page = await open(id, { role: 'view', path: 'embed', viewport: { width: 500, height: 300 } });
  await paintedLikeServer(page, id, 'embedded');
  const r = await page.evaluate(() => window.panecast.canvas.getBoundingClientRect().toJSON());
  assert.ok(r.width <= 500 && r.height <= 300, 'scaled into the frame');
  await finish(page, 'embed');
});

e2e('the custom element works on a page of another origin with its token attribute', async () => {
  const id = await session();
  await input(id, 'echo element\r');
  const host = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<!doctype html><body><p>dashboard</p>
      <panecast-terminal src="${server.base}/s/${id}" token="${TOKEN}" role="view" style="width:640px;height:320px"></panecast-terminal>
      <script type="module" src="${server.base}/web/element.js"></script></body>`);
  });
  await new Promise((r) => host.listen(0, '127.0.0.1', r));
  try {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    page.errors = [];
    await page.goto(`http://127.0.0.1:${host.address().port}/`);
    const get = 'document.querySelector("panecast-terminal").terminal';
    await waitFor(() => page.evaluate((g) => (0, eval)(g)?.status === 'connected', get), { what: 'the element connected (needs CORS on /web/ and the Origin allowed on the WebSocket)' });
    await waitFor(async () => (await readCanvas(page, { get })).includes('element'), { what: 'element painted' });
    await finish(page, 'custom-element');
  } finally {
    host.close();
  }
});

e2e('share: an admin mints a view link, a second browser watches but cannot type, revoking ends its access', async () => {
  const id = await session();
  await input(id, 'echo sharedscreen\r');
  const admin = await open(id);
  // The Share control is there for the admin; mint a view link for a day.
  await admin.locator('.pc-bar button', { hasText: 'Share' }).click();
  await admin.locator('.pc-share select[aria-label="Role"]').selectOption('view');
  await admin.locator('.pc-share button', { hasText: 'Create link' }).click();
  const url = await waitFor(() => admin.locator('.pc-share input[aria-label="Link"]').inputValue(), { what: 'the link URL' });
  assert.match(url, new RegExp(`/s/${id}#t=[0-9a-f]{32}$`), url);

  // A second browser (no cookie of the admin's) opens the link.
  const ctx = await browser.newContext({ viewport: { width: 900, height: 520 } });
  const viewer = await ctx.newPage();
  viewer.errors = [];
  viewer.on('pageerror', (e) => viewer.errors.push(e.message));
  await viewer.goto(url);
  await connected(viewer);
  assert.ok(!viewer.url().includes('#t='), 'the token left the address bar');
  assert.equal(await viewer.evaluate(() => window.panecast.role), 'view');
  await paintedLikeServer(viewer, id, 'sharedscreen');
  // The link's cookie is scoped to this session's API and HttpOnly.
  const cookie = (await ctx.cookies()).find((c) => c.name === 'panecast_link');
  assert.ok(cookie && cookie.httpOnly && cookie.path === `/api/sessions/${id}` && cookie.sameSite === 'Strict', JSON.stringify(cookie));
  // Typing reaches nothing.
  await viewer.locator('panecast-terminal').click();
  await viewer.keyboard.type('echo typedbyviewer');
  await viewer.keyboard.press('Enter');
  await new Promise((r) => setTimeout(r, 500));
  assert.ok(!(await screenText(id)).some((l) => l.includes('typedbyviewer')), 'the viewer typed nothing');
  // No Share button for a viewer; both pages count the viewer.
  assert.equal(await viewer.locator('.pc-bar button', { hasText: 'Share' }).count(), 0);
  await waitFor(async () => /1 watching/.test(await admin.locator('.pc-presence').textContent()), { what: 'the admin sees one viewer' });
  await waitFor(() => admin.locator('.pc-share tr td', { hasText: '1 open' }).count(), { what: 'the link lists its viewer' });

  // Revoke: the viewer's page says its access ended.
  await admin.locator('.pc-share button', { hasText: 'Revoke' }).click();
  await waitFor(() => viewer.evaluate(() => window.panecast.status === 'closed'), { what: 'the viewer closed', timeout: 5000 });
  const status = await viewer.locator('panecast-terminal').evaluate((el) => el.shadowRoot.querySelector('.pc-status').textContent);
  assert.match(status, /Access ended/);
  await waitFor(async () => /0 watching/.test(await admin.locator('.pc-presence').textContent()), { what: 'the admin sees the viewer gone' });
  await screenshot(viewer, 'e2e-share-revoked');
  assert.deepEqual(viewer.errors, [], 'no errors in the viewer page');
  await ctx.close();
  await finish(admin, 'share-admin');
});
