// Shared helpers for the browser tests: chromium through playwright-core,
// screenshots kept as artifacts, polling, and reading text back off the
// canvas by comparing each cell's pixels with reference glyphs.
import { mkdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const WEB = join(ROOT, 'web');
export const ARTIFACTS = join(ROOT, 'tests', 'artifacts', 'browser');
export const CHROMIUM = process.env.PANECAST_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launch() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run tests/web.sh, which installs it`);
  const { chromium } = await import('playwright-core');
  // launch() gives every browser a fresh temporary user-data-dir.
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, name.replace(/[^\w.-]+/g, '_') + '.png');
  await page.screenshot({ path: file });
  return file;
}

export async function waitFor(fn, { timeout = 10000, interval = 50, what = 'condition' } = {}) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/**
 * Reads rows of the terminal's canvas back as text: each cell's pixels are
 * matched against glyphs drawn alone with the same font (printable ASCII), so
 * this checks what was painted where, not the DOM or the model. A cell with no
 * ink reads as ' ', a cell matching no glyph well as '?', a wide cell's spacer
 * as nothing. Wide cells (from the model's widths) read as '#' when inked.
 */
export async function readCanvas(page, { rows = null, get = 'window.panecast' } = {}) {
  return page.evaluate(({ rows, get }) => {
    const term = (0, eval)(get);
    const p = term.painter;
    const { cw, ch, baseline } = p;
    const canvas = term.canvas;
    const ctx = canvas.getContext('2d');
    const bg = p.defBg;
    const ref = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    const W = Math.ceil(cw) + 2;
    ref.canvas.width = W;
    ref.canvas.height = ch;
    const cache = new Map();
    const ink = (data, w, x0, x1) => {
      // Luminance distance from the background, per pixel, for columns [x0, x1).
      const out = new Float32Array((x1 - x0) * ch);
      const bl = lum(bg);
      let k = 0;
      for (let y = 0; y < ch; y++) for (let x = x0; x < x1; x++) {
        const i = (y * w + x) * 4;
        out[k++] = Math.abs((data[i] * 0.299 + data[i + 1] * 0.587 + data[i + 2] * 0.114) - bl);
      }
      return out;
    };
    function lum(css) {
      ref.fillStyle = css;
      ref.fillRect(0, 0, 1, 1);
      const d = ref.getImageData(0, 0, 1, 1).data;
      return d[0] * 0.299 + d[1] * 0.587 + d[2] * 0.114;
    }
    const norm = (a) => {
      let m = 0;
      for (const v of a) m = Math.max(m, v);
      if (m < 40) return null;
      return a.map((v) => v / m);
    };
    const glyphs = (frac, x0, x1) => {
      const key = frac.toFixed(2) + ':' + (x1 - x0);
      if (cache.has(key)) return cache.get(key);
      const list = [];
      for (let c = 33; c < 127; c++) {
        const t = String.fromCharCode(c);
        ref.fillStyle = bg;
        ref.fillRect(0, 0, W, ch);
        ref.font = p.fonts[0];
        ref.fillStyle = p.defFg;
        ref.fillText(t, frac, baseline);
        const d = ref.getImageData(0, 0, W, ch).data;
        const v = norm(ink(d, W, 0, x1 - x0));
        if (v) list.push([t, v]);
      }
      cache.set(key, list);
      return list;
    };
    const out = [];
    const which = rows || [...Array(term.rows).keys()];
    for (const r of which) {
      const img = ctx.getImageData(0, r * ch, canvas.width, ch);
      const line = term.displayLine(r);
      let s = '';
      for (let col = 0; col < term.cols; col++) {
        const w = line ? line.width[col] : 1;
        if (w === 0) continue;
        const x0 = Math.round(col * cw), x1 = Math.round((col + w) * cw);
        const raw = ink(img.data, canvas.width, x0, x1);
        // Anti-aliasing from the neighbours leaves faint pixels: a glyph has a few strong ones.
        if (raw.filter((v) => v > 80).length < 4) { s += ' '; continue; }
        const cell = norm(raw);
        if (w === 2) { s += '#'; continue; }
        let best = '?', bestD = Infinity;
        for (const [t, v] of glyphs(col * cw - x0, x0, x1)) {
          let d = 0;
          for (let i = 0; i < v.length; i++) d += (v[i] - cell[i]) ** 2;
          if (d < bestD) { bestD = d; best = t; }
        }
        s += bestD / cell.length < 0.05 ? best : '?';
      }
      out.push(s.replace(/ +$/, ''));
    }
    return out;
  }, { rows, get });
}
