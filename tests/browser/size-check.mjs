// The size budget: the whole web client (every file of web/ the server
// embeds and a browser may load; web/README.md is documentation, neither
// embedded nor served) at most 40 KB (40960 bytes) gzipped, each file
// compressed on its own as a server would send it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WEB } from './lib/harness.mjs';

const BUDGET = 40 * 1024;
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (!p.endsWith('.md')) files.push(p);
  }
})(WEB);

let raw = 0, gz = 0;
for (const f of files) {
  const b = readFileSync(f);
  const z = gzipSync(b, { level: 9 }).length;
  raw += b.length;
  gz += z;
  console.log(`${relative(WEB, f).padEnd(18)} ${String(b.length).padStart(7)} ${String(z).padStart(7)}`);
}
console.log(`${'total'.padEnd(18)} ${String(raw).padStart(7)} ${String(gz).padStart(7)} bytes gzipped of ${BUDGET} (${files.length} files)`);
if (gz > BUDGET) {
  console.error(`web/ is ${gz} bytes gzipped, over the ${BUDGET}-byte budget`);
  process.exit(1);
}
