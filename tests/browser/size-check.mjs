// The size budget: the whole web client as the server sends it to a
// browser, every file of web/ the server embeds and a page may load, in
// the brotli form the server made at build time (server/build/web_assets.rs),
// counted as sent (the body of `GET /web/NAME` with `Accept-Encoding: br`):
// at most BUDGET bytes. Each form sent is checked to decode to the file as
// served without a coding, and the gzip forms (for clients without brotli)
// are reported beside. The server serves JavaScript without its comments
// and indentation, and pages with their import maps, so the files are
// fetched from a real server; the sources' sizes are reported beside them.
// What a visit costs on the wire, headers, API calls and the WebSocket
// included, is transfer.test.mjs's. Without a server binary (see
// lib/server.mjs) the budget check is skipped, with the reason.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { get } from 'node:http';
import { join, relative } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { WEB } from './lib/harness.mjs';
import { startServer, missing } from './lib/server.mjs';

const BUDGET = 36 * 1024;
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (!p.endsWith('.md')) files.push(p);
  }
})(WEB);

/** The body of GET `url` as sent, with its Content-Encoding. */
async function sent(url, accept) {
  // fetch would decode the body: node:http hands it over as sent.
  return new Promise((resolve, reject) => {
    get(url, { headers: accept ? { 'Accept-Encoding': accept } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET ${url}: ${res.statusCode}`));
        else resolve({ body: Buffer.concat(chunks), coding: res.headers['content-encoding'] || 'identity' });
      });
    }).on('error', reject);
  });
}

const skip = missing();
const server = skip ? null : await startServer();
const totals = { source: 0, served: 0, br: 0, gz: 0 };
const col = (v) => String(v).padStart(8);
console.log(`${'file'.padEnd(18)} ${col('source')} ${col('served')} ${col('br sent')} ${col('gz sent')}`);
try {
  for (const f of files) {
    const name = relative(WEB, f);
    const source = readFileSync(f);
    totals.source += source.length;
    let row = '';
    if (server) {
      const url = `${server.base}/web/${name}`;
      const plain = await sent(url, null);
      if (plain.coding !== 'identity') throw new Error(`${name}: coded (${plain.coding}) without Accept-Encoding`);
      const br = await sent(url, 'br');
      const gz = await sent(url, 'gzip');
      const decode = { br: brotliDecompressSync, gzip: gunzipSync, identity: (b) => b };
      for (const form of [br, gz]) {
        if (!decode[form.coding](form.body).equals(plain.body)) throw new Error(`${name}: the ${form.coding} form does not decode to the file`);
      }
      totals.served += plain.body.length;
      totals.br += br.body.length;
      totals.gz += gz.body.length;
      row = `${col(plain.body.length)} ${col(br.body.length)} ${col(gz.body.length)}`;
    }
    console.log(`${name.padEnd(18)} ${col(source.length)} ${row}`);
  }
} finally {
  await server?.stop();
}
console.log(`${'total'.padEnd(18)} ${col(totals.source)} ` +
  (server ? `${col(totals.served)} ${col(totals.br)} ${col(totals.gz)}` : ''));
if (!server) {
  console.log(`# SKIPPING the size budget check (it measures what the server sends): ${skip}`);
} else {
  console.log(`sent as brotli: ${totals.br} bytes of ${BUDGET} (${files.length} files; gzip: ${totals.gz})`);
  if (totals.br > BUDGET) {
    console.error(`the web client is ${totals.br} bytes as sent in brotli, over the ${BUDGET}-byte budget`);
    process.exit(1);
  }
}
