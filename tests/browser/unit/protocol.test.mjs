// The web client's decoder and encoder against proto/vectors and PROTOCOL.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decode, inflate } from '../../../web/decode.js';
import {
  encodeKey, encodeText, encodePaste, encodeMouse, encodeResize,
  encodeScrollbackRequest, encodeFocus, encodePing, encodeReceived, encodeTheme, encodeTakeControl, encodeReplay, splitUtf8,
} from '../../../web/encode.js';
import { ProtocolError } from '../../../web/protocol.js';
import { MOD, KEY_EVENT, MSG, KEYS, ATTR, MODE, CLOSE } from '../../../web/protocol.js';
import { loadVectors, messageJson, canon } from './vectors.mjs';

const vectors = loadVectors();
const s2c = vectors.filter((v) => v.direction === 'server_to_client');
const c2s = vectors.filter((v) => v.direction === 'client_to_server');

test('the vectors are all there', () => {
  assert.ok(s2c.length >= 17, `server vectors: ${s2c.length}`);
  assert.ok(c2s.length >= 15, `client vectors: ${c2s.length}`);
  for (const v of vectors) {
    assert.equal(v.bin.length, v.size, v.name);
    assert.equal(v.bin[0], v.type_byte, v.name);
  }
});

for (const v of s2c) {
  test(`decode ${v.name}`, async () => {
    const m = decode(await inflate(v.bin));
    assert.equal(m.type, v.type);
    assert.deepStrictEqual(canon(messageJson(m)), canon(v.message));
  });
  if (v.type_byte === 0x0f) {
    // A byte after the DEFLATE stream's final block is not tested here:
    // DecompressionStream ignores it in some runtimes (PROTOCOL.md says so).
    test(`inflate ${v.name}: every truncation and a wrong length are rejected`, async () => {
      for (let n = 1; n < v.bin.length; n++) {
        await assert.rejects(async () => decode(await inflate(v.bin.subarray(0, n))), `${v.name} cut at ${n}`);
      }
      const lying = v.bin.slice();
      lying[2]++; // the inflated length's first byte (after the type and a one-byte seq)
      await assert.rejects(inflate(lying), /compressed frame length/);
    });
    continue;
  }
  test(`decode ${v.name}: every truncation and a trailing byte are rejected`, () => {
    for (let n = 1; n < v.bin.length; n++) {
      assert.throws(() => decode(v.bin.subarray(0, n)), ProtocolError, `${v.name} cut at ${n}`);
    }
    const longer = new Uint8Array(v.bin.length + 1);
    longer.set(v.bin);
    assert.throws(() => decode(longer), /trailing/);
  });
}

const KEY_EVENTS = [];
KEY_EVENTS[KEY_EVENT.PRESS] = 'press';
KEY_EVENTS[KEY_EVENT.REPEAT] = 'repeat';
KEY_EVENTS[KEY_EVENT.RELEASE] = 'release';
const MODS = { shift: MOD.SHIFT, alt: MOD.ALT, ctrl: MOD.CTRL, meta: MOD.META };
const modBits = (list) => list.reduce((a, m) => a | MODS[m], 0);

function encodeJson(type, m) {
  switch (type) {
    case 'key': return encodeKey(m.key.named ?? { char: m.key.char }, modBits(m.mods), KEY_EVENTS.indexOf(m.event));
    case 'text': return encodeText(m.text);
    case 'paste': return encodePaste(m.text);
    case 'mouse': return encodeMouse(m.kind, m.button, modBits(m.mods), m.row, m.col);
    case 'resize': return encodeResize(m.cols, m.rows);
    case 'scrollback_request': return encodeScrollbackRequest(BigInt(m.start), m.count);
    case 'focus': return encodeFocus(m.focused);
    case 'ping': return encodePing(BigInt(m.token));
    case 'received': return encodeReceived(BigInt(m.bytes));
    case 'theme': return encodeTheme(m.theme);
    case 'take_control': return encodeTakeControl();
    case 'replay_play': return encodeReplay('play');
    case 'replay_pause': return encodeReplay('pause');
    case 'replay_speed': return encodeReplay('speed', m.speed);
    case 'replay_seek': return encodeReplay('seek', BigInt(m.ms));
    case 'replay_marker': return encodeReplay('marker', m.forward);
    default: throw new Error('no encoder for ' + type);
  }
}

for (const v of c2s) {
  test(`encode ${v.name}`, () => {
    assert.deepStrictEqual(Buffer.from(encodeJson(v.type, v.message)).toString('hex'), Buffer.from(v.bin).toString('hex'));
  });
}

test('every client message type has a vector', () => {
  const types = new Set(c2s.map((v) => v.type));
  for (const t of ['key', 'text', 'paste', 'mouse', 'resize', 'scrollback_request', 'focus', 'ping', 'received', 'theme', 'take_control',
    'replay_play', 'replay_pause', 'replay_speed', 'replay_seek', 'replay_marker']) {
    assert.ok(types.has(t), t);
  }
});

test('replay controls check their range; a replay state past its end is refused', () => {
  assert.throws(() => encodeReplay('speed', 49), RangeError);
  assert.throws(() => encodeReplay('speed', 801), RangeError);
  assert.deepStrictEqual([...encodeReplay('seek', 300)], [0x8d, 0xac, 0x02]);
  assert.throws(() => decode(Uint8Array.from([0x0b, 0, 100, 5, 6, 0, 0])), /position past the end/);
  assert.throws(() => decode(Uint8Array.from([0x0b, 2, 100, 5, 1, 0, 0])), /reserved bits/);
  assert.throws(() => decode(Uint8Array.from([0x0b, 0, 10, 5, 1, 0, 0])), ProtocolError);
  assert.equal(decode(Uint8Array.from([0x0b, 1, 100, 5, 1, 1, 0x41, 0])).title, 'A');
});

test('PROTOCOL.md examples', () => {
  assert.equal(Buffer.from(encodeKey({ char: 'c' }, MOD.CTRL)).toString('hex'), '81006304');
  assert.equal(Buffer.from(encodeKey('Enter')).toString('hex'), '810100');
  assert.equal(Buffer.from(encodeMouse('press', 'left', 0, 5, 200)).toString('hex'), '84000100 05c801'.replace(' ', ''));
  assert.equal(Buffer.from(encodeKey('F1')).toString('hex'), '812000');
  assert.equal(Buffer.from(encodeKey('F24')).toString('hex'), '813700');
  assert.equal(Buffer.from(encodeKey('Kp9')).toString('hex'), '814900');
  assert.deepEqual([...['dark', 'light', 'contrast', 'solarized', 'xterm', 'unknown'].map(encodeTheme)].map((b) => Buffer.from(b).toString('hex')), ['8900', '8901', '8902', '8903', '8904', '8900']);
  const hello = decode(Uint8Array.from([0x01, 0x01, 0x00, 0x01, 0x50, 0x18, 0x02, 0x61, 0x62]));
  assert.deepStrictEqual(hello, { type: 'hello', version: 1, role: 'control', cols: 80, rows: 24, sessionId: 'ab' });
  assert.deepStrictEqual(decode(Uint8Array.from([0x05, 0x01, 0x02])), { type: 'exit', code: 1 });
  assert.deepStrictEqual(decode(Uint8Array.from([0x05, 0x00])), { type: 'exit', code: null });
  assert.deepStrictEqual(decode(Uint8Array.from([0x05, 0x01, 0x01])), { type: 'exit', code: -1 });
  assert.deepStrictEqual(decode(Uint8Array.from([0x05, 0x01, 0xfe, 0xff, 0xff, 0xff, 0x0f])), { type: 'exit', code: 2147483647 });
  assert.deepStrictEqual(decode(Uint8Array.from([0x05, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f])), { type: 'exit', code: -2147483648 });
});

// A frame around one line, cols x 1 rows (scroll, scrollback, pushed and kept 0).
function frameWith(cols, lineBytes, { rows = 1 } = {}) {
  return Uint8Array.from([0x03, 0x00, cols, rows, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, ...lineBytes]);
}

test('line examples from PROTOCOL.md lay out to cells', () => {
  const hi = decode(frameWith(5, [0x00, 0x02, 0x68, 0x69, 0x00])).lines[0].line;
  assert.deepStrictEqual(hi.text, ['h', 'i', ' ', ' ', ' ']);
  assert.deepStrictEqual([...hi.width], [1, 1, 1, 1, 1]);
  const abc = decode(frameWith(4, [0x01, 0x03, 0x61, 0x62, 0x63, 0x02, 0x05, 0x02, 0x07])).lines[0].line;
  assert.equal(abc.wrapped, true);
  assert.deepStrictEqual([...abc.style], [5, 5, 7, 0]);
  const x = decode(frameWith(4, [0x08, 0x01, 0x78, 0x01, 0x03, 0x03])).lines[0].line;
  assert.deepStrictEqual([...x.style], [3, 3, 3, 3]);
  assert.equal(x.fill, 3);
  const empty = decode(frameWith(3, [0x00, 0x00, 0x00])).lines[0].line;
  assert.equal(empty.columns, 0);
  assert.deepStrictEqual(empty.text, [' ', ' ', ' ']);
});

test('wide cells get a spacer column', () => {
  // "你x": wide run (0,1).
  const l = decode(frameWith(4, [0x02, 0x04, 0xe4, 0xbd, 0xa0, 0x78, 0x01, 0x00, 0x01, 0x00])).lines[0].line;
  assert.deepStrictEqual(l.text, ['你', '', 'x', ' ']);
  assert.deepStrictEqual([...l.width], [2, 0, 1, 1]);
  assert.equal(l.columns, 3);
});

function rejects(bytes, code, re) {
  assert.throws(() => decode(Uint8Array.from(bytes)), (e) => {
    assert.ok(e instanceof ProtocolError, String(e));
    assert.equal(e.code, code, e.message);
    if (re) assert.match(e.message, re);
    return true;
  });
}

test('malformed messages are rejected with the right close code', () => {
  rejects([], 1002);
  rejects([0x00], 1002);
  rejects([0x81, 0x01, 0x00], 1002); // a client message type
  rejects([0x08, 0x80, 0x00], 1002, /overlong/);
  rejects([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], 1002, /overflow/);
  rejects([0x06, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00], 1002, /overflow/);
  rejects([0x06, 0x80, 0x80, 0x04, 0x00], 1002, /range/); // code 65536
  rejects([0x06, 0x01, 0x02, 0xc3, 0x28], 1002, /UTF-8/);
  rejects([0x06, 0x01, 0x03, 0xed, 0xa0, 0x80], 1002, /UTF-8/); // a surrogate
  rejects([0x06, 0x01, 0x81, 0x08, ...new Array(1025).fill(0x61)], 1009);
  rejects([0x05, 0x02], 1002, /reserved/);
  rejects([0x04, 0x00], 1002, /trailing/);
  rejects([0x01, 0x01, 0x00, 0x02, 0x50, 0x18, 0x00], 1002, /role/);
  rejects([0x01, 0x01, 0x00, 0x01, 0x00, 0x18, 0x00], 1002, /cols/);
  rejects([0x02, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], 1002, /id 0/);
  rejects([0x02, 0x00, 0x00, 0x01, 0x01, 0x00, 0x06, 0x00, 0x00, 0x00], 1002, /underline/);
  rejects([0x02, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x03, 0x00, 0x00], 1002, /colour/);
  rejects([0x02, 0x02, 0x00, 0x00], 1002, /reserved/);
  // Frame header checks: cursor shape 3, reserved mode bits, mouse mode 5, scroll on a full frame.
  rejects([0x03, 0x00, 0x05, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00], 1002, /shape/);
  rejects([0x03, 0x00, 0x05, 0x01, 0x00, 0x04, 0x00, 0x00, 0x80, 0x20, 0x00, 0x00], 1002, /mode/);
  rejects([0x03, 0x00, 0x05, 0x01, 0x00, 0x04, 0x00, 0x00, 0x80, 0x05, 0x00, 0x00], 1002, /mouse/);
  rejects([0x03, 0x00, 0x05, 0x01, 0x01, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00], 1002, /scroll/);
  rejects([0x03, 0x00, 0x05, 0x01, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00], 1002, /cursor row/);
  // pushed on a full frame; kept over pushed; kept over rows (pushed 3, kept 2, one row).
  rejects([0x03, 0x00, 0x05, 0x01, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00], 1002, /pushed/);
  rejects([0x03, 0x00, 0x05, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00], 1002, /kept/);
  rejects([0x03, 0x00, 0x05, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x02, 0x00], 1002, /kept/);
  rejects([0x03, 0x00, 0x05, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], 1009, /lines/);
  rejects([0x03, 0x00, 0x05, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], 1002, /order/);
  // Lines.
  rejects(frameWith(3, [0x00, 0x04, 0x61, 0x62, 0x63, 0x64, 0x00]), 1002, /wider/);
  rejects(frameWith(2, [0x02, 0x02, 0x61, 0x62, 0x01, 0x01, 0x01, 0x00]), 1002, /wider/); // wide cell's spacer off the edge
  rejects(frameWith(5, [0x04, 0x02, 0x61, 0x62, 0x01, 0x01, 0x02, 0x00]), 1002, /cluster/); // cluster past the text
  rejects(frameWith(5, [0x02, 0x02, 0x61, 0x62, 0x01, 0x03, 0x01, 0x00]), 1002, /wide/); // wide past the text
  rejects(frameWith(5, [0x06, 0x03, 0x61, 0x62, 0x63, 0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x00]), 1002, /cluster/); // cluster on a spacer
  rejects(frameWith(5, [0x02, 0x00, 0x00, 0x00]), 1002, /empty wide/);
  rejects(frameWith(5, [0x00, 0x02, 0x61, 0x62, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03]), 1002, /runs/);
  rejects(frameWith(5, [0x00, 0x02, 0x61, 0x62, 0x02, 0x01, 0x02, 0x03]), 1002, /run/);
  rejects(frameWith(5, [0x00, 0x02, 0x61, 0x62, 0x02, 0x01, 0x00, 0x03]), 1002, /run length/);
  rejects(frameWith(5, [0x20, 0x00, 0x00]), 1002, /reserved/);
  const piece = (col, cols, w) => [0x10, 0x00, 0x00, 0x01, ...Array(16).fill(7), 0x01, col, cols, 0x00, 0x00, w, 0x10];
  rejects(frameWith(5, piece(3, 3, 0x20)), 1002, /image cols/);
  rejects(frameWith(5, piece(5, 1, 0x20)), 1002, /image col/);
  rejects(frameWith(5, piece(0, 1, 0)), 1002, /image w/);
  rejects(frameWith(5, [0x10, 0x00, 0x00, 0x00]), 1002, /empty image/);
  rejects([0x0e, ...Array(16).fill(1), 0x00, 0x01, 0x00], 1002, /image width/);
  rejects([0x07, 0x00, 0x00, 0x50, 0x00], 1002, /start/);
});

test('unknown server types are skipped, other versions report only the version', () => {
  assert.deepStrictEqual(decode(Uint8Array.from([0x42, 1, 2, 3])), { type: 'unknown', typeByte: 0x42 });
  assert.deepStrictEqual(decode(Uint8Array.from([0x01, 0x02, 0x00, 0xff])), { type: 'hello', version: 2 });
});

test('styles: reset, ids, a link', () => {
  const m = decode(Uint8Array.from([0x02, 0x01, 0x07, 0x01, 0x09, 0x81, 0x01, 0x02, 0x01, 0x02, 0x03, 0x00, 0x00, 0x01, 0x78]));
  assert.equal(m.reset, true);
  assert.equal(m.epoch, 7);
  assert.deepStrictEqual(m.defs, [{ id: 9, style: { attrs: 1, underline: 1, fg: 0x1010203, bg: -1, ul: -1, link: 'x' } }]);
});

test('encoders check their ranges', () => {
  assert.throws(() => encodeKey('Nope'), RangeError);
  assert.throws(() => encodeKey({ char: 'ab' }), RangeError);
  assert.throws(() => encodeKey({ char: '\ud800' }), RangeError);
  assert.equal(Buffer.from(encodeKey({ char: '😀' })).toString('hex'), '8100' + '80ec07' + '00');
  assert.throws(() => encodeResize(0, 10), RangeError);
  assert.throws(() => encodeResize(1001, 10), RangeError);
  assert.throws(() => encodeMouse('press', 'left', 0, 1000, 0), RangeError);
  assert.throws(() => encodeScrollbackRequest(0n, 10), RangeError);
  assert.throws(() => encodeScrollbackRequest(1n, 1001), RangeError);
  assert.throws(() => encodeText('x'.repeat(65537)), RangeError);
  assert.equal(encodeText('x'.repeat(65536)).length, 65536 + 4);
  assert.equal(Buffer.from(encodePing(2n ** 64n - 1n)).toString('hex'), '88ffffffffffffffffff01');
  assert.throws(() => encodePing(2n ** 64n), RangeError);
});

test('splitUtf8 keeps codepoints whole and pieces within the limit', () => {
  assert.deepStrictEqual(splitUtf8('', 4), ['']);
  assert.deepStrictEqual(splitUtf8('abcdef', 4), ['abcd', 'ef']);
  assert.deepStrictEqual(splitUtf8('aé😀b', 4), ['aé', '😀', 'b']);
  const big = '日本語'.repeat(50000);
  const parts = splitUtf8(big);
  assert.equal(parts.join(''), big);
  for (const p of parts) assert.ok(Buffer.byteLength(p) <= 65536);
  assert.ok(parts.length >= 7);
});

test('the generated constants expand their runs to the values PROTOCOL.md gives', () => {
  assert.equal(MSG.HELLO, 0x01);
  assert.equal(MSG.DEFLATED_FRAME, 0x0f);
  assert.equal(MSG.TAKE_CONTROL, 0x8f);
  assert.equal(KEYS.F24, 0x37);
  assert.equal(KEYS.MetaRight, 0x67);
  assert.equal(ATTR.STRIKE, 64);
  assert.equal(ATTR.LINK, 0x80);
  assert.equal(MODE.reverseVideo, 64);
  assert.equal(MODE.keyAll, 2048);
  assert.equal(CLOSE.TOO_MANY_VIEWERS, 4029);
  assert.equal(KEY_EVENT.RELEASE, 2);
  assert.ok(Object.isFrozen(MSG) && Object.isFrozen(KEYS));
});
