import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, readCanvas, screenshot, waitFor, WEB } from '../lib/harness.mjs';
import { startMock, TOKEN } from '../lib/mock-server.mjs';

let mock, browser;
before(async () => {
  mock = await startMock({ webDir: WEB });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await mock?.close();
});

test('smoke', async () => {
  const s = mock.create();
  const page = await browser.newPage({ viewport: { width: 800, height: 500 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${mock.base}/s/${s.id}?token=${TOKEN}`);
  await waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'connected'), { what: 'connected' });
  await page.keyboard.type('echo hello');
  await page.keyboard.press('Enter');
  await waitFor(() => s.lines.some((l) => l.cells.map((c) => c.text).join('') === 'hello'), { what: 'hello on the server' });
  const rows = await waitFor(async () => { const r = await readCanvas(page); return r.includes('hello') && r; }, { what: 'hello on canvas' });
  console.log(rows.slice(0, 4), await page.evaluate(() => window.panecast.metrics()));
  await screenshot(page, 'smoke');
  assert.deepEqual(errors, []);
});
