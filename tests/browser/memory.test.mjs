// End-to-end: the page's memory stays bounded however much output it sees.
// 300,000 lines go through a viewer, which then scrolls back through
// thousands of them (each fetched from the server); after a forced garbage
// collection the page's JavaScript heap must be under 8 MiB.
import assert from 'node:assert/strict';
import { waitFor } from './lib/harness.mjs';
import { setup, e2e, session, open, finish, input, screenText } from './lib/e2e.mjs';

setup();

const LINES = 300000;
const HEAP_BUDGET = 8 * 1024 * 1024;

e2e('a 300,000-line flood and a long scroll back leave the page heap under 8 MiB', async () => {
  const id = await session({ scrollback: 100000 });
  const page = await open(id);
  await input(id, `seq ${LINES}\r`);
  await waitFor(async () => (await screenText(id)).some((l) => l === String(LINES)), { what: 'the flood finished', timeout: 60000 });
  await waitFor(() => page.evaluate((n) => window.panecast.text().includes(String(n)), LINES), { what: 'the page caught up' });
  // Scroll back 40 pages at a time, waiting each time for the rows to arrive.
  const cache = await page.evaluate(async () => {
    const t = window.panecast;
    let most = 0;
    for (let i = 0; i < 60; i++) {
      t.scrollView(t.rows * 40);
      const end = Date.now() + 5000;
      while (Date.now() < end && !(t.displayLine(0) && t.displayLine(t.rows - 1))) await new Promise((r) => setTimeout(r, 10));
      if (!t.displayLine(0)) throw new Error(`scroll step ${i}: rows not fetched (offset ${t.viewOffset}, cached ${t.screen.scrollback.size})`);
      most = Math.max(most, t.screen.scrollback.size);
    }
    return { most, offset: t.viewOffset };
  });
  assert.ok(cache.offset > 20000, `scrolled back ${cache.offset} lines`);
  assert.ok(cache.most <= 2000, `the cache held at most ${cache.most} lines`);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const heap = metrics.find((m) => m.name === 'JSHeapUsedSize').value;
  console.log(`# page heap after GC: ${(heap / 1048576).toFixed(2)} MiB, ${cache.most} cached lines at most`);
  assert.ok(heap < HEAP_BUDGET, `page heap ${(heap / 1048576).toFixed(2)} MiB is under 8 MiB`);
  await finish(page, 'memory-flood');
});
