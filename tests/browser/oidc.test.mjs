// Sign-in at a real OpenID provider, end to end in Chromium: the npm
// package oidc-provider runs on loopback in its own process
// (lib/oidc-provider.mjs, its dev login and consent pages), with a static
// client whose redirect_uri is this server's /auth/callback. panecast runs
// with [auth.oidc] and one rule: the group dev may control and start
// "shell" sessions. alice is in dev; mallory is in no group.
// Covers: sign-in then a session started and shown from the page, owned by
// user:alice; consent denied at the provider (403 signin_denied); a
// tampered state (400 bad_state); an ID token expired when panecast
// verifies it (the provider's clock 300 s behind and a 1 s lifetime: 401
// bad_id_token); mallory, whom no rule names (403 no_rule); sign-out, after
// which the old cookie no longer works; a provider that rotated its signing
// key after panecast read its keys; a person whose cookie outlived their
// rule, whom the session list tells so. The audit log names each person.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import readline from 'node:readline';
import { launch, readCanvas, screenshot, waitFor, ROOT } from './lib/harness.mjs';
import { startServer, missing } from './lib/server.mjs';

const skip = missing();
if (skip) console.log(`# SKIPPING the OpenID sign-in browser tests: ${skip}`);
const e2e = (name, fn) => test(name, { skip: skip || false, timeout: 60000 }, fn);

const CLIENT_SECRET = 'oidc-test-secret-0123456789';
let provider, server, browser, work;

/** The provider process: its issuer, and `send(command)` that waits for its "ok". */
async function startProvider() {
  const child = spawn(process.execPath, [join(ROOT, 'tests', 'browser', 'lib', 'oidc-provider.mjs')], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  /** The next line of the provider's own (those that start with "@"). */
  const next = async () => {
    for (;;) {
      const { value, done } = await lines.next();
      if (done) throw new Error(`the provider exited\n${err}`);
      if (value.startsWith('@')) return value.slice(1);
    }
  };
  const first = await next();
  const issuer = /^issuer (\S+)$/.exec(first)?.[1];
  assert.ok(issuer, `the provider's first line names its issuer: ${first}\n${err}`);
  return {
    issuer,
    stderr: () => err,
    async send(command) {
      child.stdin.write(command + '\n');
      assert.equal(await next(), 'ok', `the provider took "${command}"`);
    },
    stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }),
  };
}

before(async () => {
  if (skip) return;
  provider = await startProvider();
  work = mkdtempSync(join(tmpdir(), 'panecast-oidc-'));
  // Only the server may read the secret (a file others may read is refused).
  writeFileSync(join(work, 'secret'), CLIENT_SECRET + '\n', { mode: 0o600 });
  writeFileSync(join(work, 'panecast.toml'), `
[auth.oidc]
issuer = ${JSON.stringify(provider.issuer)}
client_id = "panecast"
client_secret_file = ${JSON.stringify(join(work, 'secret'))}
cookie_key_file = ${JSON.stringify(join(work, 'cookie.key'))}
scopes = ["openid", "profile", "groups"]

[[auth.rules]]
groups = ["dev"]
role = "control"
profiles = ["shell"]
`);
  process.env.RUST_LOG = 'warn,panecast::audit=info';
  server = await startServer(['--config', join(work, 'panecast.toml')]);
  await provider.send(`client ${server.base}`);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  await provider?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A fresh browser context and page; page.errors collects page errors. */
async function newPage() {
  const ctx = await browser.newContext({ viewport: { width: 900, height: 600 } });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  return page;
}

/** From the provider's login page: signs in as `user`, then consents (or cancels). */
async function atProvider(page, user, { consent = true } = {}) {
  await page.waitForURL((u) => u.href.startsWith(provider.issuer), { timeout: 10000 });
  await page.fill('input[name=login]', user);
  await page.fill('input[name=password]', 'any');
  await page.click('button[type=submit]');
  await page.waitForSelector('text=Continue');
  if (consent) await page.click('text=Continue');
  else await page.click('text=[ Cancel ]');
}

/** Waits for the answer to /auth/callback while `act` runs; returns it. */
async function callback(page, act) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/auth/callback', { timeout: 15000 }),
    act(),
  ]);
  return response;
}

/** GET /api/sessions with only the sign-in cookie `value`. */
const listWith = (value) => fetch(`${server.base}/api/sessions`, { headers: { Cookie: `panecast_signin=${value}` } });

e2e('alice signs in, starts a session from the page, sees it, owns it, signs out', async () => {
  const page = await newPage();
  await page.goto(`${server.base}/`);
  await page.click('#signin a');
  const answer = await callback(page, () => atProvider(page, 'alice'));
  assert.equal(answer.status(), 303, 'signed in: back to the session list');
  await page.waitForSelector('#user');
  assert.equal(await page.textContent('#user'), 'alice');
  await screenshot(page, 'oidc-signed-in');
  await waitFor(() => page.evaluate(() => document.querySelector('#profile option')?.value === 'shell'), { what: 'the profiles listed' });

  await page.click('#create button[type=submit]');
  await page.waitForURL(/\/s\/[0-9a-f]+$/, { timeout: 15000 });
  const id = page.url().split('/').pop();
  await waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'connected'), { what: 'the terminal connected', timeout: 15000 });
  await page.keyboard.type('echo oidc-$((6*7))\n');
  await waitFor(async () => (await server.api('GET', `/api/sessions/${id}/screen?format=text`)).includes('oidc-42'), { what: 'oidc-42 on the screen', timeout: 15000 });
  await waitFor(async () => (await readCanvas(page)).some((line) => line.startsWith('oidc-42')), { what: 'oidc-42 painted in the page', timeout: 15000 });
  await screenshot(page, 'oidc-alice-session');
  const shown = await page.evaluate(async (path) => (await fetch(path)).json(), `/api/sessions/${id}`);
  assert.equal(shown.owner, 'user:alice', 'the session is hers');

  // Her cookie alone lists sessions; after sign-out the same value does not.
  const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'panecast_signin');
  assert.ok(cookie, 'the sign-in cookie is set');
  assert.ok(cookie.httpOnly && cookie.sameSite === 'Strict', `HttpOnly and SameSite=Strict: ${JSON.stringify(cookie)}`);
  assert.equal((await listWith(cookie.value)).status, 200);
  await page.goto(`${server.base}/`);
  await page.click('#signout button');
  await page.waitForURL((u) => u.href.startsWith(provider.issuer), { timeout: 10000 });
  const left = (await page.context().cookies()).filter((c) => c.name === 'panecast_signin');
  assert.deepEqual(left, [], 'the cookie is cleared');
  const after = await listWith(cookie.value);
  assert.equal(after.status, 401, 'the old cookie no longer works');
  await page.goto(`${server.base}/`);
  await page.waitForSelector('#signin');
  assert.deepEqual(page.errors, []);
  await page.context().close();
  assert.match(server.stderr(), /signin.*user:alice.*groups=dev|signin.*groups=dev.*user:alice/);
  assert.match(server.stderr(), /signout.*user:alice/);
});

e2e('consent denied at the provider: 403 signin_denied, not signed in', async () => {
  const page = await newPage();
  await page.goto(`${server.base}/auth/login`);
  const answer = await callback(page, () => atProvider(page, 'alice', { consent: false }));
  assert.equal(answer.status(), 403);
  assert.equal(await page.textContent('#code'), 'signin_denied');
  assert.match(await page.textContent('#message'), /access_denied/);
  await screenshot(page, 'oidc-denied');
  const signedIn = (await page.context().cookies()).some((c) => c.name === 'panecast_signin');
  assert.equal(signedIn, false);
  await page.context().close();
});

e2e('a tampered state at the callback: 400 bad_state, not signed in', async () => {
  const page = await newPage();
  // The state changes on its way to the provider, which sends it back as
  // it got it: not the one the sign-in's cookie holds.
  await page.route((u) => u.pathname === '/auth/login', async (route) => {
    const response = await route.fetch({ maxRedirects: 0 });
    const location = new URL(response.headers().location);
    location.searchParams.set('state', location.searchParams.get('state').slice(1) + 'x');
    await route.fulfill({ response, headers: { ...response.headers(), location: location.href } });
  });
  await page.goto(`${server.base}/auth/login`);
  const answer = await callback(page, () => atProvider(page, 'alice'));
  assert.equal(answer.status(), 400);
  assert.equal(await page.textContent('#code'), 'bad_state');
  assert.match(await page.textContent('#message'), /the state is not the one this sign-in sent/);
  const signedIn = (await page.context().cookies()).some((c) => c.name === 'panecast_signin');
  assert.equal(signedIn, false);
  await page.context().close();
});

e2e('an ID token expired when panecast verifies it: 401 bad_id_token', async () => {
  await provider.send('late');
  try {
    const page = await newPage();
    await page.goto(`${server.base}/auth/login`);
    const answer = await callback(page, () => atProvider(page, 'alice'));
    assert.equal(answer.status(), 401);
    assert.equal(await page.textContent('#code'), 'bad_id_token');
    assert.match(await page.textContent('#message'), /xpired/);
    const signedIn = (await page.context().cookies()).some((c) => c.name === 'panecast_signin');
    assert.equal(signedIn, false);
    await page.context().close();
  } finally {
    await provider.send('on time');
  }
});

e2e('mallory, whom no rule names, gets the 403 no_rule page', async () => {
  const page = await newPage();
  await page.goto(`${server.base}/`);
  await page.click('#signin a');
  const answer = await callback(page, () => atProvider(page, 'mallory'));
  assert.equal(answer.status(), 403);
  assert.equal(await page.textContent('#code'), 'no_rule');
  assert.match(await page.textContent('#message'), /signed in as 'mallory', but no rule/);
  await screenshot(page, 'oidc-no-rule');
  const signedIn = (await page.context().cookies()).some((c) => c.name === 'panecast_signin');
  assert.equal(signedIn, false);
  await page.context().close();
  assert.match(server.stderr(), /signin_refused.*user:mallory.*no_rule/);
});

e2e('a provider that rotated its signing key: panecast reads its keys again', async () => {
  // panecast reads the discovery document and the keys (on its first /auth/login).
  const begun = await fetch(`${server.base}/auth/login`, { redirect: 'manual' });
  assert.equal(begun.status, 303);
  await provider.send('rotate');
  const page = await newPage();
  await page.goto(`${server.base}/auth/login`);
  const answer = await callback(page, () => atProvider(page, 'alice'));
  assert.equal(answer.status(), 303, `signed in with the new key: ${await answer.text().catch(() => '')}`);
  await page.waitForSelector('#user');
  await page.context().close();
});

/** A panecast_signin value as the server seals it (server/src/api/auth/oidc/seal.rs):
 *  the JSON {exp, v} and its HMAC-SHA256, both base64url, under a key derived
 *  from the key the server made in cookie_key_file (read here as only the
 *  server's user may: the test runs as that user). */
function sealedSignIn(person, exp) {
  const made = Buffer.from(readFileSync(join(work, 'cookie.key'), 'utf8').trim(), 'hex');
  const key = createHmac('sha256', made).update('panecast oidc cookie v2: session').digest();
  const payload = Buffer.from(JSON.stringify({ exp, v: person })).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

e2e('signed in, but no rule names them (any more): the session list says so', async () => {
  const page = await newPage();
  const bob = { id: '0'.repeat(32), user: 'bob', groups: ['ops'] };
  const value = sealedSignIn(bob, Math.floor(Date.now() / 1000) + 600);
  await page.context().addCookies([{ name: 'panecast_signin', value, url: server.base }]);
  await page.goto(`${server.base}/`);
  assert.equal(await page.textContent('#user'), 'bob');
  await waitFor(async () => /no rule of \[auth\] gives you a role/.test(await page.textContent('#sessions')), { what: 'the no_rule message in the list' });
  assert.match(await page.textContent('#sessions'), /signed in as 'bob'/);
  await screenshot(page, 'oidc-no-rule-list');
  await page.context().close();
});
