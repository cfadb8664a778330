// The painter draws box drawing, block elements and Powerline symbols itself,
// on whole device pixels: adjacent cells of ─ │ ┼ █ join without a gap row or
// column, and double lines (╔═╦═╗ ...) meet at corners, tees and crosses
// exactly as drawn with a pen, at several font sizes and pixel ratios. Wide characters stay in
// their two cells. Pixels are read back from the canvas.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, waitFor, WEB } from '../lib/harness.mjs';
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

// Rows 1-4: lines crossing in ┼, a 2x4 block of █; row 5: a wide glyph alone
// in columns 1-2; row 6: Powerline triangles; rows 8-12: a grid of double lines.
const ART = '\n─┼─┼─██\n │ │ ██\n─┼─┼─██\n │ │ ██\n 你 \n\ue0b0\ue0b2\n\n╔═╦═╗\n║ ║ ║\n╠═╬═╣\n║ ║ ║\n╚═╩═╝\n';

/**
 * The ideal ink of the double-line grid at rows 8-12, columns 0-4 (lines through columns and rows 0, 2 and
 * 4 of it), in device pixels relative to its top left: each line is a band 3 strokes wide (stroke, gap,
 * stroke) from the centre of its first cell to that of its last, less its gap, so the strokes meet at
 * corners, tees and crosses with no gap and nothing inside the junction.
 */
function idealGrid({ cw, ch, line: l }) {
  const x = (col) => Math.round(col * cw);
  const cx = (col) => x(col) + ((x(col + 1) - x(col)) >> 1) - (l >> 1); // a centre stroke's first pixel
  const cy = (row) => row * ch + (ch >> 1) - (l >> 1);
  const W = x(5), H = 5 * ch, ink = [];
  // A line from centre a to centre b (along), at centre c (across), is inked at d when d is in its band but not in its gap.
  const band = (along, across, a, b, c, gap) => gap
    ? along >= a && along < b + l && across >= c && across < c + l
    : along >= a - l && along < b + 2 * l && across >= c - l && across < c + 2 * l;
  for (let y = 0; y < H; y++) {
    const row = [];
    for (let px = 0; px < W; px++) {
      const lines = [0, 2, 4].flatMap((i) => [[px, y, cx(0), cx(4), cy(i)], [y, px, cy(0), cy(4), cx(i)]]);
      row.push(lines.some((g) => band(...g, false)) && !lines.some((g) => band(...g, true)));
    }
    ink.push(row);
  }
  return ink;
}

/** Which pixels of a rectangle (device pixels) have the foreground colour, as rows of booleans. */
function inkMap(page, x0, y0, x1, y1) {
  return page.evaluate(({ x0, y0, x1, y1 }) => {
    const t = window.panecast, p = t.painter;
    const fg = document.createElement('canvas').getContext('2d');
    fg.fillStyle = p.defFg;
    fg.fillRect(0, 0, 1, 1);
    const [r, g, b] = fg.getImageData(0, 0, 1, 1).data;
    const d = t.canvas.getContext('2d').getImageData(x0, y0, x1 - x0, y1 - y0).data;
    const rows = [];
    for (let y = 0; y < y1 - y0; y++) {
      const row = [];
      for (let x = 0; x < x1 - x0; x++) {
        const i = (y * (x1 - x0) + x) * 4;
        row.push(Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) < 24);
      }
      rows.push(row);
    }
    return rows;
  }, { x0, y0, x1, y1 });
}

for (const fontSize of [13, 17]) {
  for (const dpr of [1, 2]) {
    test(`─ │ ┼ █ and double lines join without gaps at ${fontSize}px, devicePixelRatio ${dpr}`, async () => {
      const s = mock.create();
      const ctx = await browser.newContext({ viewport: { width: 640, height: 400 }, deviceScaleFactor: dpr, colorScheme: 'dark' });
      const page = await ctx.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${mock.base}/s/${s.id}?token=${TOKEN}&theme=dark&fontSize=${fontSize}`);
      await waitFor(() => page.evaluate(() => window.panecast?.status === 'connected'), { what: 'connected' });
      s.write(ART);
      s.publish();
      await waitFor(() => page.evaluate(() => window.panecast.text().includes('─┼─┼─██')), { what: 'the art in the model' });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const m = await page.evaluate(() => ({ cw: window.panecast.painter.cw, ch: window.panecast.painter.ch, line: window.panecast.painter.line, dpr: devicePixelRatio }));
      assert.equal(m.dpr, dpr);
      const x = (col) => Math.round(col * m.cw), y = (row) => row * m.ch;

      // A horizontal line: some pixel row is inked across all of columns 0-4, on rows 1 and 3.
      for (const row of [1, 3]) {
        const map = await inkMap(page, x(0), y(row), x(5), y(row + 1));
        assert.ok(map.some((r) => r.every(Boolean)), `row ${row}: an unbroken horizontal line`);
      }
      // A vertical line: some pixel column is inked down all of rows 1-4, in columns 1 and 3.
      for (const col of [1, 3]) {
        const map = await inkMap(page, x(col), y(1), x(col + 1), y(5));
        const unbroken = map[0].some((_, i) => map.every((r) => r[i]));
        assert.ok(unbroken, `column ${col}: an unbroken vertical line`);
      }
      // Full blocks: every pixel of the 2x4 cells.
      const blocks = await inkMap(page, x(5), y(1), x(7), y(5));
      const holes = blocks.flat().filter((v) => !v).length;
      assert.equal(holes, 0, 'the full blocks leave no pixel uninked');
      // Powerline: the right-pointing triangle inks its cell's left edge, top to bottom, not its right edge's ends.
      const pl = await inkMap(page, x(0), y(6), x(2), y(7));
      assert.ok(pl.slice(1, -1).every((r) => r[0]), 'U+E0B0 fills its left edge');
      assert.ok(pl.slice(1, -1).every((r) => r[r.length - 1]), 'U+E0B2 fills its right edge');
      assert.ok(!pl[0][x(1) - x(0) - 1], 'U+E0B0 leaves its top right corner');
      // Double lines: the strokes of ╔╦╗╠╬╣╚╩╝ and ═ ║ join without gaps and without stubs, pixel for pixel.
      const grid = await inkMap(page, x(0), y(8), x(5), y(13));
      const ideal = idealGrid(m);
      const wrong = grid.flatMap((r, py) => r.map((v, px) => (v !== ideal[py][px] ? `${px},${py}${v ? '+' : '-'}` : '')).filter(Boolean));
      assert.deepEqual(wrong.slice(0, 12), [], `the double-line grid differs from the ideal in ${wrong.length} pixels (x,y: + inked, - missing)`);
      // A wide glyph: ink in both of its cells, none in the cells around it.
      const wide = await inkMap(page, x(0), y(5), x(4), y(6));
      const cols = (a, b) => wide.flat().length && wide.some((r) => r.slice(a - x(0), b - x(0)).some(Boolean));
      assert.ok(cols(x(1), x(2)) && cols(x(2), x(3)), 'the wide glyph inks both its cells');
      assert.ok(!cols(x(0), x(1)) && !cols(x(3), x(4)), 'and nothing outside them');
      await screenshot(page, `glyphs-${fontSize}px-dpr${dpr}`);
      assert.deepEqual(errors, []);
      await ctx.close();
    });
  }
}
