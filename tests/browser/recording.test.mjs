// Recording end to end in Chromium, with asciinema's own player (npm
// asciinema-player): a recording panecast wrote plays to the same final
// screen as the session's /screen?format=text, and a live session streamed
// over ALiS (GET /api/sessions/{id}/alis) shows in the player as it changes.
// The player cannot send headers, so the browser holds the credential in
// the panecast_token cookie; the live test's page is on another origin
// (another port), which the server's allowed_origins lists, as it must for
// any page that embeds the player.
// Uses the real server (target/release/panecast, or PANECAST_BIN), skipped
// with the reason when it is missing. Screenshots: tests/artifacts/browser/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, screenshot, waitFor, ROOT } from './lib/harness.mjs';
import { startServer, missing, TOKEN } from './lib/server.mjs';

const skip = missing();
if (skip) console.log(`# SKIPPING the recording browser tests: ${skip}`);
const e2e = (name, fn) => test(name, { skip: skip || false, timeout: 60000 }, fn);

const PLAYER = join(ROOT, 'tests', 'browser', 'node_modules', 'asciinema-player', 'dist', 'bundle');
let server, browser, work, site, context;
before(async () => {
  if (skip) return;
  site = await startSite();
  work = mkdtempSync(join(tmpdir(), 'panecast-recording-'));
  writeFileSync(join(work, 'panecast.toml'), [
    `recordings_dir = ${JSON.stringify(join(work, 'recordings'))}`,
    `allowed_origins = [${JSON.stringify(site.origin)}]`,
  ].join('\n') + '\n');
  server = await startServer(['--config', join(work, 'panecast.toml')]);
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  await context.addCookies([{ name: 'panecast_token', value: TOKEN, url: server.base }]);
});
after(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop();
  site?.server.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The test pages: asciinema-player and a page made by `setup`. */
function files(setup) {
  return {
    '/__test/player.js': ['text/javascript', readFileSync(join(PLAYER, 'asciinema-player.min.js'))],
    '/__test/player.css': ['text/css', readFileSync(join(PLAYER, 'asciinema-player.css'))],
    '/__test/page.html': ['text/html', `<!doctype html><meta charset="utf-8">
      <link rel="stylesheet" href="/__test/player.css"><div id="player"></div>
      <script src="/__test/player.js"></script><script>${setup}</script>`],
  };
}

/** A plain HTTP server on loopback serving the page of the live test. */
async function startSite() {
  const state = { setup: '' };
  const server = http.createServer((req, res) => {
    const [type, body] = files(state.setup)[new URL(req.url, 'http://x').pathname] || ['text/plain', 'not found'];
    res.writeHead(type === 'text/plain' ? 404 : 200, { 'Content-Type': type });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, state, origin: `http://127.0.0.1:${server.address().port}` };
}

const screenLines = async (id) => String(await server.api('GET', `/api/sessions/${id}/screen?format=text`)).split('\n');

/**
 * A page that holds asciinema-player, made by `setup`: on the server's own
 * origin (so it may fetch recordings with the cookie), or, with `local`,
 * from the loopback site of another origin (Chromium's local network checks
 * refuse WebSockets to loopback from a page not itself loaded from there).
 */
async function playerPage(setup, { local = false } = {}) {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  if (local) {
    site.state.setup = setup;
    await page.goto(`${site.origin}/__test/page.html`);
    return page;
  }
  await page.route(`${server.base}/__test/**`, (route) => {
    const [type, body] = files(setup)[new URL(route.request().url()).pathname];
    return route.fulfill({ status: 200, contentType: type, body });
  });
  await page.goto(`${server.base}/__test/page.html`);
  return page;
}

/** The player's terminal, one string per row, trailing blanks trimmed. */
const playerLines = (page) => page.evaluate(() =>
  [...document.querySelectorAll('.ap-term-text .ap-line')].map((l) => l.textContent.replace(/\u00a0/g, ' ').trimEnd()));

const trimmed = (lines) => lines.map((l) => l.trimEnd());

e2e('a panecast recording plays in asciinema-player to the session\'s final screen', async () => {
  const printf = String.raw`printf '\033[1;31mred\033[m plain é\r\n\033[42mgreen bg\033[m\r\nline three\033[2;5Hover\r\n'; sleep 0.3; printf 'after a pause\r\n'`;
  const session = await server.api('POST', '/api/sessions', { command: ['sh', '-c', printf], cols: 40, rows: 8, record: true });
  assert.ok(session.recording, 'the session is recorded');
  await waitFor(async () => (await server.api('GET', `/api/sessions/${session.id}`)).running === false, { what: 'the exit' });
  const expected = trimmed(await screenLines(session.id)).slice(0, 8);
  assert.ok(expected.includes('after a pause'), expected.join('\n'));

  const url = `/api/recordings/${session.recording}`;
  const page = await playerPage(`
    window.player = AsciinemaPlayer.create(${JSON.stringify(url)}, document.getElementById('player'), { autoPlay: true, speed: 4 });
    window.player.addEventListener('ended', () => { window.ended = true; });`);
  await waitFor(() => page.evaluate(() => window.ended === true), { what: 'the player to reach the end', timeout: 20000 });
  // The player paints on its next animation frame after the last event.
  let shown = await playerLines(page);
  await waitFor(async () => {
    shown = await playerLines(page);
    return JSON.stringify(shown) === JSON.stringify(expected);
  }, { what: 'the player to paint its last frame', timeout: 5000 }).catch(() => {});
  await screenshot(page, 'recording-asciinema-player');
  assert.deepEqual(shown, expected);
  assert.deepEqual(page.errors, []);
  await page.close();
});

e2e('a live session streams over ALiS into asciinema-player', async () => {
  const session = await server.api('POST', '/api/sessions', { command: ['sh', '-c', "export PS1='$ '; exec sh -i"], cols: 50, rows: 10 });
  const ws = `${server.base.replace('http', 'ws')}/api/sessions/${session.id}/alis`;
  const page = await playerPage(`
    window.player = AsciinemaPlayer.create({ driver: 'websocket', url: ${JSON.stringify(ws)} }, document.getElementById('player'), { autoPlay: true });`, { local: true });
  const same = async () => {
    const [shown, expected] = [await playerLines(page), trimmed(await screenLines(session.id)).slice(0, 10)];
    return JSON.stringify(shown) === JSON.stringify(expected) ? shown : false;
  };
  await waitFor(async () => (await same())?.[0]?.startsWith('$'), { what: 'the prompt in the player', timeout: 15000 });
  await server.api('POST', `/api/sessions/${session.id}/input`, { text: 'echo live-$((6*7)); printf "\\033[1mbold\\033[m\\n"\r' });
  const shown = await waitFor(async () => {
    const lines = await same();
    return lines && lines.includes('live-42') && lines.includes('bold') ? lines : false;
  }, { what: 'the echo in the player, as on the server', timeout: 15000 });
  await screenshot(page, 'recording-alis-live');
  assert.ok(shown.includes('live-42'));
  // A resize reaches the player too.
  await server.api('POST', `/api/sessions/${session.id}/resize`, { cols: 60, rows: 12 });
  await waitFor(async () => (await playerLines(page)).length === 12, { what: 'the resize in the player', timeout: 15000 });
  assert.deepEqual(page.errors, []);
  await page.close();
  await server.api('DELETE', `/api/sessions/${session.id}`);
});
