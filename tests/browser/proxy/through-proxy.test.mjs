// End to end through a reverse proxy (run by tests/proxy.sh, once per proxy):
// the web client loaded from https://panecast.example.com:PORT/term/ (the
// name mapped to loopback in Chromium, the proxy's self-signed certificate
// accepted), the session list, a new session, typing and painting over wss,
// and an idle stream that outlives three of the proxy's read timeouts.
// Environment: PROXY_BASE (e.g. https://panecast.example.com:8443/term),
// PROXY_IDLE_MS (how long to stay idle), PANECAST_TOKEN, PROXY_NAME.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CHROMIUM, CHROMIUM_ARGS, readCanvas, screenshot, waitFor } from '../lib/harness.mjs';

const BASE = process.env.PROXY_BASE;
const IDLE_MS = Number(process.env.PROXY_IDLE_MS || 0);
const TOKEN = process.env.PANECAST_TOKEN;
const NAME = process.env.PROXY_NAME || 'proxy';
if (!BASE || !IDLE_MS || !TOKEN) throw new Error('run by tests/proxy.sh: PROXY_BASE, PROXY_IDLE_MS and PANECAST_TOKEN are required');
const host = new URL(BASE).hostname;

let browser;
before(async () => {
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${host} 127.0.0.1`],
    headless: true,
  });
});
after(async () => { await browser?.close(); });

/** A page that records every WebSocket it opens, and its page errors. */
async function newPage() {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 900, height: 520 } });
  await context.addInitScript(() => {
    window.__sockets = [];
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(url, protocols) {
        super(url, protocols);
        window.__sockets.push({ url: String(url), closed: null });
        const entry = window.__sockets[window.__sockets.length - 1];
        this.addEventListener('close', (e) => { entry.closed = e.code; });
      }
    };
  });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  return page;
}

const connected = (page) => waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'connected'), { what: 'the page connected', timeout: 15000 });

/** Types `command` and waits until its output line `expect` is painted. */
async function typeAndSee(page, command, expect) {
  await page.keyboard.type(command);
  await page.keyboard.press('Enter');
  let lastPainted = null;
  try {
    await waitFor(async () => {
      const lines = (await page.evaluate(() => window.panecast.screen.text())).split('\n');
      const row = lines.indexOf(expect);
      if (row < 0) return false;
      const [painted] = await readCanvas(page, { rows: [row] });
      lastPainted = painted;
      return painted.trimEnd() === expect;
    }, { what: `"${expect}" received and painted`, timeout: 15000 });
  } catch (e) {
    await screenshot(page, `proxy-${NAME}-failed`);
    const model = await page.evaluate(() => window.panecast.screen.text());
    throw new Error(`${e.message}; painted: ${JSON.stringify(lastPainted)}; the screen model holds: ${JSON.stringify(model.split('\n').slice(0, 4))}`);
  }
}

test('the session list, a new session, typing and painting, all under /term/ over wss', { timeout: 60000 }, async () => {
  const page = await newPage();
  const response = await page.goto(`${BASE}/?token=${TOKEN}`);
  assert.equal(response.status(), 200);
  assert.equal(new URL(page.url()).search, '', 'the token left the address bar');
  // The list page calls the API through the proxy with the cookie.
  await waitFor(() => page.evaluate(() => document.getElementById('profile').options.length > 0), { what: 'the profiles' });
  const created = await page.evaluate(async () => {
    const r = await fetch('api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ command: ['sh', '-c', "export PS1='$ '; exec sh -i"] }) });
    return { status: r.status, body: await r.json() };
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await page.reload();
  const link = page.locator(`a[href$="/s/${created.body.id}"]`);
  await link.waitFor({ timeout: 10000 });
  assert.equal(await link.getAttribute('href'), `${new URL(BASE).pathname}/s/${created.body.id}`);
  await link.click();
  await connected(page);
  await typeAndSee(page, 'echo hello$((6*7))', 'hello42');
  const sockets = await page.evaluate(() => window.__sockets);
  assert.equal(sockets.length, 1, JSON.stringify(sockets));
  assert.ok(sockets[0].url.startsWith(`wss://${new URL(BASE).host}/term/api/sessions/`), sockets[0].url);
  await screenshot(page, `proxy-${NAME}-typing`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('an idle stream outlives three read timeouts of the proxy', { timeout: IDLE_MS + 60000 }, async () => {
  const page = await newPage();
  await page.goto(`${BASE}/?token=${TOKEN}`);
  const id = await page.evaluate(async () => {
    const r = await fetch('api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ command: ['sh', '-c', "export PS1='$ '; exec sh -i"] }) });
    return (await r.json()).id;
  });
  await page.goto(`${BASE}/s/${id}`);
  await connected(page);
  await typeAndSee(page, 'echo before idle', 'before idle');
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const sockets = await page.evaluate(() => window.__sockets);
  assert.equal(sockets.length, 1, `the stream was never reopened: ${JSON.stringify(sockets)}`);
  assert.equal(sockets[0].closed, null, 'the stream is still open');
  assert.equal(await page.evaluate(() => window.panecast.status), 'connected');
  await typeAndSee(page, 'echo after idle', 'after idle');
  await screenshot(page, `proxy-${NAME}-idle`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
