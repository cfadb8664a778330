// Box drawing, blocks and Powerline triangles, drawn on whole pixels so that
// they join from cell to cell whatever the font (web/README.md). For painter.js.

// U+2500-257F: arms (web/README.md); '..': the font draws it.
const BOX = '11224488................142418280506090a506090a0414281825464945898a468a84546854989864a8a15162526' +
  '191a292a515261629192a1a25556656695599996a55a69a66a9aa9aa........33cc341c3c070d0f70d0f043c1c374dc' +
  'fc47cdcf371d3f73d1f377ddff14054150......014010040280200821481284';
// U+2596-259F: bits 1 upper left, 2 upper right, 4 lower left, 8 lower right.
const QUADS = [4, 8, 1, 13, 9, 7, 11, 2, 6, 14];

const arms = (k) => [6, 4, 2, 0].map((b) => (parseInt(BOX.substr(2 * (k - 0x2500), 2), 16) >> b) & 3);

// Rectangles [x, y, w, h] of line k in a w x h cell (web/README.md).
function lines(k, w, h, l) {
  const [u, r, d, f] = arms(k), out = [];
  const seg = (n, m, s = m - (l >> 1)) => [[], [[s, l]], [[m - l, 2 * l]], [[s - l, l], [s + l, l]]][n];
  const axis = (a, b, p, q, m, n, hi, F) => {
    const K = Math.max(p, q), S = m - (l >> 1), L = K > 1 ? m - l : S;
    [[a, b], [b, a]].forEach(([v, o], j) => seg(v, n).forEach(([cc, t], i) => {
      const e = K < 3 ? (K ? L + !j * K * l : m) : v < 3 && o ? m : (v > 2 ? [p, q][i] : p && q) ? S + j * l : S + (2 - 3 * j) * l;
      F(j ? e : 0, j ? hi - e : e, cc, t);
    }));
  };
  axis(f, r, u, d, w >> 1, h >> 1, w, (a, n, cc, t) => out.push([a, cc, n, t]));
  axis(u, d, f, r, h >> 1, w >> 1, h, (a, n, cc, t) => out.push([cc, a, t, n]));
  return out;
}

/** Whether glyph `k` is drawn here rather than by the font. */
export const drawn = (k) => (k < 0x25a0 && BOX[2 * (k - 0x2500)] !== '.') || (k > 0xe0af && k < 0xe0b4);

/** Draws box drawing, block or Powerline `k` with painter `p`, on whole pixels in [x0, x1) of the row at y0. */
export function drawGlyph(p, k, x0, x1, y0, fg) {
  const c = p.ctx, w = x1 - x0, h = p.ch, y1 = y0 + h, l = p.line;
  const R = (a, b, e, d) => {
    const X = (v) => x0 + Math.round(w * v / 8), Y = (v) => y0 + Math.round(h * v / 8);
    c.fillRect(X(a), Y(b), X(e) - X(a), Y(d) - Y(b));
  };
  p.setFill(c.strokeStyle = fg);
  c.lineWidth = l;
  c.beginPath();
  if (k > 0xe0af) { // Powerline triangles, solid or outlined
    const a = k & 2 ? x1 : x0;
    c.moveTo(a, y0);
    c.lineTo(x0 + x1 - a, y0 + h / 2);
    c.lineTo(a, y1);
    return k & 1 ? c.stroke() : c.fill();
  }
  if (k > 0x2595) { // quadrants
    const q = QUADS[k - 0x2596];
    for (let b = 0; b < 4; b++) if (q >> b & 1) R(b & 1 ? 4 : 0, b & 2 ? 4 : 0, b & 1 ? 8 : 4, b & 2 ? 8 : 4);
  } else if (k > 0x2590 && k < 0x2594) { // shades
    c.globalAlpha = (k - 0x2590) / 4;
    c.fillRect(x0, y0, w, h);
    c.globalAlpha = 1;
  } else if (k > 0x257f) {
    const e = k - 0x2588;
    k === 0x2580 ? R(0, 0, 8, 4) : k === 0x2590 ? R(4, 0, 8, 8) : k === 0x2594 ? R(0, 0, 8, 1) : k === 0x2595 ? R(7, 0, 8, 8) : e > 0 ? R(0, 0, 8 - e, 8) : R(0, -e, 8, 8);
  } else if (k > 0x2570 && k < 0x2574) { // diagonals
    if (k & 1) c.moveTo(x0, y1), c.lineTo(x1, y0);
    if (k & 2) c.moveTo(x0, y0), c.lineTo(x1, y1);
    c.stroke();
  } else if (k > 0x256c) { // arcs
    const [u, r] = arms(k), cx = x0 + (w >> 1) - (l >> 1) + l / 2, cy = y0 + (h >> 1) - (l >> 1) + l / 2, ex = r ? x1 : x0;
    c.moveTo(cx, u ? y0 : y1);
    c.arcTo(cx, cy, ex, cy, Math.min(w, h) / 2);
    c.lineTo(ex, cy);
    c.stroke();
  } else {
    let q = p.boxes.get(k * 4096 + w);
    if (!q) p.boxes.set(k * 4096 + w, q = lines(k, w, h, l));
    for (const [a, b, e, g] of q) c.fillRect(x0 + a, y0 + b, e, g);
  }
}
