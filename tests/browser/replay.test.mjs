// The replay page /r/{name} in Chromium, against the real server: seeking
// with the control bar shows what `panecast render --at T --format text`
// shows for the same file (the terminal's screen model, and the canvas read
// back as text), the marker buttons and keys jump, and a file recorded by
// the real `asciinema rec` (tests/fixtures/asciinema-rec.cast, recorded
// with asciinema 2.4 from PyPI) plays to its end.
// Uses the real server (target/release/panecast, or PANECAST_BIN), skipped
// with the reason when it is missing. Screenshots: tests/artifacts/browser/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, readCanvas, screenshot, waitFor, ROOT } from './lib/harness.mjs';
import { startServer, missing, BIN, TOKEN } from './lib/server.mjs';

const skip = missing();
if (skip) console.log(`# SKIPPING the replay browser tests: ${skip}`);
const e2e = (name, fn) => test(name, { skip: skip || false, timeout: 60000 }, fn);

let server, browser, work, recordings;
before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), 'panecast-replay-'));
  recordings = join(work, 'recordings');
  mkdirSync(recordings);
  writeFileSync(join(recordings, 'demo.cast'), demo());
  copyFileSync(join(ROOT, 'tests', 'fixtures', 'asciinema-rec.cast'), join(recordings, 'asciinema-rec.cast'));
  writeFileSync(join(work, 'panecast.toml'), `recordings_dir = ${JSON.stringify(recordings)}\n`);
  server = await startServer(['--config', join(work, 'panecast.toml')]);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * 30 s of numbered coloured lines (never black, so the canvas can be read
 * back) 0.1 s apart, an escape sequence now and
 * then cut across two events, a resize at 12 s, markers at 5 s and 20 s; no
 * pause long enough to be shortened, so replay time is recording time.
 */
function demo() {
  const lines = [JSON.stringify({ version: 2, width: 40, height: 6, title: 'demo title' })];
  const push = (t, code, data) => lines.push(JSON.stringify([t, code, data]));
  for (let i = 0; i < 300; i++) {
    const t = i / 10;
    if (i % 9 === 4) {
      push(t, 'o', '\x1b[3');
      push(t, 'o', `${1 + (i % 7)}mline ${i}\r\n`);
    } else push(t, 'o', `\x1b[3${1 + (i % 7)}mline ${i}\x1b[m\r\n`);
    if (i === 50) push(t, 'm', 'five');
    if (i === 120) push(t, 'r', '30x5');
    if (i === 200) push(t, 'm', 'twenty');
  }
  return lines.join('\n') + '\n';
}

/** `panecast render --at SECONDS --format text FILE`, trailing blank lines dropped. */
const rendered = (name, at) => execFileSync(BIN, ['render', '--at', String(at), '--format', 'text', join(recordings, `${name}.cast`)])
  .toString().replace(/\n+$/, '');
/** The page's screen model as text, trailing blank lines dropped. */
const shown = (page) => page.evaluate(() => window.panecast.screen.text().replace(/\n+$/, ''));
const label = (page) => page.evaluate(() => document.getElementById('play').getAttribute('aria-label'));
const time = (page) => page.evaluate(() => document.getElementById('time').value);

async function openReplay(name) {
  const ctx = await browser.newContext({ viewport: { width: 900, height: 520 } });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${server.base}/r/${name}?token=${TOKEN}`);
  await waitFor(() => page.evaluate(() => window.panecast?.status === 'connected' && Number(document.getElementById('seek').max) > 0), { what: 'the replay connected', timeout: 15000 });
  return page;
}

async function finish(page, name) {
  await screenshot(page, 'replay-' + name);
  assert.deepEqual(page.errors, [], 'no errors in the page');
  await page.context().close();
}

/** Moves the seek bar as a user drags it. */
const drag = (page, ms) => page.evaluate((v) => {
  const seek = document.getElementById('seek');
  seek.value = v;
  seek.dispatchEvent(new Event('input'));
}, ms);

e2e('seeking a replay shows what render --at shows, on the canvas too', async () => {
  const page = await openReplay('demo');
  assert.equal(await page.evaluate(() => document.title), 'demo title · panecast');
  assert.equal(await page.evaluate(() => window.panecast.role), 'view');
  // It starts playing; pause it with the button.
  await waitFor(async () => (await label(page)) === 'Pause', { what: 'playing at first' });
  await page.click('#play');
  await waitFor(async () => (await label(page)) === 'Play', { what: 'paused' });
  for (const at of [3.4, 21.7, 8, 12, 29.9, 0.5]) {
    await drag(page, at * 1000);
    const want = rendered('demo', at);
    await waitFor(async () => (await shown(page)) === want, { what: `the screen at ${at} s:\n${want}` });
  }
  // The position comes in its own message (ReplayState), which may follow the frame.
  await waitFor(async () => (await time(page)) === '0:00 / 0:29', { what: 'the time at 0.5 s' });
  // The canvas shows the same (ASCII) text.
  await drag(page, 7000);
  const want = rendered('demo', 7);
  await waitFor(async () => (await shown(page)) === want, { what: 'the screen at 7 s' });
  const canvas = await waitFor(async () => {
    const rows = (await readCanvas(page, { rows: [0, 1, 2, 3, 4, 5] })).map((r) => r.trimEnd()).join('\n').replace(/\n+$/, '');
    return rows === want && rows;
  }, { what: `the canvas painting the screen at 7 s:\n${want}` });
  assert.equal(canvas, want);
  // Text can be selected and copied from the paused frame: a double click selects a word.
  const box = await page.evaluate(() => { const r = window.panecast.canvas.getBoundingClientRect(); return { x: r.x, y: r.y, ...window.panecast.metrics().cell }; });
  await page.mouse.dblclick(box.x + box.width * 6.5, box.y + box.height * 0.5);
  assert.equal(await page.evaluate(() => window.panecast.selectionText()), want.split('\n')[0].split(' ')[1]);
  // Markers: the bar shows two; the buttons and keys jump between them.
  assert.equal(await page.evaluate(() => document.querySelectorAll('#bar i').length), 2);
  await page.click('#next');
  await waitFor(async () => (await time(page)) === '0:20 / 0:29', { what: 'the next marker, at 20 s' });
  await waitFor(async () => (await shown(page)) === rendered('demo', 20), { what: 'the screen at the marker' });
  await page.click('main');
  await page.keyboard.press('[');
  await waitFor(async () => (await time(page)) === '0:05 / 0:29', { what: '[ goes to the previous marker' });
  await page.keyboard.press('k');
  await waitFor(async () => (await label(page)) === 'Pause', { what: 'k plays' });
  await finish(page, 'seek');
});

e2e('a file recorded by the real asciinema rec plays to its end', async () => {
  const page = await openReplay('asciinema-rec');
  assert.equal(await page.evaluate(() => document.title), 'asciinema-rec · panecast');
  const want = rendered('asciinema-rec', 1e9);
  assert.match(want, /green 中文/);
  await waitFor(async () => (await shown(page)) === want, { what: `the last screen:\n${want}` });
  await waitFor(async () => (await label(page)) === 'Play', { what: 'stopped at the end' });
  assert.equal(await time(page), '0:01 / 0:01');
  await finish(page, 'asciinema-rec');
});

e2e('the index page lists the recordings, each a link to its replay', async () => {
  const ctx = await browser.newContext({ viewport: { width: 900, height: 600 } });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${server.base}/?token=${TOKEN}`);
  const links = () => page.$$eval('#recordings a', (as) => as.map((a) => a.textContent));
  await waitFor(async () => (await links()).length === 2, { what: 'two recordings listed' });
  assert.deepEqual((await links()).sort(), ['asciinema-rec', 'demo']);
  assert.equal(await page.isVisible('#recordings-section'), true);
  await page.click('#recordings a:text-is("demo")');
  await waitFor(() => page.evaluate(() => location.pathname === '/r/demo' && window.panecast?.status === 'connected'), { what: 'the replay page opened' });
  await finish(page, 'index-recordings');
});
