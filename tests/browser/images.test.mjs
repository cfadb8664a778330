// End-to-end: inline images in the browser. `chafa -f sixels` draws a
// generated picture of four coloured blocks in a shell session; the canvas
// pixels at each block's centre (located through the image pieces the rows
// carry, so any scaling is allowed for) must have that block's colour. Then
// the picture scrolls off the screen (its cells no longer show it) and
// comes back in the client's scrollback view, painted again.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, crc32 } from 'node:zlib';
import { waitFor } from './lib/harness.mjs';
import { setup, e2e, session, open, finish, input, screenText } from './lib/e2e.mjs';

setup();

const W = 160, H = 96;
/** The blocks: top left, top right, bottom left, bottom right. */
const BLOCKS = [[230, 20, 20], [20, 200, 20], [20, 40, 230], [240, 220, 20]];
/** Largest difference allowed per channel (sixel palettes quantise). */
const TOLERANCE = 60;

/** A W x H RGB PNG of the four blocks, written where a session can read it. */
function picture() {
  const rows = [];
  for (let y = 0; y < H; y++) {
    const row = [0];
    for (let x = 0; x < W; x++) row.push(...BLOCKS[(y < H / 2 ? 0 : 2) + (x < W / 2 ? 0 : 1)]);
    rows.push(...row);
  }
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const len = Buffer.alloc(4), crc = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(W, 0);
  ihdr.writeUInt32BE(H, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from(rows))), chunk('IEND', Buffer.alloc(0))]);
  const path = join(tmpdir(), `panecast-blocks-${process.pid}.png`);
  writeFileSync(path, png, { mode: 0o644 });
  return path;
}

/**
 * The canvas colour at each block's centre (in the picture chafa drew,
 * whatever size it chose), found through the pieces of the rows shown (the
 * source point's row, and its position within the piece's cells); null
 * while no row shows the picture or its bitmap is not ready.
 */
const blockColours = (page) => page.evaluate(() => {
  const t = window.panecast, p = t.painter, ctx = t.canvas.getContext('2d');
  const [b] = t.screen.images.values();
  if (!b) return null;
  const [W, H] = [b.width, b.height];
  const centres = [[W / 4, H / 4], [3 * W / 4, H / 4], [W / 4, 3 * H / 4], [3 * W / 4, 3 * H / 4]];
  const out = [];
  for (const [sx, sy] of centres) {
    let found = null;
    for (let y = 0; y < t.rows && !found; y++) {
      for (const piece of t.displayLine(y)?.images || []) {
        const [x0, y0, w, h] = piece.src;
        if (!t.screen.images.has(piece.hash) || sy < y0 || sy >= y0 + h || sx < x0 || sx >= x0 + w) continue;
        const cx = p.x(piece.col) + (sx - x0) / w * (p.x(piece.col + piece.w) - p.x(piece.col));
        found = [...ctx.getImageData(Math.round(cx), Math.round(y * p.ch + (sy - y0) / h * p.ch), 1, 1).data.slice(0, 3)];
      }
    }
    if (!found) return null;
    out.push(found);
  }
  return out;
});

const near = (a, b) => a.every((v, i) => Math.abs(v - b[i]) <= TOLERANCE);

/** Waits until the four block centres show their colours (the bitmap decodes, then a repaint comes). */
async function painted(page, what) {
  await waitFor(async () => {
    const colours = await blockColours(page);
    if (!colours) return false;
    const wrong = colours.findIndex((c, i) => !near(c, BLOCKS[i]));
    if (wrong < 0) return true;
    throw new Error(`block ${wrong} is ${colours[wrong]}, not ${BLOCKS[wrong]}`);
  }, { what });
}

e2e('a chafa sixel picture is painted at its cells, scrolls away and comes back from the scrollback', async () => {
  const file = picture();
  const id = await session();
  const page = await open(id, { contextOptions: { viewport: { width: 900, height: 520 }, colorScheme: 'dark' } });
  await input(id, `chafa -f sixels --size 20x6 ${file}; echo; echo pic-done\r`);
  await waitFor(async () => (await screenText(id)).some((l) => l.startsWith('pic-done')), { what: 'chafa drew the picture' });
  await painted(page, 'the picture on the screen');
  const before = await page.evaluate(() => window.panecast.screen.images.size);
  assert.equal(before, 1, 'one picture received');

  await input(id, 'seq 1 80; echo seq-done\r');
  await waitFor(async () => (await screenText(id)).some((l) => l.startsWith('seq-done')), { what: 'the lines that scroll it off' });
  await waitFor(() => page.evaluate(() => {
    const t = window.panecast;
    return t.displayLine(t.rows - 2)?.text.join('').startsWith('seq-done') && [...Array(t.rows).keys()].every((y) => !t.displayLine(y)?.images);
  }), { what: 'the picture off the screen' });
  assert.equal(await blockColours(page), null, 'no row shows it');
  const gone = await page.evaluate(() => {
    // Nothing of the blocks' colours anywhere on the canvas's left half.
    const t = window.panecast, c = t.canvas, d = c.getContext('2d').getImageData(0, 0, c.width >> 1, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] < 60 && d[i + 2] < 60) n++;
    return n;
  });
  assert.equal(gone, 0, 'no red pixels left');

  // Back through the scrollback view (the rows are fetched, the picture
  // is painted from the connection's cache).
  await page.evaluate(() => window.panecast.scrollView(90));
  await painted(page, 'the picture in the scrollback view');
  await finish(page, 'images');
});
