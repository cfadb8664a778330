#!/usr/bin/env node
// Stands in for `panecast serve` with the mock server, to check the
// end-to-end suite itself before the real server exists:
//   PANECAST_BIN=tests/browser/lib/mock-bin.mjs node --test tests/browser/e2e.test.mjs
import { startMock, TOKEN } from './mock-server.mjs';
import { WEB } from './harness.mjs';

const i = process.argv.indexOf('--listen');
const port = i > 0 ? Number(process.argv[i + 1].split(':')[1]) : 0;
const mock = await startMock({ webDir: WEB, port });
console.log(`panecast (mock) listening: ${mock.base}/?token=${TOKEN}`);
process.on('SIGTERM', () => process.exit(0));
