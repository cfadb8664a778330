// End-to-end: the search bar. Ctrl-Shift-F opens it; the server's matches
// are counted, highlighted on the overlay, and visited one by one, the view
// scrolling back (fetching the scrollback) to each; Escape closes it.
import assert from 'node:assert/strict';
import { readCanvas, waitFor } from './lib/harness.mjs';
import { setup, e2e, session, open, finish, input, screenText } from './lib/e2e.mjs';

setup();

const shadow = (page, fn) => page.evaluate((f) => (0, eval)(f)(document.querySelector('panecast-terminal').shadowRoot, window.panecast), fn.toString());
const count = (page) => shadow(page, (r) => r.querySelector('.pc-find output').value);

/** The overlay's pixel alpha at the middle of cell (row, col). */
const overlayAlpha = (page, row, col) => page.evaluate(([row, col]) => {
  const p = window.panecast.painter;
  return window.panecast.overlayCanvas.getContext('2d').getImageData(Math.round((col + 0.5) * p.cw), Math.round((row + 0.5) * p.ch), 1, 1).data[3];
}, [row, col]);

e2e('Ctrl-Shift-F finds text in the scrollback, scrolls to each match and highlights it', async () => {
  const id = await session();
  const page = await open(id, { contextOptions: { viewport: { width: 700, height: 400 }, colorScheme: 'dark' } });
  await input(id, 'seq 1 3000 | sed s/^/row/; echo needle-top\r');
  await waitFor(async () => (await screenText(id)).some((l) => l === 'needle-top'), { what: 'the output' });
  await page.locator('panecast-terminal').click();
  await page.keyboard.press('Control+Shift+F');
  assert.equal(await shadow(page, (r) => !r.querySelector('.pc-find').hidden && r.activeElement.type), 'search', 'the bar is open and focused');
  await page.keyboard.type('row15');
  // row15 and row150 .. row159 and row1500 .. row1599: 111 matches.
  await waitFor(async () => (await count(page)) === '111/111', { what: 'the match count' });
  // The newest match, row1599, is current: the view scrolled back to it.
  const shown = async (text) => {
    const row = await page.evaluate((text) => { const t = window.panecast; for (let y = 0; y < t.rows; y++) { const l = t.displayLine(y); if (l && l.text.join('').startsWith(text)) return y; } return -1; }, text);
    if (row < 0) return false;
    const [painted] = await readCanvas(page, { rows: [row] });
    return painted === text && row;
  };
  let row = await waitFor(() => shown('row1599'), { what: 'row1599 shown' });
  assert.ok(await page.evaluate(() => window.panecast.viewOffset > 0), 'scrolled back');
  assert.ok(await overlayAlpha(page, row, 2) > 100, 'the current match is highlighted');
  assert.equal(await overlayAlpha(page, row, 8), 0, 'after the match nothing is');
  // Enter goes to the previous (older) match, Shift-Enter back.
  await page.keyboard.press('Enter');
  assert.equal(await count(page), '110/111');
  row = await waitFor(() => shown('row1598'), { what: 'row1598 shown' });
  assert.ok(await overlayAlpha(page, row, 2) > 100);
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.press('Shift+Enter');
  assert.equal(await count(page), '1/111', 'wraps around to the oldest');
  await waitFor(() => shown('row15'), { what: 'row15 shown (fetched from the scrollback)' });
  // Upper case makes it case-sensitive; the regex box makes it a regex.
  await page.fill('panecast-terminal >> .pc-find input[type=search]', 'ROW-15');
  await waitFor(async () => (await count(page)) === 'No matches', { what: 'no case-sensitive match' });
  await page.check('panecast-terminal >> .pc-find input[type=checkbox]');
  await page.fill('panecast-terminal >> .pc-find input[type=search]', 'row2{3}$');
  await waitFor(async () => (await count(page)) === '1/1', { what: 'one regex match' });
  await waitFor(() => shown('row222'), { what: 'row222 shown' });
  await page.keyboard.press('Escape');
  assert.equal(await shadow(page, (r) => r.querySelector('.pc-find').hidden && r.activeElement.tagName), 'TEXTAREA', 'closed, the terminal has the focus');
  await waitFor(async () => (await overlayAlpha(page, row, 2)) === 0, { what: 'highlights gone' });
  await finish(page, 'search');
});
