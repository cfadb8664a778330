// End-to-end on emulated phones and tablets (Playwright device emulation,
// real touch events through CDP Input.dispatchTouchEvent): a tap focuses the
// terminal so typing reaches the session; a one-finger drag scrolls the
// scrollback (with momentum when fast), or sends wheel events to a program
// that turned mouse mode on; a long press selects a word, with handles to
// extend it and Copy; a pinch
// resizes the font (zooms on a view page); the extra-keys bar types.
import assert from 'node:assert/strict';
import { waitFor } from './lib/harness.mjs';
import { setup, e2e, env, session, open, finish, input, screenText } from './lib/e2e.mjs';

setup();

const DEVICES = {
  phone: { viewport: { width: 390, height: 700 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  tablet: { viewport: { width: 820, height: 1000 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One finger from (x, y0) to (x, y1) in steps, then lifted: after resting
 * `hold` ms (no momentum), or at once (a fling goes on).
 */
async function drag(page, x, y0, y1, steps = 10, hold = 150) {
  const cdp = await page.context().newCDPSession(page);
  const at = (y) => [{ x, y }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(y0) });
  for (let i = 1; i <= steps; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(y0 + ((y1 - y0) * i) / steps) });
  if (hold) await sleep(hold);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** Two fingers, `from` px apart, moving apart to `to` px, around (x, y). */
async function pinch(page, x, y, from, to, steps = 8) {
  const cdp = await page.context().newCDPSession(page);
  const at = (d) => [{ x: x - d / 2, y, id: 0 }, { x: x + d / 2, y, id: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(from) });
  for (let i = 1; i <= steps; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(from + ((to - from) * i) / steps) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** One finger held still for `ms`. */
async function longPress(page, x, y, ms = 800) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
  await sleep(ms);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

for (const [name, device] of Object.entries(DEVICES)) {
  e2e(`${name}: a tap focuses and typing reaches the session; a drag scrolls back`, async () => {
    const id = await session();
    const page = await open(id, { contextOptions: device });
    await input(id, 'seq 1 400\r');
    await waitFor(() => page.evaluate(() => window.panecast.text().split('\n').some((l) => l.trim() === '400')), { what: 'the output on the page' });
    await drag(page, 100, 200, 200, 1); // a tap: no movement
    assert.equal(await page.evaluate(() => document.querySelector('panecast-terminal').shadowRoot.activeElement?.tagName), 'TEXTAREA', 'the tap focused the input');
    await page.keyboard.type('echo tapped\n');
    await waitFor(async () => (await screenText(id)).includes('tapped'), { what: 'typed text in the session' });
    const h = await page.evaluate(() => window.panecast.painter.cellCss.height);
    await drag(page, 100, 150, 150 + 20 * h);
    const view = await waitFor(() => page.evaluate(() => { const t = window.panecast; const l = t.displayLine(0); return t.viewOffset > 0 && l && { offset: t.viewOffset, top: l.text.join('').trim() }; }), { what: 'the view scrolled back' });
    assert.ok(view.offset >= 15 && view.offset <= 25, `a 20-row drag scrolled ${view.offset} lines`);
    await drag(page, 100, 150 + 30 * h, 150);
    await waitFor(() => page.evaluate(() => window.panecast.viewOffset === 0), { what: 'back at the bottom' });
    await finish(page, `touch-${name}`);
  });
}

e2e('phone: with mouse mode on, a drag sends wheel events to the program', async () => {
  const id = await session();
  const page = await open(id, { contextOptions: DEVICES.phone });
  // Mouse reporting (1000) with SGR encoding (1006); the tty echoes what arrives.
  await input(id, "printf '\\033[?1000h\\033[?1006h'; cat\r");
  await waitFor(() => page.evaluate(() => window.panecast.screen.modes.mouse !== 'off'), { what: 'mouse mode on' });
  const h = await page.evaluate(() => window.panecast.painter.cellCss.height);
  await drag(page, 100, 150, 150 + 3 * h, 3); // finger down: wheel up (64)
  await waitFor(async () => (await screenText(id)).join('\n').includes('[<64;'), { what: 'a wheel-up report echoed' });
  await drag(page, 100, 150 + 3 * h, 150, 3); // finger up: wheel down (65)
  await waitFor(async () => (await screenText(id)).join('\n').includes('[<65;'), { what: 'a wheel-down report echoed' });
  assert.equal(await page.evaluate(() => window.panecast.viewOffset), 0, 'the view did not scroll');
  await finish(page, 'touch-mouse-mode');
});

e2e('phone: a fast drag goes on scrolling after the finger lifts (momentum)', async () => {
  const id = await session();
  const page = await open(id, { contextOptions: DEVICES.phone });
  await input(id, 'seq 1 2000\r');
  await waitFor(() => page.evaluate(() => window.panecast.text().split('\n').some((l) => l.trim() === '2000')), { what: 'the output on the page' });
  const h = await page.evaluate(() => window.panecast.painter.cellCss.height);
  await drag(page, 100, 150, 150 + 10 * h, 4, 0);
  const lifted = await page.evaluate(() => window.panecast.viewOffset);
  const later = await waitFor(async () => { const o = await page.evaluate(() => window.panecast.viewOffset); return o > lifted + 10 && o; }, { what: 'the view to keep scrolling', timeout: 3000 });
  // It slows down and stops.
  await sleep(2500);
  const a = await page.evaluate(() => window.panecast.viewOffset);
  await sleep(300);
  assert.equal(await page.evaluate(() => window.panecast.viewOffset), a, `stopped (lifted at ${lifted}, went on to ${later}, stopped at ${a})`);
  await finish(page, 'touch-momentum');
});

/** One finger from (x0, y0) to (x1, y1) in `steps`, resting before it lifts. */
async function slide(page, [x0, y0], [x1, y1], steps = 8) {
  const cdp = await page.context().newCDPSession(page);
  const at = (k) => [{ x: x0 + ((x1 - x0) * k) / steps, y: y0 + ((y1 - y0) * k) / steps }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
  for (let k = 1; k <= steps; k++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(k) });
  await sleep(100);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

const centre = (b) => [b.x + b.width / 2, b.y + b.height / 2];

e2e('phone: a long press selects a word, its handles extend the selection, Copy puts it on the clipboard', async () => {
  const id = await session();
  const page = await open(id, { contextOptions: { ...DEVICES.phone, permissions: ['clipboard-read', 'clipboard-write'] } });
  await input(id, 'clear; printf "\\n\\n\\n"; echo alpha bravo charlie delta echo\r');
  const row = await waitFor(async () => { const t = (await page.evaluate(() => window.panecast.text())).split('\n'); const r = t.indexOf('alpha bravo charlie delta echo'); return r >= 0 && r + 1; }, { what: 'the words on the page' });
  const { cell } = await page.evaluate(() => window.panecast.metrics());
  const box = await page.evaluate(() => { const b = window.panecast.canvas.getBoundingClientRect(); return { x: b.x, y: b.y }; });
  const term = page.locator('panecast-terminal');
  await longPress(page, box.x + 8.5 * cell.width, box.y + (row - 0.5) * cell.height);
  assert.equal(await page.evaluate(() => window.panecast.selectionText()), 'bravo');
  const [start, end] = [term.locator('.pc-h0'), term.locator('.pc-h1')];
  const copy = term.locator('.pc-copy');
  await waitFor(async () => await start.isVisible() && await end.isVisible() && await copy.isVisible(), { what: 'two handles and Copy' });
  // The handles hang below the word's first and last columns.
  const [s0, e0] = [await start.boundingBox(), await end.boundingBox()];
  const lineBottom = box.y + row * cell.height;
  assert.ok(Math.abs(s0.x + s0.width - (box.x + 6 * cell.width)) < 1.5 && Math.abs(s0.y - lineBottom) < 1.5, `the start handle at the start of bravo: ${JSON.stringify(s0)}`);
  assert.ok(Math.abs(e0.x - (box.x + 11 * cell.width)) < 1.5 && Math.abs(e0.y - lineBottom) < 1.5, `the end handle at its end: ${JSON.stringify(e0)}`);
  // The end handle, dragged two words on (to the end of delta, column 25), takes the selection with it.
  await slide(page, centre(e0), [box.x + 25.2 * cell.width + e0.width / 2, e0.y + e0.height / 2]);
  assert.equal(await page.evaluate(() => window.panecast.selectionText()), 'bravo charlie delta');
  const e1 = await end.boundingBox();
  assert.ok(Math.abs(e1.x - (box.x + 25 * cell.width)) < 1.5, 'the end handle followed to the end of delta');
  // The start handle, dragged back a word, to the start of alpha.
  await slide(page, centre(s0), [box.x + 0.2 * cell.width - s0.width / 2, s0.y + s0.height / 2]);
  assert.equal(await page.evaluate(() => window.panecast.selectionText()), 'alpha bravo charlie delta');
  // Copy stays near the selection: just above its line, over its first word.
  const c = await copy.boundingBox();
  assert.ok(c.y + c.height <= lineBottom - cell.height && c.y + c.height > lineBottom - cell.height - 20, `Copy just above the line: ${JSON.stringify(c)}`);
  assert.ok(c.x < box.x + 25 * cell.width && c.x + c.width > box.x, `Copy over the selection: ${JSON.stringify(c)}`);
  await copy.tap();
  await waitFor(async () => (await page.evaluate(() => navigator.clipboard.readText())) === 'alpha bravo charlie delta', { what: 'the selection on the clipboard' });
  assert.ok(!(await copy.isVisible()) && !(await start.isVisible()) && !(await end.isVisible()), 'Copy and the handles go away');
  assert.equal(await page.evaluate(() => window.panecast.selectionText()), '', 'and so does the selection');
  await finish(page, 'touch-long-press');
});

e2e('tablet: a pinch out makes the font bigger and the session narrower', async () => {
  const id = await session();
  const page = await open(id, { contextOptions: DEVICES.tablet });
  const cols = () => page.evaluate(() => Math.floor(window.panecast.el.getBoundingClientRect().width / window.panecast.painter.cellCss.width));
  // The terminal fits the session to the window: the page's columns, the
  // session's and what the window holds agree once a resize has settled.
  const settled = (what) => waitFor(async () => {
    const a = await page.evaluate(() => ({ font: window.panecast.painter.fontSize, cols: window.panecast.cols }));
    const api = (await env.server.api('GET', `/api/sessions/${id}`)).cols;
    return a.cols === api && a.cols === await cols() && a;
  }, { what });
  // Connected is not yet fitted: measure from the fitted size.
  const before = await settled('the session fitted to the tablet');
  await pinch(page, 400, 300, 100, 200);
  // Each step of the pinch may resize the session: wait for the last size.
  const after = await settled('the session at the new size');
  assert.equal(after.font, before.font * 2, 'twice the distance, twice the font size');
  assert.ok(after.cols < before.cols * 0.6, `the session was resized: ${before.cols} -> ${after.cols} columns`);
  await finish(page, 'touch-pinch');
});

e2e('phone: a view page zooms on a pinch instead of resizing the session', async () => {
  const id = await session();
  const page = await open(id, { role: 'view', contextOptions: DEVICES.phone });
  const cols = (await env.server.api('GET', `/api/sessions/${id}`)).cols;
  const r = await page.evaluate(() => { const b = window.panecast.canvas.getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; });
  await pinch(page, r.x, r.y, 80, 160);
  const t = await page.evaluate(() => window.panecast.screenEl.style.transform);
  assert.equal(t, 'scale(2)');
  assert.equal((await env.server.api('GET', `/api/sessions/${id}`)).cols, cols, 'the session keeps its size');
  await finish(page, 'touch-pinch-view');
});

e2e('phone: the extra-keys bar sends Esc, arrows, symbols, and Ctrl for the next key', async () => {
  const id = await session();
  const page = await open(id, { contextOptions: DEVICES.phone });
  const bar = page.locator('panecast-terminal').locator('.pc-keys button');
  assert.deepEqual(await bar.allTextContents(), ['Esc', 'Tab', 'Ctrl', 'Alt', '←', '↑', '↓', '→', '|', '~', '/', '-']);
  await input(id, 'cat -v\r');
  await sleep(300);
  await page.locator('panecast-terminal').tap();
  const tap = (label) => bar.filter({ hasText: new RegExp(`^\\${label}$`) }).tap();
  await tap('Ctrl');
  assert.equal(await bar.filter({ hasText: /^Ctrl$/ }).getAttribute('aria-pressed'), 'true');
  await page.keyboard.type('a');
  assert.equal(await bar.filter({ hasText: /^Ctrl$/ }).getAttribute('aria-pressed'), 'false', 'one shot');
  for (const k of ['|', '~', 'Esc', '↑']) await tap(k);
  await page.keyboard.press('Enter');
  await waitFor(async () => (await screenText(id)).includes('^A|~^[^[[A'), { what: 'cat -v showing ^A|~^[^[[A' });
  await finish(page, 'touch-keys-bar');
});

e2e('phone: the keys URL parameter picks the bar\'s keys, and none hides it', async () => {
  const id = await session();
  let page = await open(id, { contextOptions: DEVICES.phone, query: '&keys=esc,tab,%7C' });
  const bar = () => page.locator('panecast-terminal').locator('.pc-keys button').allTextContents();
  assert.deepEqual(await bar(), ['Esc', 'Tab', '|']);
  await finish(page, 'touch-keys-param');
  page = await open(id, { contextOptions: DEVICES.phone, query: '&keys=none' });
  assert.deepEqual(await bar(), []);
  await finish(page, 'touch-keys-none');
  page = await open(id, { contextOptions: { viewport: { width: 900, height: 520 } } });
  assert.deepEqual(await bar(), [], 'no bar without a touch screen');
  await finish(page, 'touch-keys-desktop');
});

// A soft keyboard cannot be emulated in Chromium; what does shrink the visual viewport there (and fire
// its resize event) while the layout viewport keeps its height is the page scale (CDP
// Emulation.setPageScaleFactor). The arithmetic for a keyboard's numbers: unit/client.test.mjs.
e2e('phone: the terminal follows visualViewport, so the cursor row stays in the visible part', async () => {
  const id = await session();
  const page = await open(id, { contextOptions: DEVICES.phone });
  await input(id, 'seq 1 200\r');
  await waitFor(() => page.evaluate(() => window.panecast.text().split('\n').some((l) => l.trim() === '200')), { what: 'the output on the page' });
  const rows = (await env.server.api('GET', `/api/sessions/${id}`)).rows;
  // The cursor row's top and bottom, and the visible part of the page, in CSS px of the layout viewport.
  const where = () => page.evaluate(() => {
    const t = window.panecast, r = t.canvas.getBoundingClientRect(), h = r.height / t.rows, v = visualViewport;
    return { top: r.top + t.screen.cursor.row * h, bottom: r.top + (t.screen.cursor.row + 1) * h, from: v.offsetTop, to: v.offsetTop + v.height, inner: innerHeight };
  });
  // The server's screen has the output before the page has painted it: wait for the page's cursor.
  await waitFor(async () => { const w = await where(); return w.bottom > w.inner / 2 && w; }, { what: 'the cursor row in the lower half of the page' });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setPageScaleFactor', { pageScaleFactor: 2 });
  const now = await waitFor(async () => {
    const w = await where();
    const api = (await env.server.api('GET', `/api/sessions/${id}`)).rows;
    return w.to < w.inner && w.top >= w.from && w.bottom <= w.to + 0.5 && api < rows && api === await page.evaluate(() => window.panecast.rows) && { w, api };
  }, { what: 'the cursor row inside the visible part' });
  assert.ok(now.api <= rows / 2 + 1, `the session shrank to the visible half: ${rows} -> ${now.api} rows`);
  await cdp.send('Emulation.setPageScaleFactor', { pageScaleFactor: 1 });
  await waitFor(async () => (await env.server.api('GET', `/api/sessions/${id}`)).rows === rows, { what: 'the full height back' });
  await cdp.detach();
  await finish(page, 'touch-visual-viewport');
});
