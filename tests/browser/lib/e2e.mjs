// Set-up shared by the end-to-end test files: one real server and one
// browser per file, a shell session with a known prompt, pages that record
// their errors. Every test is skipped, with the reason, when the binary is
// missing (see server.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, waitFor } from './harness.mjs';
import { startServer, missing, TOKEN } from './server.mjs';

export const skip = missing();
if (skip) console.log(`# SKIPPING the end-to-end browser tests: ${skip}`);

/** The running server and browser of this file (set by `before`). */
export const env = { server: null, browser: null };

/** Registers the file's set-up and tear-down. */
export function setup() {
  before(async () => {
    if (skip) return;
    env.server = await startServer();
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
}

/** An end-to-end test (skipped with the reason when the binary is missing). */
export const e2e = (name, fn, timeout = 90000) => test(name, { skip: skip || false, timeout }, fn);

/** A POSIX shell with a known prompt, whatever the machine's profiles are. */
export const SHELL = ['sh', '-c', "export PS1='$ '; exec sh -i"];

/** Creates a session running `command` (default: SHELL) and waits for `ready` on its screen. */
export async function session({ command = SHELL, ready = '$', ...extra } = {}) {
  const s = await env.server.api('POST', '/api/sessions', { command, ...extra });
  assert.ok(s.id, 'the API returned an id');
  await waitFor(async () => (await screenText(s.id)).some((l) => l.startsWith(ready)), { what: `"${ready}" on the screen`, timeout: 30000 });
  return s.id;
}

export const screenText = async (id) => String(await env.server.api('GET', `/api/sessions/${id}/screen?format=text`)).split('\n');
export const input = (id, text) => env.server.api('POST', `/api/sessions/${id}/input`, { text });

/** Opens `/{path}/{id}` in a new context (900x520 unless `viewport` or `contextOptions` say
 *  otherwise); `page.errors` collects page errors. */
export async function open(id, { role = 'control', path = 's', query = '', viewport = { width: 900, height: 520 }, contextOptions = { viewport } } = {}) {
  const ctx = await env.browser.newContext(contextOptions);
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${env.server.base}/${path}/${id}?token=${TOKEN}&role=${role}${query}`);
  await waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'connected'), { what: 'the page connected', timeout: 15000 });
  return page;
}

/** Saves a screenshot, checks the page logged no error, closes its context. */
export async function finish(page, name) {
  await screenshot(page, 'e2e-' + name);
  assert.deepEqual(page.errors, [], 'no errors in the page');
  await page.context().close();
}
