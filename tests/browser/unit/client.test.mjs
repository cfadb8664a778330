// Pure parts of the client: key mapping, the screen model, selection, palette, back-off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapKey, clipboardAction } from '../../../web/input.js';
import { Screen, CACHE_LINES } from '../../../web/screen.js';
import { Selection, wordAt } from '../../../web/selection.js';
import { Palette, xterm256, mix } from '../../../web/palette.js';
import { backoff, retryDelay } from '../../../web/connection.js';
import { CLOSE, FINAL } from '../../../web/protocol.js';
import { visiblePart } from '../../../web/touch.js';
import { decode } from '../../../web/decode.js';
import * as wire from '../lib/wire.mjs';

const ev = (key, o = {}) => ({ key, code: o.code || '', location: o.location || 0, shiftKey: !!o.shift, altKey: !!o.alt, ctrlKey: !!o.ctrl, metaKey: !!o.meta, isComposing: !!o.composing, keyCode: o.keyCode || 0, getModifierState: (m) => m === 'AltGraph' && !!o.altgr });

test('mapKey: named keys, modifiers, keypad', () => {
  assert.deepEqual(mapKey(ev('Enter')), { key: 'Enter', mods: 0 });
  assert.deepEqual(mapKey(ev('ArrowUp', { shift: true, ctrl: true })), { key: 'Up', mods: 5 });
  assert.deepEqual(mapKey(ev('F11', { alt: true })), { key: 'F11', mods: 2 });
  assert.deepEqual(mapKey(ev('Tab', { shift: true })), { key: 'Tab', mods: 1 });
  assert.deepEqual(mapKey(ev('PageUp')), { key: 'PageUp', mods: 0 });
  assert.deepEqual(mapKey(ev('5', { code: 'Numpad5', location: 3 })), { key: 'Kp5', mods: 0 });
  assert.deepEqual(mapKey(ev('Enter', { code: 'NumpadEnter', location: 3, meta: true })), { key: 'KpEnter', mods: 8 });
  // NumLock off: the keypad sends navigation keys.
  assert.deepEqual(mapKey(ev('Home', { code: 'Numpad7', location: 3 })), { key: 'Home', mods: 0 });
});

test('mapKey: characters', () => {
  assert.equal(mapKey(ev('a')), null, 'plain text comes from the input event');
  assert.equal(mapKey(ev('A', { shift: true })), null);
  assert.deepEqual(mapKey(ev('c', { ctrl: true, code: 'KeyC' })), { key: { char: 'c' }, mods: 4 });
  assert.deepEqual(mapKey(ev('x', { alt: true })), { key: { char: 'x' }, mods: 2 });
  assert.deepEqual(mapKey(ev('с', { ctrl: true, code: 'KeyC' })), { key: { char: 'c' }, mods: 4 }, 'Cyrillic layout');
  assert.equal(mapKey(ev('@', { ctrl: true, alt: true, altgr: true })), null, 'AltGr types');
  assert.equal(mapKey(ev('ø', { alt: true }), true), null, 'Option types on a Mac');
  assert.equal(mapKey(ev('v', { meta: true })), null, 'Cmd shortcuts stay the browser\'s');
  assert.equal(mapKey(ev('a', { composing: true })), null);
  assert.equal(mapKey(ev('Process', { keyCode: 229 })), null);
  assert.equal(mapKey(ev('Shift', { shift: true })), null);
  assert.equal(mapKey(ev('Dead')), null);
  assert.deepEqual(mapKey(ev('😀', { alt: true })), { key: { char: '😀' }, mods: 2 });
});

test('mapKey: with every key asked for (kitty flag 8), plain text keys are keys too', () => {
  assert.deepEqual(mapKey(ev('a'), false, true), { key: { char: 'a' }, mods: 0 });
  assert.deepEqual(mapKey(ev('A', { shift: true }), false, true), { key: { char: 'A' }, mods: 1 });
  assert.deepEqual(mapKey(ev('Shift', { shift: true, code: 'ShiftLeft' }), false, true), { key: 'ShiftLeft', mods: 1 }, 'modifier keys alone too');
  assert.deepEqual(mapKey(ev('Control', { code: 'ControlRight' }), false, true), { key: 'ControlRight', mods: 0 }, 'released: no longer held');
  assert.equal(mapKey(ev('Shift', { shift: true, code: 'ShiftLeft' }), false, true, false), null, 'not without flag 8');
  assert.equal(mapKey(ev('Shift', { shift: true, code: 'ShiftLeft' })), null);
  assert.equal(mapKey(ev('a', { composing: true }), false, true), null, 'an input method keeps its keys');
  assert.equal(mapKey(ev('ø', { alt: true }), true, true), null, 'Option still types on a Mac');
});

test('clipboard shortcuts', () => {
  assert.equal(clipboardAction(ev('C', { ctrl: true, shift: true, code: 'KeyC' })), 'copy');
  assert.equal(clipboardAction(ev('V', { ctrl: true, shift: true, code: 'KeyV' })), 'paste');
  assert.equal(clipboardAction(ev('c', { ctrl: true, code: 'KeyC' }), false, false), null, 'Ctrl-C interrupts');
  assert.equal(clipboardAction(ev('c', { ctrl: true, code: 'KeyC' }), false, true), 'copy', 'unless text is selected');
  assert.equal(clipboardAction(ev('v', { ctrl: true, code: 'KeyV' })), null, 'Ctrl-V goes to the program');
  assert.equal(clipboardAction(ev('c', { meta: true }), true), 'copy');
  assert.equal(clipboardAction(ev('v', { meta: true }), true), 'paste');
  assert.equal(clipboardAction(ev('Insert', { shift: true })), 'paste');
});

const frame = (m) => decode(wire.frame(m));
const cells = (s, style = 0) => [...s].map((t) => ({ text: t, width: 1, style }));

test('screen: full frames, scroll hints, scrollback numbering', () => {
  const sc = new Screen();
  sc.hello({ role: 'control', cols: 10, rows: 3, sessionId: 'x' });
  let r = sc.applyFrame(frame({ cols: 10, rows: 3, full: true, lines: [0, 1, 2].map((row) => ({ row, line: { cells: cells('l' + row) } })) }));
  assert.equal(r.full, true);
  assert.equal(sc.text(), 'l0\nl1\nl2');
  r = sc.applyFrame(frame({ cols: 10, rows: 3, scroll: 2, scrollback: 2, pushed: 2, kept: 2, lines: [{ row: 1, line: { cells: cells('l3') } }, { row: 2, line: { cells: cells('l4') } }] }));
  assert.deepEqual([r.scroll, r.rows], [2, [1, 2]]);
  assert.equal(sc.text(), 'l2\nl3\nl4');
  // The rows that scrolled off are scrollback 1 (l1) and 2 (l0).
  assert.equal(Screen.lineText(sc.line(sc.base - 1)).trim(), 'l1');
  assert.equal(Screen.lineText(sc.line(sc.base - 2)).trim(), 'l0');
  assert.equal(sc.total, 2);
  // A scrollback answer lands at its indices.
  sc.applyScrollback(decode(wire.scrollback({ total: 5, start: 3, cols: 10, lines: [{ cells: cells('old3') }, { cells: cells('old4') }] })));
  assert.equal(Screen.lineText(sc.line(sc.base - 4)).trim(), 'old4');
  assert.equal(sc.total, 5);
  // Scrolling past the height blanks the screen.
  sc.applyFrame(frame({ cols: 10, rows: 3, scroll: 7, scrollback: 12, pushed: 7, kept: 3, lines: [] }));
  assert.equal(sc.text(), '\n\n');
  // The cached lines moved by all 7: the old screen's rows are 7..5 above it, l1 is 8, old4 11.
  assert.equal(Screen.lineText(sc.line(sc.base - 5)).trim(), 'l4');
  assert.equal(Screen.lineText(sc.line(sc.base - 7)).trim(), 'l2');
  assert.equal(Screen.lineText(sc.line(sc.base - 8)).trim(), 'l1');
  assert.equal(Screen.lineText(sc.line(sc.base - 11)).trim(), 'old4');
  assert.equal(sc.line(sc.base - 1), undefined, 'the lines that scrolled through are not cached');
  // A resize without the full flag is treated as full.
  r = sc.applyFrame(frame({ cols: 6, rows: 2, lines: [{ row: 1, line: { cells: cells('new') } }] }));
  assert.equal(r.full, true);
  assert.equal(sc.text(), '\nnew');
  assert.equal(sc.scrollback.size, 0);
});

test('screen: lines pushed into the scrollback move the indices; only kept rows are cached', () => {
  const sc = new Screen();
  sc.hello({ role: 'control', cols: 10, rows: 3, sessionId: 'x' });
  sc.applyFrame(frame({ cols: 10, rows: 3, full: true, lines: [0, 1, 2].map((row) => ({ row, line: { cells: cells('a' + row) } })) }));
  // Three rows left; the second had changed before it did: only the first is kept.
  sc.applyFrame(frame({ cols: 10, rows: 3, scroll: 3, scrollback: 3, pushed: 3, kept: 1, lines: [0, 1, 2].map((row) => ({ row, line: { cells: cells('b' + row) } })) }));
  assert.equal(Screen.lineText(sc.line(sc.base - 3)).trim(), 'a0');
  assert.equal(sc.line(sc.base - 2), undefined, 'a row that changed before it left is fetched, not kept');
  assert.equal(sc.line(sc.base - 1), undefined);
  // A scroll region from the top (a status line below it) pushes without shifting the screen.
  sc.applyFrame(frame({ cols: 10, rows: 3, scroll: 0, scrollback: 4, pushed: 1, kept: 1, lines: [0, 1].map((row) => ({ row, line: { cells: cells('c' + row) } })) }));
  assert.equal(sc.text(), 'c0\nc1\nb2');
  assert.equal(Screen.lineText(sc.line(sc.base - 1)).trim(), 'b0');
  assert.equal(Screen.lineText(sc.line(sc.base - 4)).trim(), 'a0');
  // The alternate screen scrolls without pushing: the indices stay.
  sc.applyFrame(frame({ cols: 10, rows: 3, scroll: 2, scrollback: 4, lines: [] }));
  assert.equal(Screen.lineText(sc.line(sc.base - 1)).trim(), 'b0');
  assert.equal(Screen.lineText(sc.line(sc.base - 4)).trim(), 'a0');
});

test('screen: the scrollback cache is bounded, least recently used lines go first', () => {
  const sc = new Screen();
  sc.hello({ role: 'view', cols: 10, rows: 3, sessionId: 'x' });
  sc.applyFrame(frame({ cols: 10, rows: 3, full: true, lines: [] }));
  let keep;
  for (let i = 0; i < CACHE_LINES + 500; i++) {
    sc.applyFrame(frame({ cols: 10, rows: 3, scroll: 1, scrollback: i + 1, pushed: 1, kept: 1, lines: [{ row: 2, line: { cells: cells('n' + i) } }] }));
    if (i === 10) keep = sc.base - 1;
    if (keep && i % 100 === 0) assert.ok(sc.line(keep), 'a line read often stays cached');
  }
  assert.equal(sc.scrollback.size, CACHE_LINES, 'at most CACHE_LINES lines');
  assert.equal(Screen.lineText(sc.line(sc.base - 1)).trim(), `n${CACHE_LINES + 496}`, 'the newest line is kept');
  assert.equal(sc.line(keep + 1), undefined, 'its neighbour, unused, was evicted');
  assert.equal(Screen.lineText(sc.line(keep)).trim(), 'n7');
  // The session holds only 50 lines: the cache keeps no more than that.
  sc.applyScrollback(decode(wire.scrollback({ total: 50, start: 1, cols: 10, lines: [{ cells: cells('s1') }] })));
  assert.ok(sc.scrollback.size <= 50, `cache ${sc.scrollback.size} within the session's 50 lines`);
  assert.equal(Screen.lineText(sc.line(sc.base - 1)).trim(), 's1');
});

test('screen: lines the session no longer holds are forgotten', () => {
  const sc = new Screen();
  sc.hello({ role: 'view', cols: 10, rows: 3, sessionId: 'x' });
  sc.applyFrame(frame({ cols: 10, rows: 3, full: true, lines: [] }));
  for (let i = 0; i < 20; i++) {
    sc.applyFrame(frame({ cols: 10, rows: 3, scroll: 1, scrollback: Math.min(i + 1, 5), pushed: 1, kept: 1, lines: [{ row: 2, line: { cells: cells('n' + i) } }] }));
  }
  assert.equal(sc.scrollback.size, 5, 'the session keeps 5 lines');
  assert.equal(sc.line(sc.base - 6), undefined, 'the sixth line up is gone');
  assert.equal(Screen.lineText(sc.line(sc.base - 5)).trim(), 'n12');
  // The program cleared the scrollback: a frame says so, nothing else changed.
  sc.applyFrame(frame({ cols: 10, rows: 3, scrollback: 0, lines: [] }));
  assert.equal(sc.scrollback.size, 0);
  assert.equal(sc.total, 0);
});

test('screen: styles reset and unknown style ids paint as default', () => {
  const sc = new Screen();
  sc.applyStyles(decode(wire.styles({ defs: [{ id: 3, style: { attrs: ['bold'] } }] })));
  assert.equal(sc.style(3).attrs, 1);
  assert.equal(sc.style(99).attrs, 0);
  assert.equal(sc.applyStyles(decode(wire.styles({ reset: true, defs: [] }))), true);
  assert.equal(sc.style(3).attrs, 0);
});

function screenWith(rows, cols = 20) {
  const sc = new Screen();
  sc.hello({ role: 'view', cols, rows: rows.length, sessionId: 'x' });
  sc.applyFrame(frame({ cols, rows: rows.length, full: true, lines: rows.map((r, row) => ({ row, line: typeof r === 'string' ? { cells: cells(r) } : r })) }));
  return sc;
}

test('selection: characters, words, lines, wrapped rows, wide cells', () => {
  const sc = screenWith(['hello big world', { cells: cells('abcdefghijklmnopqrst'), wrapped: true }, 'uvw', '']);
  const sel = new Selection();
  sel.start(sc, { a: 0, col: 6 }, 'word');
  assert.equal(sel.text(sc), 'big');
  sel.extend(sc, { a: 0, col: 12 });
  assert.equal(sel.text(sc), 'big world');
  sel.start(sc, { a: 1, col: 3 }, 'line');
  assert.equal(sel.text(sc), 'abcdefghijklmnopqrstuvw', 'a wrapped row joins the next');
  sel.start(sc, { a: 0, col: 10 });
  sel.extend(sc, { a: 2, col: 2 });
  assert.equal(sel.text(sc), 'world\nabcdefghijklmnopqrstuv');
  assert.deepEqual(sel.rects(0, 4, 20), [{ y: 0, from: 10, to: 20 }, { y: 1, from: 0, to: 20 }, { y: 2, from: 0, to: 2 }]);
  sel.start(sc, { a: 3, col: 0 });
  assert.equal(sel.active, false);
  const wide = screenWith([{ cells: [{ text: '日', width: 2 }, { text: '本', width: 2 }, { text: ' ', width: 1 }, { text: 'x', width: 1 }] }]);
  assert.deepEqual(wordAt(wide.lines[0], 3), [0, 4], 'a click on a spacer selects the wide word');
  sel.start(wide, { a: 0, col: 1 }, 'word');
  assert.equal(sel.text(wide), '日本');
});

test('palette: themes, 256 colours, dim mixing', () => {
  const p = new Palette('dark');
  assert.equal(p.css(-1, 'DEF'), 'DEF');
  assert.equal(p.css(1, ''), '#cd0000');
  assert.equal(new Palette('contrast').bg, '#000000');
  assert.equal(p.css(16, ''), '#000000');
  assert.equal(p.css(196, ''), '#ff0000');
  assert.equal(p.css(231, ''), '#ffffff');
  assert.equal(p.css(232, ''), '#080808');
  assert.equal(p.css(255, ''), '#eeeeee');
  assert.equal(p.css(0x1000000 | 0x123456, ''), '#123456');
  assert.equal(xterm256().length, 240);
  assert.equal(new Palette('light').bg, '#ffffff');
  assert.equal(new Palette('nope').bg, p.bg, 'unknown themes fall back to dark');
  assert.equal(mix('#000000', '#ffffff', 0.5), '#808080');
});

test('reconnect back-off grows, is capped, jitters; final codes', () => {
  assert.equal(backoff(0, () => 0.5), 500);
  assert.equal(backoff(1, () => 0.5), 1000);
  assert.equal(backoff(20, () => 0.5), 10000);
  assert.equal(backoff(3, () => 0), 2800);
  assert.equal(backoff(3, () => 1), 5200);
  for (const c of [4001, 4002, 4004, 4006, 1008]) assert.ok(FINAL.has(c));
  for (const c of [1001, 1006, 1011, 1012, 4008]) assert.ok(!FINAL.has(c));
  // An upgrade in place: reconnect at once, whatever the attempt.
  assert.equal(CLOSE.SERVICE_RESTART, 1012);
  assert.equal(retryDelay(1012, 5, () => 1), 0);
  assert.equal(retryDelay(1006, 1, () => 0.5), 1000);
});

// What a soft keyboard does to the visual viewport (Chromium cannot emulate one: touch.test.mjs drives
// the real event with a page zoom instead): the layout viewport keeps its height, the visual one shrinks,
// and on iOS it may also be scrolled down (offsetTop).
test('visualViewport: the terminal takes the part of the page a soft keyboard leaves', () => {
  const vv = (height, offsetTop = 0) => ({ height, offsetTop });
  assert.equal(visiblePart(vv(700), 700, 0), null, 'no keyboard: all of it');
  assert.equal(visiblePart(vv(699.6), 700, 0), null, 'rounding is no keyboard');
  assert.deepEqual(visiblePart(vv(400), 700, 0), { shift: 0, height: 400 }, 'Android: the top 400 px');
  assert.deepEqual(visiblePart(vv(400), 700, 50), { shift: 0, height: 350 }, 'below a 50 px header');
  assert.deepEqual(visiblePart(vv(400, 120), 700, 0), { shift: 120, height: 400 }, 'iOS, scrolled: moved down into sight');
  assert.deepEqual(visiblePart(vv(400, 120), 700, 50), { shift: 70, height: 400 }, 'scrolled past part of a header');
  assert.deepEqual(visiblePart(vv(10, 0), 700, 50), { shift: 0, height: 1 }, 'never less than a pixel');
});
