// The size budget: the whole web client as the server sends it to a
// browser, every file of web/ the server embeds and a page may load, in
// the brotli form the server made at build time (server/build/web_assets.rs),
// counted as sent (the body of `GET /web/NAME` with `Accept-Encoding: br`),
// is reported. Each form sent is checked to decode to the file as
// served without a coding, and the gzip forms (for clients without brotli)
// are reported beside. The server serves JavaScript without its comments
// and indentation, and pages with their bundles, so the files are
// fetched from a real server; the sources' sizes are reported beside them.
// A page loads one bundle of its modules (server/build/bundle.rs), not the
// modules one by one: the budget is what each page costs (its HTML and its
// bundle, as brotli), at most PAGE_BUDGET bytes.
// What a visit costs on the wire, headers, API calls and the WebSocket
// included, is transfer.test.mjs's. Without a server binary (see
// lib/server.mjs) the budget check is skipped, with the reason.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { get } from 'node:http';
import { join, relative } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { WEB } from './lib/harness.mjs';
import { startServer, missing } from './lib/server.mjs';

const PAGE_BUDGET = 33 * 1024;
/** Each page: a path the server answers with it. */
const PAGES = { 'terminal.html': '/s/x', 'embed.html': '/embed/x', 'replay.html': '/r/x', 'index.html': '/' };
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
const pages = [];
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
  for (const [name, path] of server ? Object.entries(PAGES) : []) {
    const html = await sent(`${server.base}${path}`, 'br');
    const text = brotliDecompressSync(html.body).toString();
    const src = /<script type="module" src="([^"]+)"/.exec(text)?.[1];
    if (!src) throw new Error(`${name}: no module script`);
    const bundle = await sent(new URL(src, `${server.base}${path}`).href, 'br');
    pages.push({ name, html: html.body.length, bundle: bundle.body.length, src });
  }
} finally {
  await server?.stop();
}
console.log(`${'total'.padEnd(18)} ${col(totals.source)} ` +
  (server ? `${col(totals.served)} ${col(totals.br)} ${col(totals.gz)}` : ''));
if (!server) {
  console.log(`# SKIPPING the size budget check (it measures what the server sends): ${skip}`);
} else {
  console.log(`every file sent as brotli: ${totals.br} bytes (${files.length} files; gzip: ${totals.gz})`);
  let over = false;
  console.log(`\n${'page'.padEnd(18)} ${col('html br')} ${col('script')} ${col('total')}  (bundle)`);
  for (const p of pages) {
    const total = p.html + p.bundle;
    console.log(`${p.name.padEnd(18)} ${col(p.html)} ${col(p.bundle)} ${col(total)}  ${p.src.replace(/^.*\//, '')}`);
    if (total > PAGE_BUDGET) {
      console.error(`${p.name} and its bundle are ${total} bytes as sent in brotli, over the ${PAGE_BUDGET}-byte budget`);
      over = true;
    }
  }
  if (over) process.exit(1);
}
