// tools/netsim between the browser and the server: a slow link with the
// issue's profiles (lan, broadband, mobile, satellite), a blackhole and a
// reset on demand. The binary is the workspace's (`cargo build -p
// panecast-netsim`), beside the panecast binary under test or in target/.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './harness.mjs';
import { BIN, required } from './server.mjs';

/** The netsim binary: $PANECAST_NETSIM, else beside the panecast binary, else target/{release,debug}. */
export function netsimBinary() {
  const candidates = [process.env.PANECAST_NETSIM, join(dirname(BIN), 'netsim'),
    join(ROOT, 'target', 'release', 'netsim'), join(ROOT, 'target', 'debug', 'netsim')];
  return candidates.find((p) => p && existsSync(p)) || null;
}

/** Why the network tests cannot run, or null (an error under CI=true). */
export function netsimMissing() {
  return netsimBinary() ? null : required('the netsim binary is missing: build it with `cargo build -p panecast-netsim` (or set PANECAST_NETSIM)');
}

/** Starts netsim in front of `upstream` (an http://host:port base) with `profile`. */
export async function startNetsim(upstream, profile, { seed = 7 } = {}) {
  const { host } = new URL(upstream);
  const child = spawn(netsimBinary(), ['--listen', '127.0.0.1:0', '--upstream', host, '--profile', profile, '--seed', String(seed)],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  const answers = [];
  lines.on('line', (line) => {
    if (line === 'blackhole over') return;
    const w = waiting.shift();
    if (w) w(line); else answers.push(line);
  });
  const next = () => new Promise((resolve, reject) => {
    if (answers.length) return resolve(answers.shift());
    const timer = setTimeout(() => reject(new Error('netsim did not answer in 10 s')), 10000);
    waiting.push((line) => { clearTimeout(timer); resolve(line); });
  });
  const banner = await next();
  const m = /^netsim listening on (\S+)/.exec(banner);
  if (!m) throw new Error(`netsim's first line: ${banner}`);
  return {
    base: `http://${m[1]}`,
    /** Sends a command (`blackhole 5`, `reset`, `profile lan`, `stats`); its answer, which must be ok. */
    async command(cmd) {
      child.stdin.write(cmd + '\n');
      const answer = await next();
      if (!answer.startsWith('ok')) throw new Error(`netsim ${cmd}: ${answer}`);
      return answer;
    },
    stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }),
  };
}
