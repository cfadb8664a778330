// Starts the real panecast server for the end-to-end browser tests, and a TCP
// proxy in front of it that can cut every connection (the "server closed the
// socket" case, without restarting the server).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';

export const BIN = process.env.PANECAST_BIN || join(ROOT, 'target', 'release', 'panecast');
export const TOKEN = 'browser-test-token';

/** Why the end-to-end tests cannot run, or null; under CI=true a reason is an error, never a skip. */
export function missing() {
  return required(existsSync(BIN) ? null : `${BIN} is missing: build it with \`cargo build --release\` (or set PANECAST_BIN) to run the end-to-end browser tests`);
}

/** `why` a test cannot run, or null; under CI=true it throws instead, so CI never passes a test it could not run. */
export function required(why) {
  if (why && process.env.CI === 'true') throw new Error(`CI=true, and a test cannot run: ${why}`);
  return why;
}

/** Starts the server; `args` are more command-line options (e.g. --config). */
export async function startServer(args = []) {
  const child = spawn(BIN, ['serve', '--listen', '127.0.0.1:0', '--token', TOKEN, '--allow-any-command', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'warn' },
  });
  let out = '', err = '';
  child.stderr.on('data', (d) => { err += d; });
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server printed no URL in 20 s\nstdout: ${out}\nstderr: ${err}`)), 20000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\/[^?\s]*\?token=/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  child.removeAllListeners('exit');
  const api = async (method, path, body) => {
    const r = await fetch(base + path, {
      method,
      headers: { Authorization: `Bearer ${TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* text formats */ }
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return json ?? text;
  };
  return {
    base, api, child,
    stderr: () => err,
    stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); setTimeout(() => child.kill('SIGKILL'), 3000); }),
  };
}

/** A TCP proxy to port; dropAll() cuts every connection through it. */
export async function startProxy(port) {
  const pairs = new Set();
  const server = net.createServer((down) => {
    const up = net.connect(port, '127.0.0.1');
    const pair = [down, up];
    pairs.add(pair);
    down.pipe(up);
    up.pipe(down);
    const end = () => { pairs.delete(pair); down.destroy(); up.destroy(); };
    down.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    dropAll() { for (const [a, b] of pairs) { a.destroy(); b.destroy(); } pairs.clear(); },
    close: () => new Promise((r) => { for (const [a, b] of pairs) { a.destroy(); b.destroy(); } server.close(r); }),
  };
}
