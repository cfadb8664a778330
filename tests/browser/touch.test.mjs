// End-to-end on emulated phones and tablets (Playwright device emulation,
// real touch events through CDP Input.dispatchTouchEvent): a tap focuses the
// terminal so typing reaches the session; a one-finger drag scrolls the
// scrollback, or sends wheel events to a program that turned mouse mode on.
import assert from 'node:assert/strict';
import { waitFor } from './lib/harness.mjs';
import { setup, e2e, session, open, finish, input, screenText } from './lib/e2e.mjs';

setup();

const DEVICES = {
  phone: { viewport: { width: 390, height: 700 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  tablet: { viewport: { width: 820, height: 1000 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
};

/** One finger from (x, y0) to (x, y1) in steps, then lifted. */
async function drag(page, x, y0, y1, steps = 10) {
  const cdp = await page.context().newCDPSession(page);
  const at = (y) => [{ x, y }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(y0) });
  for (let i = 1; i <= steps; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(y0 + ((y1 - y0) * i) / steps) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

for (const [name, device] of Object.entries(DEVICES)) {
  e2e(`${name}: a tap focuses and typing reaches the session; a drag scrolls back`, async () => {
    const id = await session();
    const page = await open(id, { contextOptions: device });
    await input(id, 'seq 1 400\r');
    await waitFor(async () => (await screenText(id)).some((l) => l === '400'), { what: 'the output' });
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
