// OSC 52 in the client: the server's Clipboard message is put on the
// clipboard when the browser allows it (the permission, or focus and a
// gesture), otherwise on the next click or key; a note says what happened.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, waitFor, WEB } from '../lib/harness.mjs';
import { startMock, TOKEN } from '../lib/mock-server.mjs';
import * as wire from '../lib/wire.mjs';

let mock, browser;
before(async () => {
  mock = await startMock({ webDir: WEB });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await mock?.close();
});

async function open(s, permissions) {
  const ctx = await browser.newContext({ viewport: { width: 640, height: 400 }, permissions });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${mock.base}/s/${s.id}?token=${TOKEN}`);
  await waitFor(() => page.evaluate(() => window.panecast?.status === 'connected'), { what: 'connected' });
  return page;
}

const note = (page) => page.locator('.pc-note').textContent();
const clipboard = (page) => page.evaluate(() => navigator.clipboard.readText());

test('with the clipboard permission, the text is written at once and the note says so', async () => {
  const s = mock.create();
  const page = await open(s, ['clipboard-read', 'clipboard-write']);
  s.broadcast(wire.clipboard({ text: 'from the program\nÉté' }));
  await waitFor(async () => (await note(page)).includes('copied text to the clipboard'), { what: 'the note' });
  assert.equal(await clipboard(page), 'from the program\nÉté');
  await screenshot(page, 'mock-osc52-now');
  await waitFor(async () => (await note(page)) === '', { what: 'the note to go', timeout: 6000 });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('while the page has no focus the write waits for a click, and the note asks for one', async () => {
  const s = mock.create();
  const page = await open(s, ['clipboard-read', 'clipboard-write']);
  // Real focus, not Playwright's emulation: another tab in front takes it.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
  const other = await page.context().newPage();
  await other.bringToFront();
  assert.equal(await page.evaluate(() => document.hasFocus()), false, 'the page lost focus');
  s.broadcast(wire.clipboard({ text: 'later' }));
  await waitFor(async () => (await note(page)).includes('click or press a key'), { what: 'the note asking for a click' });
  await screenshot(page, 'mock-osc52-waiting');
  await page.bringToFront();
  await page.locator('panecast-terminal').click();
  await waitFor(async () => (await note(page)).includes('copied text to the clipboard'), { what: 'the note after the click' });
  assert.equal(await clipboard(page), 'later');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
