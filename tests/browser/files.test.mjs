// Files in and out end to end in Chromium, against the real server with a
// profile that has `files = true`: a file dropped on the terminal (drag
// and drop events carrying a DataTransfer built in the page) is uploaded
// with a progress bar into the shell's working directory, where `ls` sees
// it and it is on disk; a program's OSC 1337 File offer (inline=0)
// becomes a "Download NAME" link whose download has the program's bytes;
// a view page shows no file controls.
// Uses the real server (target/release/panecast, or PANECAST_BIN), skipped
// with the reason when it is missing. Screenshots: tests/artifacts/browser/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, screenshot, waitFor } from './lib/harness.mjs';
import { startServer, missing, TOKEN } from './lib/server.mjs';

const skip = missing();
if (skip) console.log(`# SKIPPING the files browser tests: ${skip}`);
const e2e = (name, fn) => test(name, { skip: skip || false, timeout: 60000 }, fn);

let server, browser, work;
before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), 'panecast-files-'));
  writeFileSync(join(work, 'panecast.toml'), [
    '[profiles.files]',
    'command = "sh"',
    `args = ["-c", "export PS1='$ '; exec sh -i"]`,
    'files = true',
  ].join('\n') + '\n');
  server = await startServer(['--config', join(work, 'panecast.toml')]);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const screenText = async (id) => String(await server.api('GET', `/api/sessions/${id}/screen?format=text`)).split('\n');
const input = (id, text) => server.api('POST', `/api/sessions/${id}/input`, { text });

async function start() {
  const { id } = await server.api('POST', '/api/sessions', { profile: 'files' });
  await waitFor(async () => (await screenText(id)).some((l) => l.startsWith('$')), { what: 'the prompt' });
  return id;
}

async function open(id, role = 'control') {
  const ctx = await browser.newContext({ viewport: { width: 900, height: 520 }, acceptDownloads: true });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${server.base}/s/${id}?token=${TOKEN}&role=${role}`);
  await waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'connected'), { what: 'the page connected' });
  return page;
}

async function finish(page, name) {
  await screenshot(page, 'e2e-' + name);
  assert.deepEqual(page.errors, [], 'no errors in the page');
  await page.context().close();
}

e2e('a file dropped on the terminal is uploaded with progress into the shell\'s directory', async () => {
  const id = await start();
  await input(id, 'mkdir -p drop && cd drop\r');
  const page = await open(id);
  await page.getByRole('button', { name: 'Upload' }).waitFor();
  const size = 3 << 20;
  // Every state of the progress bar the page showed, as (hidden, value, max).
  await page.evaluate(() => {
    const bar = document.querySelector('progress');
    window.barStates = [];
    new MutationObserver(() => window.barStates.push([bar.hidden, bar.value, bar.max]))
      .observe(bar, { attributes: true });
  });
  await page.evaluate((size) => {
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = i % 251;
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'dropped file.bin'));
    const el = document.querySelector('panecast-terminal');
    for (const type of ['dragenter', 'dragover', 'drop']) {
      el.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, size);
  const status = page.getByRole('status').filter({ hasText: 'dropped file.bin' });
  await waitFor(async () => /^Uploaded /.test(await status.textContent()), { what: 'the upload to finish' });
  const text = await status.textContent();
  const dir = text.replace(/^Uploaded dropped file\.bin to /, '');
  assert.match(dir, /\/drop$/, 'into the directory the shell is in');
  const states = await page.evaluate(() => window.barStates);
  assert.ok(states.some(([hidden, value, max]) => !hidden && value === size && max === size), `the bar showed the whole file sent: ${JSON.stringify(states)}`);
  assert.equal(await page.locator('progress').isHidden(), true, 'and is gone once done');
  const onDisk = readFileSync(join(dir, 'dropped file.bin'));
  assert.equal(onDisk.length, size);
  assert.ok(onDisk.every((b, i) => b === i % 251), 'the bytes on disk are the dropped file\'s');
  await input(id, 'ls\r');
  await waitFor(async () => (await screenText(id)).some((l) => l.includes('dropped file.bin')), { what: 'ls showing the file' });
  await finish(page, 'files-drop');
});

e2e('a program\'s OSC 1337 File offer becomes a download with its bytes', async () => {
  const id = await start();
  const page = await open(id);
  await page.getByRole('button', { name: 'Upload' }).waitFor();
  const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256));
  const name = Buffer.from('report.bin').toString('base64');
  await input(id, `printf '\\033]1337;File=name=${name};size=${bytes.length};inline=0:${bytes.toString('base64')}\\007'\r`);
  const link = page.getByRole('link', { name: 'Download report.bin' });
  await link.waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  assert.equal(download.suggestedFilename(), 'report.bin');
  const got = readFileSync(await download.path());
  assert.deepEqual([...got], [...bytes], 'the downloaded bytes are the program\'s');
  await finish(page, 'files-offer');
});

e2e('a view page shows no file controls', async () => {
  const id = await start();
  const page = await open(id, 'view');
  assert.equal(await page.getByRole('button', { name: 'Upload' }).count(), 0);
  await finish(page, 'files-view');
});
