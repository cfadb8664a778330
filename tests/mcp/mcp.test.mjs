// The MCP end-to-end test: the official MCP client SDK (@modelcontextprotocol/sdk,
// locked in tests/mcp/package-lock.json) plays an agent against a real
// panecast server started with a view-only key besides the admin token.
// Run: PANECAST_BIN=target/debug/panecast node --test tests/mcp/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { missing, startServer, TOKEN } from '../browser/lib/server.mjs';

const VIEW_KEY = 'mcp-view-key-0123456789';
// The system's python: a server run as root gives sessions their own uids,
// which cannot read a python under /root (pyenv's, for one).
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const TOOLS = ['end_session', 'list_sessions', 'read_screen', 'read_scrollback', 'search', 'start_session', 'type', 'wait_for'];

let server;
let dir;

before(async () => {
  if (missing()) return;
  dir = mkdtempSync(join(tmpdir(), 'panecast-mcp-'));
  const config = join(dir, 'panecast.toml');
  const sha256 = createHash('sha256').update(VIEW_KEY).digest('hex');
  writeFileSync(config, `[[keys]]\nname = "watcher"\nsha256 = "${sha256}"\nrole = "view"\n`);
  server = await startServer(['--config', config]);
});

after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** An MCP client connected to the server's /mcp with `token`. */
async function connect(token) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'panecast-test-agent', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The API error body a tool error carries. */
function refusal(result) {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result)}`);
  return JSON.parse(result.content[0].text);
}

/** A successful result's JSON. */
function answer(result) {
  assert.notEqual(result.isError, true, `tool error: ${JSON.stringify(result)}`);
  return result.structuredContent ?? JSON.parse(result.content[0].text);
}

test('an agent starts python, types 6*7, waits for 42, reads the screen and ends the session', { skip: missing() || false }, async () => {
  const agent = await connect(TOKEN);
  const { tools } = await agent.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
  for (const tool of tools) {
    assert.ok(tool.description.length > 40, `${tool.name} has a description`);
    assert.equal(tool.inputSchema.type, 'object', `${tool.name} has an object schema`);
  }
  const typeTool = tools.find((t) => t.name === 'type');
  assert.deepEqual(Object.keys(typeTool.inputSchema.properties).sort(), ['keys', 'session', 'text']);

  const started = answer(await agent.callTool({ name: 'start_session', arguments: { command: [PYTHON, '-q'], name: 'py' } }));
  assert.match(started.id, /^[0-9a-f]{32}$/);
  assert.equal(started.name, 'py');
  const listed = answer(await agent.callTool({ name: 'list_sessions', arguments: {} }));
  assert.ok(listed.sessions.some((s) => s.id === started.id));

  // The prompt first, so that the keys reach python and not its start-up.
  answer(await agent.callTool({ name: 'wait_for', arguments: { session: 'py', text: '>>> ', timeout_ms: 10000 } }));
  const typed = answer(await agent.callTool({ name: 'type', arguments: { session: 'py', text: '6*7' } }));
  answer(await agent.callTool({ name: 'type', arguments: { session: 'py', keys: ['Enter'] } }));
  const waited = answer(await agent.callTool({
    name: 'wait_for', arguments: { session: 'py', text: '42', after: typed.revision, timeout_ms: 10000 },
  }));
  assert.equal(waited.matched, 'text');

  const screen = await agent.callTool({ name: 'read_screen', arguments: { session: started.id } });
  const text = screen.content[0].text;
  assert.match(text, /^>>> 6\*7$/m);
  assert.match(text, /^42$/m);
  // The cursor waits after the next prompt, marked.
  assert.match(text, /^>>> █$/m);
  const json = answer(await agent.callTool({ name: 'read_screen', arguments: { session: 'py', format: 'json' } }));
  assert.ok(json.lines.includes('42'));
  assert.equal(json.lines[json.cursor.row].slice(0, json.cursor.col), '>>> ');

  const found = answer(await agent.callTool({ name: 'search', arguments: { session: 'py', pattern: '6*7' } }));
  assert.equal(found.matches.length, 1);

  const ended = answer(await agent.callTool({ name: 'end_session', arguments: { session: 'py' } }));
  assert.equal(ended.id, started.id);
  const gone = refusal(await agent.callTool({ name: 'read_screen', arguments: { session: 'py' } }));
  assert.equal(gone.code, 'session_not_found');
  await agent.close();
});

test('a view-only key reads but cannot type, start or end: tool errors with the API code', { skip: missing() || false }, async () => {
  const admin = await connect(TOKEN);
  const started = answer(await admin.callTool({ name: 'start_session', arguments: { command: ['cat'], name: 'watched' } }));
  const viewer = await connect(VIEW_KEY);
  // The tool list is the same: the role decides at the call.
  assert.deepEqual((await viewer.listTools()).tools.map((t) => t.name).sort(), TOOLS);
  const typed = refusal(await viewer.callTool({ name: 'type', arguments: { session: 'watched', text: 'hello' } }));
  assert.equal(typed.code, 'forbidden');
  const ended = refusal(await viewer.callTool({ name: 'end_session', arguments: { session: started.id } }));
  assert.equal(ended.code, 'forbidden');
  const start = refusal(await viewer.callTool({ name: 'start_session', arguments: { command: ['cat'] } }));
  assert.equal(start.code, 'forbidden');
  // It still reads, over the same connection.
  const screen = await viewer.callTool({ name: 'read_screen', arguments: { session: 'watched' } });
  assert.notEqual(screen.isError, true);
  const missingSession = refusal(await viewer.callTool({ name: 'read_screen', arguments: { session: 'no-such-session' } }));
  assert.equal(missingSession.code, 'session_not_found');
  answer(await admin.callTool({ name: 'end_session', arguments: { session: started.id } }));
  await viewer.close();
  await admin.close();
});

test('a wait that times out is a tool error wait_timeout, and the connection goes on', { skip: missing() || false }, async () => {
  const agent = await connect(TOKEN);
  const started = answer(await agent.callTool({ name: 'start_session', arguments: { command: ['cat'] } }));
  const waited = refusal(await agent.callTool({
    name: 'wait_for', arguments: { session: started.id, text: 'never printed', timeout_ms: 300 },
  }));
  assert.equal(waited.code, 'wait_timeout');
  // As the HTTP 408: the screen at the time-out and its revision.
  assert.equal(typeof waited.revision, 'number');
  assert.ok(Array.isArray(waited.screen.lines));
  // The same client, the same transport: the next calls work.
  const listed = answer(await agent.callTool({ name: 'list_sessions', arguments: {} }));
  assert.ok(listed.sessions.some((s) => s.id === started.id));
  answer(await agent.callTool({ name: 'end_session', arguments: { session: started.id } }));
  await agent.close();
});

test('without a credential /mcp answers 401, and the client fails to connect', { skip: missing() || false }, async () => {
  const r = await fetch(`${server.base}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.equal(r.status, 401);
  assert.equal((await r.json()).code, 'unauthorized');
  await assert.rejects(connect('not-a-valid-token'));
});
