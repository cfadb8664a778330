// The test-side encoder (used by the mock server) and client decoder against
// the same vectors, so the mock speaks exactly the protocol.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encoders, decodeClient } from '../lib/wire.mjs';
import { loadVectors, canon } from './vectors.mjs';
import { inflate } from '../../../web/decode.js';

for (const v of loadVectors()) {
  if (v.direction === 'server_to_client') {
    test(`mock encoder reproduces ${v.name}`, async () => {
      let msg = v.message;
      if (v.type === 'frame') msg = { ...msg, lines: msg.lines.map((l) => ({ row: l.row, line: l.line })) };
      // The mock server sends frames plain: a compressed one's plain form.
      const bin = await inflate(v.bin);
      assert.equal(Buffer.from(encoders[v.type](msg)).toString('hex'), Buffer.from(bin).toString('hex'));
    });
  } else {
    test(`test decoder reads ${v.name}`, () => {
      const m = decodeClient(v.bin);
      assert.equal(m.type, v.type);
      delete m.type;
      assert.deepStrictEqual(canon(m), canon(v.message));
    });
  }
}
