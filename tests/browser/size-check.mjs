// The size budget: the whole web client as the server sends it (every file
// of web/ the server embeds and a browser may load, each compressed on its
// own at gzip level 9, as a server would send it) at most 40 KB (40960
// bytes). The server serves JavaScript without its whole-line comments and
// indentation (server/build.rs), so the files are fetched from a real
// server; the sources' sizes are reported beside them. Without a server
// binary (see lib/server.mjs) the budget check is skipped, with the reason.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WEB } from './lib/harness.mjs';
import { startServer, missing } from './lib/server.mjs';

const BUDGET = 40 * 1024;
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (!p.endsWith('.md')) files.push(p);
  }
})(WEB);

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const skip = missing();
const server = skip ? null : await startServer();
const totals = { raw: 0, gz: 0, servedRaw: 0, servedGz: 0 };
console.log(`${'file'.padEnd(18)} ${'source'.padStart(7)} ${'gzip'.padStart(7)} ${'served'.padStart(7)} ${'gzip'.padStart(7)}`);
try {
  for (const f of files) {
    const name = relative(WEB, f);
    const source = readFileSync(f);
    totals.raw += source.length;
    totals.gz += gz(source);
    let served = '';
    if (server) {
      const res = await fetch(`${server.base}/web/${name}`);
      if (!res.ok) throw new Error(`GET /web/${name}: ${res.status}`);
      const body = Buffer.from(await res.arrayBuffer());
      totals.servedRaw += body.length;
      totals.servedGz += gz(body);
      served = `${String(body.length).padStart(7)} ${String(gz(body)).padStart(7)}`;
    }
    console.log(`${name.padEnd(18)} ${String(source.length).padStart(7)} ${String(gz(source)).padStart(7)} ${served}`);
  }
} finally {
  await server?.stop();
}
console.log(`${'total'.padEnd(18)} ${String(totals.raw).padStart(7)} ${String(totals.gz).padStart(7)} ` +
  (server ? `${String(totals.servedRaw).padStart(7)} ${String(totals.servedGz).padStart(7)}` : ''));
if (!server) {
  console.log(`# SKIPPING the size budget check (it measures what the server sends): ${skip}`);
} else {
  console.log(`served: ${totals.servedGz} bytes gzipped of ${BUDGET} (${files.length} files)`);
  if (totals.servedGz > BUDGET) {
    console.error(`the web client is ${totals.servedGz} bytes gzipped as served, over the ${BUDGET}-byte budget`);
    process.exit(1);
  }
}
