// Behind nginx with the common `proxy_set_header Host $host;` on a port
// other than 80 (run by tests/proxy.sh): the proxy drops the port from
// Host, so the page's Origin (http://127.0.0.1:PORT) is not the server's
// own as the server sees it (http://127.0.0.1). The page must say why, name
// the fix, and stop retrying; tests/proxy.sh then checks the server logged it.
// Environment: HOST_BASE (e.g. http://127.0.0.1:8081/term), PANECAST_TOKEN.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CHROMIUM, CHROMIUM_ARGS, screenshot, waitFor } from '../lib/harness.mjs';

const BASE = process.env.HOST_BASE;
const TOKEN = process.env.PANECAST_TOKEN;
if (!BASE || !TOKEN) throw new Error('run by tests/proxy.sh: HOST_BASE and PANECAST_TOKEN are required');

let browser;
before(async () => {
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
});
after(async () => { await browser?.close(); });

test('a proxy that drops the port from Host: the page names the fix and stops retrying', { timeout: 60000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 900, height: 520 } });
  const page = await context.newPage();
  const sockets = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The token is traded for the cookie; the stream then rides the cookie,
  // which is what the Origin check guards.
  await page.goto(`${BASE}/?token=${TOKEN}`);
  assert.equal(new URL(page.url()).search, '', 'the token left the address bar');
  const created = await page.evaluate(async (token) => {
    const r = await fetch('api/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify({ command: ['cat'] }) });
    return { status: r.status, body: await r.json() };
  }, TOKEN);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await page.goto(`${BASE}/s/${created.body.id}`);
  await waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'closed'), { what: 'the page gave up', timeout: 15000 });
  const said = await page.evaluate(() => window.panecast.statusEl.textContent);
  assert.match(said, /Host lacks the page's port/, said);
  assert.match(said, /\$http_host/, said);
  await screenshot(page, 'proxy-host-without-port');
  // No retry: back-off would have tried again within 0.7 s, and twice by 2.5 s.
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(sockets.length, 1, `one attempt, then no retry: ${JSON.stringify(sockets)}`);
  assert.equal(await page.evaluate(() => window.panecast.status), 'closed');
  assert.deepEqual(errors, []);
  await context.close();
});
