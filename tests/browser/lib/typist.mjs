// A person typing into a page, with a stopwatch on the canvas: each key's
// time from keydown to its glyph's ink in its cell of the terminal's canvas
// (read back with getImageData, not from the DOM or the model), and a
// watch that fails if any ink appears where nothing may be painted (a
// password's cells).

/** Installs the page-side probe (once per page). */
export async function installProbe(page) {
  await page.evaluate(() => {
    if (window.__probe) return;
    const t = window.panecast, p = t.painter;
    const ctx = t.canvas.getContext('2d');
    const one = document.createElement('canvas').getContext('2d');
    const lum = (r, g, b) => r * 0.299 + g * 0.587 + b * 0.114;
    const bgLum = () => {
      one.fillStyle = p.defBg;
      one.fillRect(0, 0, 1, 1);
      const d = one.getImageData(0, 0, 1, 1).data;
      return lum(d[0], d[1], d[2]);
    };
    /** Whether cells [from, to) of `row` hold any ink. */
    const inked = (row, from, to) => {
      const x0 = Math.round(p.x(from)), x1 = Math.round(p.x(to));
      if (x1 <= x0) return false;
      const d = ctx.getImageData(x0, row * p.ch, x1 - x0, p.ch).data, bl = bgLum();
      for (let i = 0; i < d.length; i += 4) if (Math.abs(lum(d[i], d[i + 1], d[i + 2]) - bl) > 60) return true;
      return false;
    };
    const pending = []; // {row, col, start, done}
    const results = [];
    const watches = [];
    addEventListener('keydown', (e) => {
      const w = pending.find((x) => x.start === null);
      if (w) w.start = e.timeStamp;
    }, true);
    // Read after the frame's animation callbacks (the terminal paints in
    // one): a task posted from the probe's own callback runs after them.
    const channel = new MessageChannel();
    channel.port1.onmessage = () => check();
    const tick = () => {
      channel.port2.postMessage(0);
      requestAnimationFrame(tick);
    };
    const check = () => {
      const now = performance.now();
      for (let i = pending.length - 1; i >= 0; i--) {
        const w = pending[i];
        if (w.start === null) continue;
        if (inked(w.row, w.col, w.col + 1)) {
          results.push({ key: w.key, index: w.index, ms: now - w.start });
          pending.splice(i, 1);
        } else if (now - w.start > 5000) {
          results.push({ key: w.key, index: w.index, ms: Infinity });
          pending.splice(i, 1);
        }
      }
      for (const w of watches) if (!w.broken && inked(w.row, w.from, w.to)) w.broken = now;
    };
    requestAnimationFrame(tick);
    window.__probe = {
      inked,
      /** The next keydown starts a stopwatch that stops when (row, col) gets ink. */
      arm(row, col, key, index) { pending.push({ row, col, key, index, start: null }); },
      results,
      pending,
      /** Fails (records when) if cells [from, to) of `row` ever get ink. */
      watch(row, from, to) { const w = { row, from, to, broken: 0 }; watches.push(w); return watches.length - 1; },
      watches,
    };
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The terminal's cursor on the server's screen, as the page holds it. */
export const cursor = (page) => page.evaluate(() => ({ ...window.panecast.screen.cursor }));

/** Waits until the page's screen shows `text` on the cursor's row (a prompt), for up to `timeout` ms. */
export async function waitForPrompt(page, text, timeout = 15000) {
  const end = Date.now() + timeout;
  for (;;) {
    const ok = await page.evaluate((text) => {
      const s = window.panecast.screen;
      const line = s.lines[s.cursor.row];
      return line && line.text.join('').slice(0, s.cursor.col).endsWith(text);
    }, text);
    if (ok) return;
    if (Date.now() > end) throw new Error(`no "${text}" before the cursor in ${timeout} ms`);
    await sleep(20);
  }
}

/**
 * Types `line` (printable characters, then Enter unless `enter` is false)
 * at `interval` ms a key, timing each glyph that has ink (not spaces).
 * Returns [{key, index, ms}], index 0 being the line's first key.
 */
export async function typeLine(page, line, { interval = 120, enter = true } = {}) {
  const start = await cursor(page);
  const chars = [...line];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch !== ' ') await page.evaluate(({ row, col, ch, i }) => window.__probe.arm(row, col, ch, i), { row: start.row, col: start.col + i, ch, i });
    await page.keyboard.type(ch);
    await sleep(interval);
  }
  const n = chars.filter((c) => c !== ' ').length;
  const end = Date.now() + 6000;
  let results;
  for (;;) {
    results = await page.evaluate(() => window.__probe.pending.length === 0 && window.__probe.results.splice(0));
    if (results) break;
    if (Date.now() > end) throw new Error(`glyphs of "${line}" never all appeared`);
    await sleep(20);
  }
  if (results.length !== n) throw new Error(`${results.length} glyphs timed for ${n} keys of "${line}"`);
  if (enter) await page.keyboard.press('Enter');
  return results;
}

/** The p-th percentile of numbers. */
export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.round((s.length - 1) * p))] : NaN;
}

/** The predictor's counters, as the page holds them. */
export const predictionStats = (page) => page.evaluate(() => {
  const s = window.panecast.typing.predictor.stats;
  return { predicted: s.predicted, wrong: s.wrong, confirmed: s.confirmed, wrongShown: s.wrongShown, erasedAfter: [...s.erasedAfter] };
});
