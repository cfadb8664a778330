// The web client in headless Chromium against the mock server
// (lib/mock-server.mjs): what it paints, what it sends, how it reconnects.
// These run without the Rust server; tests/browser/*.test.mjs run the same
// kind of checks against the real one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, readCanvas, screenshot, waitFor, WEB } from '../lib/harness.mjs';
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

const serverText = (s) => s.lines.map((l) => l.cells.map((c) => c.text).join('').replace(/ +$/, ''));

async function open(s, { role = 'control', viewport = { width: 800, height: 480 }, dpr = 1, query = '', context } = {}) {
  const ctx = context || await browser.newContext({ viewport, deviceScaleFactor: dpr, colorScheme: 'dark' });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  await page.goto(`${mock.base}/s/${s.id}?token=${TOKEN}&role=${role}${query}`);
  await connected(page);
  return page;
}

const connected = (page) => waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'connected'), { what: 'connected' });
const canvasHas = (page, text, opts) => waitFor(async () => { const r = await readCanvas(page, opts); return r.some((l) => l.includes(text)) && r; }, { what: `"${text}" on the canvas` });
// A row that reads exactly `text`: "60" is also in the command line "$ seq 60",
// which is painted a frame before the output.
const canvasRow = (page, text) => waitFor(async () => { const r = await readCanvas(page); return r.includes(text) && r; }, { what: `a row "${text}" on the canvas` });
const received = (s, type) => s.received.filter((m) => m.type === type);

async function finish(page, name) {
  await screenshot(page, name);
  assert.deepEqual(page.errors, [], 'no errors in the page');
  await page.context().close();
}

test('typing reaches the session and the echo is painted on the canvas', async () => {
  const s = mock.create();
  const page = await open(s);
  await page.keyboard.type('echo hello');
  await page.keyboard.press('Enter');
  await waitFor(() => serverText(s).includes('hello'), { what: 'hello in the session' });
  // The command line ("echo hello") can be painted a frame before its
  // output: wait until the first rows show what the session holds.
  const { rows, text } = await waitFor(async () => {
    const r = await readCanvas(page);
    const t = serverText(s);
    return [0, 1, 2].every((i) => r[i] === t[i]) && { rows: r, text: t };
  }, { what: 'the first rows painted as the session holds them' });
  for (let r = 0; r < 3; r++) assert.equal(rows[r], text[r], `row ${r}`);
  assert.equal(text[1], 'hello');
  assert.equal(await page.evaluate(() => window.panecast.text().split('\n')[1]), 'hello');
  assert.ok(received(s, 'text').length >= 1, 'typed text went as Text');
  assert.deepEqual(received(s, 'key').at(-1), { type: 'key', key: { named: 'Enter' }, mods: [], event: 'press', role: 'control' });
  await finish(page, 'mock-typing');
});

test('keys go as named keys with modifiers', async () => {
  const s = mock.create();
  const page = await open(s);
  const before = s.received.length;
  for (const k of ['ArrowUp', 'Control+c', 'Alt+x', 'Shift+Tab', 'F5', 'Control+ArrowLeft', 'PageDown', 'Escape', 'Backspace', 'Home', 'Delete', 'F12', 'Control+Space']) {
    await page.keyboard.press(k);
  }
  await waitFor(() => received(s, 'key').length >= 13, { what: '13 key events' });
  const keys = s.received.slice(before).filter((m) => m.type === 'key').map((m) => [m.key.named || m.key.char, m.mods.join('+')]);
  assert.deepEqual(keys, [['Up', ''], ['c', 'ctrl'], ['x', 'alt'], ['Tab', 'shift'], ['F5', ''], ['Left', 'ctrl'],
    ['PageDown', ''], ['Escape', ''], ['Backspace', ''], ['Home', ''], ['Delete', ''], ['F12', ''], [' ', 'ctrl']]);
  assert.equal(received(s, 'text').length, 0, 'no key was sent as text');
  await finish(page, 'mock-keys');
});

test('colours, backgrounds and styles are painted', async () => {
  const s = mock.create();
  const page = await open(s);
  await page.keyboard.type('color\n');
  await canvasHas(page, 'green'); // "red green blue yellow link": bold, underlined and highlighted words read as '?'
  const px = await page.evaluate(() => {
    const t = window.panecast, p = t.painter, ctx = t.canvas.getContext('2d');
    // The brightest pixel in a cell range of row 1, and the background at a cell's corner.
    const brightest = (c0, c1) => {
      const x0 = Math.round(c0 * p.cw), x1 = Math.round(c1 * p.cw);
      const d = ctx.getImageData(x0, p.ch, x1 - x0, p.ch).data;
      let best = [0, 0, 0], bs = -1;
      for (let i = 0; i < d.length; i += 4) { const s = Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]); if (s > bs) { bs = s; best = [d[i], d[i + 1], d[i + 2]]; } }
      return best;
    };
    const at = (c, y) => [...ctx.getImageData(Math.round(c * p.cw) + 1, p.ch + y, 1, 1).data.slice(0, 3)];
    return { red: brightest(0, 3), green: brightest(4, 9), blue: brightest(10, 14), yellowBg: at(15, 1), plainBg: at(40, 1), underline: at(11, 13) };
  });
  const near = (a, b, what) => assert.ok(a.every((v, i) => Math.abs(v - b[i]) < 40), `${what}: ${a} vs ${b}`);
  near(px.red, [0xff, 0x00, 0x00], 'bold red is bright red');
  near(px.green, [0x00, 0xcd, 0x00], 'green');
  near(px.blue, [80, 160, 255], 'truecolor blue');
  near(px.yellowBg, [0xcd, 0xcd, 0x00], 'yellow background');
  near(px.plainBg, [0x1e, 0x1e, 0x1e], 'default background');
  await finish(page, 'mock-colours');
});

test('CJK, emoji and combining marks land in their cells', async () => {
  const s = mock.create();
  const page = await open(s);
  await page.keyboard.type('cjk\n');
  await waitFor(() => serverText(s).includes('你好|😀|e\u0301|'), { what: 'cjk in the session' });
  const rows = await waitFor(async () => { const r = await readCanvas(page); return r[1] && r[1].startsWith('##|#|') && r; }, { what: 'wide cells painted' });
  // '|' must be read exactly at columns 4 and 7: the reader walks the cells by the server's widths.
  assert.match(rows[1], /^##\|#\|.\|$/);
  const ink = await page.evaluate(() => {
    const t = window.panecast, p = t.painter, ctx = t.canvas.getContext('2d');
    const inked = (col) => {
      const d = ctx.getImageData(Math.round(col * p.cw), p.ch, Math.round(p.cw) - 1, p.ch).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 0x1e) + Math.abs(d[i + 1] - 0x1e) + Math.abs(d[i + 2] - 0x1e) > 90) n++;
      return n;
    };
    return [0, 1, 2, 3, 5, 6, 11].map(inked);
  });
  // Both halves of each wide glyph have ink (it spans two cells), and so does the emoji; col 9 is blank.
  for (let i = 0; i < 6; i++) assert.ok(ink[i] > 3, `cell ${[0, 1, 2, 3, 5, 6][i]} inked: ${ink}`);
  assert.equal(ink[6], 0, 'the cell after the line is blank');
  await finish(page, 'mock-cjk');
});

test('a second tab sees the same screen, a view tab cannot type', async () => {
  const s = mock.create();
  const a = await open(s);
  const b = await open(s, { role: 'view' });
  await a.keyboard.type('echo shared\n');
  await canvasHas(b, 'shared');
  assert.equal(await b.evaluate(() => window.panecast.role), 'view');
  assert.equal(await b.locator('panecast-terminal .pc-badge').isVisible(), true, 'read-only badge shown');
  assert.equal(await a.locator('panecast-terminal .pc-badge').isVisible(), false);
  const n = s.received.length;
  await b.click('panecast-terminal');
  await b.keyboard.type('echo nope\n');
  await b.keyboard.press('Control+c');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(s.received.slice(n).filter((m) => m.role === 'view' && m.type !== 'ping'), [], 'the view tab sent nothing');
  assert.ok(!serverText(s).join('\n').includes('nope'));
  assert.equal(await b.evaluate(() => window.panecast.status), 'connected', 'not closed for sending input');
  assert.deepEqual(await readCanvas(a, { rows: [0, 1, 2] }), await readCanvas(b, { rows: [0, 1, 2] }));
  await finish(b, 'mock-view-tab');
  await finish(a, 'mock-control-tab');
});

test('a dropped connection is followed by a reconnect that restores the screen', async () => {
  const s = mock.create();
  const page = await open(s);
  await page.keyboard.type('echo before\n');
  await canvasHas(page, 'before');
  const shown = [];
  await page.exposeFunction('__status', (st) => shown.push(st));
  await page.evaluate(() => window.panecast.addEventListener('status', (e) => window.__status(e.detail.status)));
  mock.dropAll();
  // While disconnected the session moves on; the resync must show it.
  await waitFor(() => shown.includes('reconnecting'), { what: 'reconnecting status' });
  const overlay = await page.locator('panecast-terminal .pc-status').textContent();
  assert.match(overlay, /Reconnecting in/);
  s.type('echo during\r');
  await connected(page);
  const rows = await canvasHas(page, 'during');
  assert.ok(rows.includes('before'));
  assert.equal(await page.locator('panecast-terminal .pc-status').isVisible(), false, 'overlay gone');
  await page.keyboard.type('echo after\n');
  await canvasHas(page, 'after');
  await finish(page, 'mock-reconnect');
});

test('resizing the window resizes the session', async () => {
  const s = mock.create();
  const page = await open(s, { viewport: { width: 800, height: 480 } });
  const cell = await page.evaluate(() => window.panecast.metrics().cell);
  await waitFor(() => s.cols === Math.floor(800 / cell.width) && s.rows === Math.floor(480 / cell.height), { what: 'initial fit' });
  await page.setViewportSize({ width: 500, height: 300 });
  await waitFor(() => s.cols === Math.floor(500 / cell.width) && s.rows === Math.floor(300 / cell.height), { what: `session at ${Math.floor(500 / cell.width)}x${Math.floor(300 / cell.height)}, is ${s.cols}x${s.rows}` });
  await waitFor(() => page.evaluate(([c, r]) => window.panecast.cols === c && window.panecast.rows === r, [s.cols, s.rows]), { what: 'client at the new size' });
  const css = await page.evaluate(() => window.panecast.canvas.getBoundingClientRect().width);
  assert.ok(css <= 500 && css > 500 - cell.width, `canvas ${css}px fills 500px`);
  await page.keyboard.type('echo small\n');
  await canvasHas(page, 'small');
  await finish(page, 'mock-resize');
});

test('a view page scales the screen to fit without resizing the session', async () => {
  const s = mock.create({ cols: 120, rows: 40 });
  s.type('echo wide\r');
  const page = await open(s, { role: 'view', viewport: { width: 600, height: 400 } });
  const m = await page.evaluate(() => ({ ...window.panecast.metrics(), rect: window.panecast.canvas.getBoundingClientRect().toJSON() }));
  assert.equal(m.cols, 120);
  assert.ok(m.rect.width <= 600 && m.rect.height <= 400, `fits: ${m.rect.width}x${m.rect.height}`);
  assert.ok(m.rect.width > 540 || m.rect.height > 360, 'and fills most of it');
  assert.ok(m.fontSize < 14);
  assert.equal(received(s, 'resize').length, 0);
  assert.equal(s.cols, 120);
  await finish(page, 'mock-view-scale');
});

test('HiDPI: the canvas has devicePixelRatio times the pixels and reads back', async () => {
  const s = mock.create();
  const page = await open(s, { dpr: 2 });
  await page.keyboard.type('echo crisp\n');
  await canvasHas(page, 'crisp');
  const r = await page.evaluate(() => ({ w: window.panecast.canvas.width, css: window.panecast.canvas.getBoundingClientRect().width }));
  assert.ok(Math.abs(r.w - 2 * r.css) <= 1, `${r.w} device px for ${r.css} css px`);
  await finish(page, 'mock-hidpi');
});

test('the program exiting shows its code and does not reconnect', async () => {
  const s = mock.create();
  const page = await open(s);
  await page.keyboard.type('exit 3\n');
  await waitFor(() => page.evaluate(() => window.panecast.status === 'exited'), { what: 'exited' });
  assert.match(await page.locator('panecast-terminal .pc-status').textContent(), /exited with code 3/);
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal(s.conns.size, 0, 'no reconnect');
  await finish(page, 'mock-exit');
});

test('the wheel scrolls the scrollback, fetched on demand; typing snaps back', async () => {
  const s = mock.create({ cols: 80, rows: 10 });
  const page = await open(s, { query: '&fit=none', viewport: { width: 800, height: 200 } });
  await page.keyboard.type('seq 60\n');
  await canvasRow(page, '60');
  // The scroll hint moved pixels: every row still reads as the session's row.
  assert.deepEqual(await readCanvas(page), serverText(s));
  await page.mouse.move(100, 50);
  await page.mouse.wheel(0, -16 * 20);
  await waitFor(() => received(s, 'scrollback_request').length > 0, { what: 'a scrollback request' });
  const rows = await canvasHas(page, '35'); // 20 lines up: rows show 32..41
  assert.ok(!rows.includes('60'), 'scrolled back past 60');
  await page.keyboard.type('x');
  await canvasHas(page, '$ x');
  await finish(page, 'mock-scrollback');
});

test('an answer at rebased indices (the screen scrolled meanwhile) does not stop later requests', async () => {
  const s = mock.create({ cols: 80, rows: 10 });
  const page = await open(s, { query: '&fit=none', viewport: { width: 800, height: 200 } });
  await page.keyboard.type('seq 60\n');
  await canvasRow(page, '60');
  // Back 20 lines asks for scrollback 1..30. Before the answer, 31 lines
  // scroll in (a prompt line and 61..90), so the answer comes as 32..61 and
  // lands where the request meant: the view, now 51 lines back, shows 32..41.
  s.beforeAnswer = 'seq 61 90';
  await page.evaluate(() => window.panecast.scrollView(20));
  await canvasHas(page, '41');
  // Down 30 lines: the view shows 61..70, lines the page never had (they
  // scrolled through between two frames). They are asked for and painted.
  await page.evaluate(() => window.panecast.scrollView(-30));
  // Until the view is repainted the canvas still shows 32..41, all numbers too.
  const rows = await waitFor(async () => {
    const r = await readCanvas(page);
    return r[0] === '61' && r.every((l) => /^\d+$/.test(l)) && r;
  }, { what: 'the view from 61 painted, every row' });
  assert.deepEqual(rows, ['61', '62', '63', '64', '65', '66', '67', '68', '69', '70']);
  assert.equal(received(s, 'scrollback_request').length, 2);
  await finish(page, 'mock-scrollback-rebased');
});

test('scrolled back, rows that changed and left the screen in one frame are fetched at once', async () => {
  const s = mock.create({ cols: 80, rows: 10 });
  const page = await open(s, { query: '&fit=none', viewport: { width: 800, height: 200 } });
  await page.keyboard.type('seq 60\n');
  await canvasRow(page, '60');
  await page.evaluate(() => window.panecast.scrollView(2));
  await canvasHas(page, '50');
  // In one frame: row 3 (55) changes, then five lines scroll in. The page
  // keeps rows 0..2 and asks for 3 and 4, which it shows.
  s.lines[3].cells = [...'changed'].map((text) => ({ text, width: 1, style: 0 }));
  s.touch(3);
  s.type('\r\r\r\r\r');
  s.publish();
  const rows = await waitFor(async () => { const r = await readCanvas(page); return r.includes('changed') && r; }, { what: 'the changed row painted' });
  assert.deepEqual(rows.slice(0, 8), ['50', '51', '52', '53', '54', 'changed', '56', '57']);
  assert.equal(received(s, 'scrollback_request').length, 2, 'the view at first, then the two rows not kept');
  await finish(page, 'mock-scrollback-not-kept');
});

test('selection: double click selects a word, triple click a line; copy goes to the clipboard', async () => {
  const s = mock.create();
  const ctx = await browser.newContext({ viewport: { width: 800, height: 480 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await open(s, { context: ctx });
  await page.keyboard.type('echo hello world\n');
  await canvasHas(page, 'hello world');
  const { cell } = await page.evaluate(() => window.panecast.metrics());
  const box = await page.locator('panecast-terminal').boundingBox();
  const at = (col, row) => [box.x + (col + 0.5) * cell.width, box.y + (row + 0.5) * cell.height];
  await page.mouse.dblclick(...at(8, 1));
  assert.equal(await page.evaluate(() => window.panecast.selectionText()), 'world');
  await page.mouse.click(...at(2, 0), { clickCount: 3 });
  assert.equal(await page.evaluate(() => window.panecast.selectionText()), '$ echo hello world');
  // Drag from column 0 to 5 of row 1.
  await page.mouse.move(...at(0, 1));
  await page.mouse.down();
  await page.mouse.move(...at(4.4, 1), { steps: 4 });
  await page.mouse.up();
  assert.equal(await page.evaluate(() => window.panecast.selectionText()), 'hello');
  const n = received(s, 'key').length;
  await page.keyboard.press('Control+Shift+c');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'hello');
  await page.keyboard.press('Control+c'); // with a selection: copies, sends nothing
  assert.equal(received(s, 'key').length, n);
  await finish(page, 'mock-selection');
});

test('paste goes as one Paste message', async () => {
  const s = mock.create();
  const page = await open(s);
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.setData('text/plain', 'echo pasted\n');
    document.querySelector('panecast-terminal').shadowRoot.querySelector('textarea')
      .dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });
  await waitFor(() => received(s, 'paste').length === 1, { what: 'a paste message' });
  assert.equal(received(s, 'paste')[0].text, 'echo pasted\n');
  await canvasHas(page, 'pasted');
  await finish(page, 'mock-paste');
});

test('IME composition is shown while composing and sent once as text', async () => {
  const s = mock.create();
  const page = await open(s);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.imeSetComposition', { text: 'ni', selectionStart: 2, selectionEnd: 2 });
  await waitFor(() => page.evaluate(() => window.panecast.composition === 'ni'), { what: 'composition shown' });
  assert.equal(received(s, 'text').length, 0, 'nothing sent while composing');
  await cdp.send('Input.insertText', { text: '你' });
  await waitFor(() => received(s, 'text').length === 1, { what: 'committed text' });
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(received(s, 'text').map((m) => m.text), ['你']);
  await waitFor(() => serverText(s)[0] === '$ 你', { what: 'composed text in the session' });
  await finish(page, 'mock-ime');
});

test('mouse reports only when the program asks, and not with Shift', async () => {
  const s = mock.create();
  const page = await open(s);
  const { cell } = await page.evaluate(() => window.panecast.metrics());
  const box = await page.locator('panecast-terminal').boundingBox();
  await page.mouse.click(box.x + 5.5 * cell.width, box.y + 3.5 * cell.height);
  assert.equal(received(s, 'mouse').length, 0, 'mouse off: nothing sent');
  await page.keyboard.type('mouse drag\n');
  await waitFor(() => page.evaluate(() => window.panecast.screen.modes.mouse === 'drag'), { what: 'drag mode' });
  await page.mouse.move(box.x + 5.5 * cell.width, box.y + 3.5 * cell.height);
  await page.mouse.down();
  await page.mouse.move(box.x + 7.5 * cell.width, box.y + 3.5 * cell.height, { steps: 3 });
  await page.mouse.up();
  await page.mouse.wheel(0, -100);
  await waitFor(() => received(s, 'mouse').some((m) => m.kind === 'wheel_up'), { what: 'wheel' });
  const ev = received(s, 'mouse').map((m) => `${m.kind}:${m.button}:${m.row}:${m.col}`);
  assert.equal(ev[0], 'press:left:3:5');
  assert.ok(ev.includes('move:left:3:7'), ev.join(' '));
  assert.ok(ev.includes('release:left:3:7'), ev.join(' '));
  // More wheel events may still come (the browser may split the wheel): look for the Shift click's own.
  await page.keyboard.down('Shift');
  await page.mouse.click(box.x + 2.5 * cell.width, box.y + 3.5 * cell.height);
  await page.keyboard.up('Shift');
  await page.keyboard.type('x');
  await waitFor(() => received(s, 'text').some((m) => m.text === 'x'), { what: 'the key after the click' });
  const clicked = received(s, 'mouse').filter((m) => m.col === 2).map((m) => m.kind);
  assert.deepEqual(clicked, [], 'Shift keeps the mouse for selection');
  await finish(page, 'mock-mouse');
});

test('focus events only when asked; title; bell', async () => {
  const s = mock.create();
  const page = await open(s);
  await page.keyboard.type('focus on\n');
  await waitFor(() => page.evaluate(() => window.panecast.screen.modes.focusEvents), { what: 'focus mode' });
  await page.evaluate(() => document.querySelector('panecast-terminal').shadowRoot.querySelector('textarea').blur());
  await page.evaluate(() => window.panecast.focus());
  await waitFor(() => received(s, 'focus').length >= 2, { what: 'focus events' });
  assert.deepEqual(received(s, 'focus').slice(-2).map((m) => m.focused), [false, true]);
  await page.keyboard.type('title build · 3\n');
  await waitFor(async () => (await page.title()) === 'build · 3 · panecast', { what: 'title' });
  await finish(page, 'mock-focus-title');
});

test('links open on Ctrl-click only, with a safe scheme', async () => {
  const s = mock.create();
  const page = await open(s);
  await page.keyboard.type('color\n');
  await canvasHas(page, 'green');
  const { cell } = await page.evaluate(() => window.panecast.metrics());
  const box = await page.locator('panecast-terminal').boundingBox();
  const x = box.x + 24.5 * cell.width, y = box.y + 1.5 * cell.height;
  await page.context().route('https://example.com/**', (r) => r.fulfill({ contentType: 'text/html', body: 'ok' }));
  const popups = [];
  page.on('popup', (p) => popups.push(p));
  await page.mouse.click(x, y);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(popups.length, 0, 'a plain click does not open the link');
  const popup = page.waitForEvent('popup', { timeout: 5000 });
  await page.keyboard.down('Control');
  await page.mouse.click(x, y);
  await page.keyboard.up('Control');
  const p = await popup;
  await p.waitForLoadState();
  assert.equal(p.url(), 'https://example.com/');
  await finish(page, 'mock-link');
});

test('plain http(s) URLs in the text are underlined on hover and open on Ctrl-click', async () => {
  const s = mock.create();
  const page = await open(s);
  await page.keyboard.type('echo see https://example.com/a?b=1. javascript:alert(1)\n');
  await waitFor(() => serverText(s)[1] === 'see https://example.com/a?b=1. javascript:alert(1)', { what: 'the echo' });
  const { cell } = await page.evaluate(() => window.panecast.metrics());
  const box = await page.locator('panecast-terminal').boundingBox();
  const at = (col) => [box.x + (col + 0.5) * cell.width, box.y + 1.5 * cell.height];
  // The overlay's ink in row 1, per column: the underline.
  const underlined = () => page.evaluate(() => {
    const t = window.panecast, p = t.painter, o = t.painter.overlay;
    const d = o.getContext('2d').getImageData(0, p.ch, o.width, p.ch).data;
    const cols = new Set();
    for (let i = 3; i < d.length; i += 4) if (d[i]) cols.add(Math.floor(((i >> 2) % o.width) / p.cw));
    return [...cols].sort((a, b) => a - b);
  });
  await page.mouse.move(...at(31));
  await page.mouse.move(...at(40));
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(await underlined(), [], 'javascript: is not a link, nothing is underlined');
  await page.mouse.move(...at(10));
  const cols = await waitFor(async () => { const c = await underlined(); return c.length && c; }, { what: 'an underline' });
  assert.deepEqual(cols, [...Array(25).keys()].map((i) => i + 4), 'the URL without the full stop is underlined');
  assert.match(await page.locator('panecast-terminal').evaluate((e) => e.shadowRoot.querySelector('[title]')?.title || ''), /^https:\/\/example\.com\/a\?b=1\n/);
  await page.context().route('https://example.com/**', (r) => r.fulfill({ contentType: 'text/html', body: 'ok' }));
  const popups = [];
  page.on('popup', (p) => popups.push(p));
  await page.mouse.click(...at(10));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(popups.length, 0, 'a plain click does not open the link');
  const popup = page.waitForEvent('popup', { timeout: 5000 });
  await page.keyboard.down('Control');
  await page.mouse.click(...at(10));
  await page.keyboard.up('Control');
  const p = await popup;
  await p.waitForLoadState();
  assert.equal(p.url(), 'https://example.com/a?b=1');
  await page.mouse.move(box.x + box.width + 5, box.y + box.height + 5);
  await waitFor(async () => (await underlined()).length === 0, { what: 'no underline after leaving' });
  await finish(page, 'mock-plain-url');
});

test('the custom element connects with its token attribute, without a cookie', async () => {
  const s = mock.create();
  s.type('echo element\r');
  const ctx = await browser.newContext({ viewport: { width: 700, height: 400 } });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  // A page without the cookie, as an embedding dashboard would be.
  mock.pages.set('/host-page.html', `<!doctype html><body style="margin:0"><h3>dashboard</h3>
      <panecast-terminal id="t" src="/s/${s.id}" token="${TOKEN}" role="view" font-size="12" theme="light" style="width:600px;height:300px"></panecast-terminal>
      <script type="module" src="/web/element.js"></script></body>`);
  await page.goto(`${mock.base}/host-page.html`);
  await waitFor(() => page.evaluate(() => document.getElementById('t').terminal?.status === 'connected'), { what: 'element connected' });
  // Connected is not painted: the first frame, in the light theme, may come a moment later.
  let rows = [];
  await waitFor(async () => (rows = await readCanvas(page, { get: 'document.getElementById("t").terminal' })).includes('element'),
    { what: '"element" painted' }).catch((e) => { throw new Error(`${e.message}: ${rows.join('|')}`); });
  assert.equal(await page.evaluate(() => document.getElementById('t').terminal.painter.palette.bg), '#ffffff');
  assert.equal((await ctx.cookies()).length, 0, 'no cookie was needed');
  await finish(page, 'mock-element');
});

test('the index page lists sessions and creates one from a profile', async () => {
  const s = mock.create();
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${mock.base}/?token=${TOKEN}`);
  await page.locator(`a[href="/s/${s.id}"]`).waitFor();
  assert.ok(!page.url().includes('token='), 'token removed from the address bar');
  assert.deepEqual(await page.locator('#profile option').allTextContents(), ['shell']);
  const n = mock.sessions.size;
  await page.click('button[type=submit]');
  await page.waitForURL(/\/s\/m\d+$/);
  assert.equal(mock.sessions.size, n + 1);
  await connected(page);
  await finish(page, 'mock-index');
});
