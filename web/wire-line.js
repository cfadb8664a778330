// Decoding a Frame's lines and a style's definition (PROTOCOL.md section 5). No DOM.
import { LIMIT, ATTR, LINE } from './protocol.js';
import { bad } from './wire-reader.js';

/** Decodes one style definition's body. */
export function readStyle(r) {
  const attrs = r.u8();
  const underline = r.u8();
  if (underline > 5) bad('underline out of range');
  const fg = r.color(), bg = r.color(), ul = r.color();
  const link = attrs & ATTR.LINK ? r.string(LIMIT.LINK, 'link') : null;
  return { attrs: attrs & ATTR.ALL, underline, fg, bg, ul, link };
}

/** Decodes one Line (PROTOCOL.md section 5) and lays it out to `cols` columns. */
export function readLine(r, cols) {
  const flags = r.flags(LINE.ALL, 'line flags');
  const text = r.string(LIMIT.LINE_TEXT, 'line text');
  const wide = [];
  if (flags & LINE.HAS_WIDE) {
    const n = r.count(LIMIT.COLS / 2, 'wide runs');
    if (n === 0) bad('empty wide list');
    let min = 0;
    for (let i = 0; i < n; i++) {
      const col = r.range(0, LIMIT.COLS - 1, 'wide col');
      const count = r.range(1, LIMIT.COLS / 2, 'wide count');
      if (col < min) bad('wide runs out of order');
      min = col + 2 * count;
      wide.push([col, count]);
    }
  }
  const clusters = [];
  if (flags & LINE.HAS_CLUSTERS) {
    const n = r.count(LIMIT.COLS, 'clusters');
    if (n === 0) bad('empty cluster list');
    let prev = -1;
    for (let i = 0; i < n; i++) {
      const col = r.range(0, LIMIT.COLS - 1, 'cluster col');
      const cps = r.range(2, LIMIT.CELL_CODEPOINTS, 'cluster codepoints');
      if (col <= prev) bad('clusters out of order');
      prev = col;
      clusters.push([col, cps]);
    }
  }
  const nruns = r.count(LIMIT.COLS, 'style runs');
  const wire = [];
  for (let i = 0; i < nruns; i++) {
    const style = r.varint32();
    const len = i < nruns - 1 ? r.range(1, LIMIT.COLS, 'run length') : 0;
    wire.push(style, len);
  }
  const fill = flags & LINE.HAS_FILL ? r.varint32() : 0;
  // Image pieces (PROTOCOL.md section 5, "Images"): source in 1/16 pixels.
  let images;
  if (flags & LINE.HAS_IMAGES) {
    images = [];
    for (let n = r.count(LIMIT.LINE_IMAGES, 'images') || bad('empty image list'); n--;) {
      const hash = r.hash(), z = r.varint32(), col = r.range(0, cols - 1, 'image col');
      images.push({ hash, z: (z >>> 1) ^ -(z & 1), col, w: r.range(1, cols - col, 'image cols'),
        src: [r.varint32() / 16, r.varint32() / 16, r.range(1, 2 ** 32, 'image w') / 16, r.range(1, 2 ** 32, 'image h') / 16] });
    }
  }

  // Lay out the cells.
  const cellText = new Array(cols);
  const width = new Uint8Array(cols);
  const style = new Uint32Array(cols);
  const n = text.length;
  let i = 0, col = 0;
  let wi = 0, wCol = wide.length ? wide[0][0] : -1, wLeft = wide.length ? wide[0][1] : 0;
  let ci = 0, cCol = clusters.length ? clusters[0][0] : -1;
  while (i < n) {
    if (col >= cols) bad('line wider than the screen');
    const start = i;
    let k = 1;
    if (col === cCol) {
      k = clusters[ci][1];
      ci++;
      cCol = ci < clusters.length ? clusters[ci][0] : -1;
    }
    for (let j = 0; j < k; j++) {
      if (i >= n) bad('cluster past the end of the text');
      const c = text.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
    }
    cellText[col] = i - start === 1 ? text[start] : text.slice(start, i);
    if (col === wCol) {
      if (col + 1 >= cols) bad('line wider than the screen');
      width[col] = 2;
      cellText[col + 1] = '';
      width[col + 1] = 0;
      col += 2;
      if (--wLeft > 0) wCol += 2;
      else if (++wi < wide.length) { wCol = wide[wi][0]; wLeft = wide[wi][1]; }
      else wCol = -1;
    } else {
      width[col] = 1;
      col += 1;
    }
  }
  if (wCol !== -1) bad('wide cell where no cell starts');
  if (cCol !== -1) bad('cluster where no cell starts');
  const columns = col;

  const runs = [];
  if (nruns > 0) {
    if (nruns > columns) bad('more style runs than columns');
    let pos = 0;
    for (let k = 0; k < nruns; k++) {
      const s = wire[2 * k];
      let len = wire[2 * k + 1];
      if (k < nruns - 1) {
        if (pos + len >= columns) bad('style run reaches past the line');
      } else {
        len = columns - pos;
      }
      if (s) style.fill(s, pos, pos + len);
      pos += len;
      runs.push([len, s]);
    }
  }
  for (let c = columns; c < cols; c++) {
    cellText[c] = ' ';
    width[c] = 1;
  }
  if (fill && columns < cols) style.fill(fill, columns, cols);
  return {
    wrapped: (flags & LINE.WRAPPED) !== 0, columns, fill, images,
    simple: wide.length === 0 && clusters.length === 0 && text.length === columns,
    text: cellText, width, style,
    raw: { text, wide, clusters, runs },
  };
}
