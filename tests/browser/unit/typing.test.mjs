// Predictive echo (web/predict.js) and numbered input (web/outbox.js,
// web/typing.js) against a model screen: what shows, when, and what never does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Predictor, keyEffect, predictable } from '../../../web/predict.js';
import { Outbox, clientId, HELD_MESSAGES } from '../../../web/outbox.js';
import { Typing } from '../../../web/typing.js';
import { Screen, blankLine } from '../../../web/screen.js';

/** A screen of `rows` lines of text, the cursor at (row, col). */
function screen(rows, cursor) {
  const s = new Screen();
  s.resize(20, rows.length);
  rows.forEach((t, r) => {
    const line = blankLine(20);
    [...t].forEach((ch, c) => { line.text[c] = ch; });
    s.lines[r] = line;
  });
  s.cursor = { row: cursor[0], col: cursor[1], visible: true, shape: 'block', blink: false };
  return s;
}

/** What a program that echoes does with `keys` typed at the cursor (insert, Backspace, arrows). */
function echo(s, keys) {
  for (const k of keys) {
    const line = s.lines[s.cursor.row].text, c = s.cursor.col;
    if (k === 'backspace') {
      line.splice(c - 1, 1);
      line.push(' ');
      s.cursor.col--;
    } else if (k === 'left') s.cursor.col--;
    else if (k === 'right') s.cursor.col++;
    else {
      line.splice(c, 0, k);
      line.pop();
      s.cursor.col++;
    }
  }
}

/** The text row `r` shows with the predictions shown. */
function shown(p, s, r) {
  const text = s.lines[r].text.slice();
  for (const cell of p.shownOn(r)) text[cell.col] = cell.ch;
  return text.join('').trimEnd();
}

function slowLink() {
  const p = new Predictor();
  p.rtt(150);
  return p;
}

test('keys: what they do to the line', () => {
  assert.deepEqual(keyEffect({ char: 'a' }, 0), { char: 'a' });
  assert.equal(keyEffect({ char: 'c' }, 4), 'other', 'Ctrl-C');
  assert.equal(keyEffect('Backspace', 0), 'backspace');
  assert.equal(keyEffect('Left', 0), 'left');
  assert.equal(keyEffect('Right', 1), 'other', 'Shift-Right selects in some programs');
  assert.equal(keyEffect('Enter', 0), 'other');
  assert.ok(predictable('é') && predictable('x') && predictable(' '));
  assert.ok(!predictable('中') && !predictable('\t') && !predictable('ab') && !predictable('\u0301'));
});

test("an epoch's first key waits for its echo; the rest then show at once", () => {
  const p = slowLink();
  const s = screen(['$ '], [0, 2]);
  p.input(1, { char: 'l' }, s);
  assert.equal(shown(p, s, 0), '$', 'the first waits');
  p.input(2, { char: 's' }, s);
  assert.equal(shown(p, s, 0), '$');
  echo(s, ['l']);
  p.judge(1, s);
  assert.equal(shown(p, s, 0), '$ ls', 'confirmed: the rest shows');
  p.input(3, { char: ' ' }, s);
  p.input(4, { char: '-' }, s);
  assert.equal(shown(p, s, 0), '$ ls -', 'typed after: shown at once');
  assert.deepEqual(p.shownCursor() && [p.shownCursor().row, p.shownCursor().col], [0, 6]);
  echo(s, ['s', ' ', '-']);
  p.judge(4, s);
  assert.equal(p.cells.size, 0);
  assert.equal(p.stats.wrong, 0);
  assert.equal(p.stats.predicted, 4);
});

test('a program that does not echo never shows a prediction (a remote password prompt)', () => {
  const p = slowLink();
  const s = screen(['Password: '], [0, 10]);
  let seq = 0;
  for (const ch of 'hunter2 secret') {
    p.input(++seq, { char: ch }, s);
    assert.equal(shown(p, s, 0), 'Password:', `after ${ch}`);
    // The server judges each as its echo time passes; nothing was echoed.
    p.judge(seq, s);
    assert.equal(shown(p, s, 0), 'Password:');
  }
  assert.equal(p.confirmed, 0, 'no epoch was ever confirmed');
});

test('typing faster than the round trip at a silent prompt shows nothing either', () => {
  const p = slowLink();
  const s = screen(['Password: '], [0, 10]);
  for (let seq = 1; seq <= 8; seq++) p.input(seq, { char: 'abcdefgh'[seq - 1] }, s);
  assert.equal(shown(p, s, 0), 'Password:');
  p.judge(8, s);
  assert.equal(shown(p, s, 0), 'Password:');
  assert.equal(p.stats.wrong, 8, 'each was judged wrong');
});

test('a space over a blank proves nothing: it confirms no epoch', () => {
  const p = slowLink();
  const s = screen(['> '], [0, 2]);
  p.input(1, { char: ' ' }, s);
  p.input(2, { char: 'x' }, s);
  // The program moved its cursor but printed nothing.
  s.cursor.col = 3;
  p.judge(1, s);
  assert.equal(p.confirmed, 0);
  assert.equal(shown(p, s, 0), '>', 'the x is not shown');
});

test('a canonical terminal without echo predicts nothing; the profile can bar it too', () => {
  const p = slowLink();
  const s = screen(['$ '], [0, 2]);
  p.input(1, { char: 'a' }, s);
  echo(s, ['a']);
  p.judge(1, s);
  p.setEcho({ known: true, echo: false, canonical: true, barred: false });
  p.input(2, { char: 'b' }, s);
  assert.equal(p.cells.size, 0, 'read -s: nothing predicted');
  p.setEcho({ known: true, echo: true, canonical: true, barred: true });
  p.input(3, { char: 'c' }, s);
  assert.equal(p.cells.size, 0, 'predict = false');
});

test('Enter and control keys begin an epoch whose first key waits again', () => {
  const p = slowLink();
  const s = screen(['$ ', ''], [0, 2]);
  p.input(1, { char: 'a' }, s);
  echo(s, ['a']);
  p.judge(1, s);
  p.input(2, 'other', s); // Enter
  p.input(3, { char: 'b' }, s);
  assert.equal(p.cells.size, 0, 'not predicted before the Enter is judged');
  s.cursor = { ...s.cursor, row: 1, col: 0 };
  p.judge(3, s);
  p.input(4, { char: 'c' }, s);
  assert.equal(shown(p, s, 1), '', 'a new epoch: hidden until echoed');
  echo(s, ['c']);
  p.judge(4, s);
  p.input(5, { char: 'd' }, s);
  assert.equal(shown(p, s, 1), 'cd');
});

test('a wrong prediction is erased at once, and the next epoch waits', () => {
  const p = slowLink();
  const s = screen(['$ '], [0, 2]);
  p.input(1, { char: 'a' }, s);
  echo(s, ['a']);
  p.judge(1, s);
  p.input(2, { char: 'b' }, s);
  assert.equal(shown(p, s, 0), '$ ab');
  // The program echoed something else (a completion, a different key map).
  echo(s, ['X']);
  p.judge(2, s, 1000);
  assert.equal(shown(p, s, 0), '$ aX');
  assert.equal(p.stats.wrong, 1);
  assert.equal(p.stats.wrongShown, 1);
  p.input(3, { char: 'c' }, s);
  assert.equal(shown(p, s, 0), '$ aX', 'the next epoch waits for its echo');
});

test('inserting, Backspace and arrows within the typed text', () => {
  const p = slowLink();
  const s = screen(['$ '], [0, 2]);
  const keys = ['e', 'c', 'h', 'o', 'left', 'left', 'X', 'backspace', 'right', 'Y'];
  p.input(1, { char: 'e' }, s);
  echo(s, ['e']);
  p.judge(1, s);
  keys.slice(1).forEach((k, i) => p.input(i + 2, k.length === 1 ? { char: k } : k, s));
  assert.equal(shown(p, s, 0), '$ echYo');
  echo(s, keys.slice(1));
  assert.equal(s.lines[0].text.join('').trimEnd(), '$ echYo', 'the model program agrees');
  p.judge(keys.length, s);
  assert.equal(p.stats.wrong, 0);
  assert.equal(p.cursor, null);
});

test('Backspace and Left stop where typing began (the prompt is not erased)', () => {
  const p = slowLink();
  const s = screen(['$ '], [0, 2]);
  p.input(1, 'backspace', s);
  assert.equal(p.cells.size, 0, 'nothing typed on this line yet');
  s.cursor.col = 2;
  p.judge(1, s);
  p.input(2, { char: 'a' }, s);
  p.input(3, 'backspace', s);
  p.input(4, 'backspace', s);
  assert.equal(p.stats.predicted, 2, 'the second Backspace would erase the prompt');
});

test('predictions hide on a fast link and show on a slow one', () => {
  const p = new Predictor();
  const s = screen(['$ '], [0, 2]);
  p.rtt(2);
  p.input(1, { char: 'a' }, s);
  echo(s, ['a']);
  p.judge(1, s);
  p.input(2, { char: 'b' }, s);
  assert.equal(shown(p, s, 0), '$ a', 'lan: not shown');
  for (let i = 0; i < 40; i++) p.rtt(150);
  assert.equal(shown(p, s, 0), '$ ab', 'slow: shown');
  for (let i = 0; i < 40; i++) p.rtt(25);
  assert.equal(shown(p, s, 0), '$ ab', 'between the thresholds: as it was');
  for (let i = 0; i < 40; i++) p.rtt(5);
  assert.equal(shown(p, s, 0), '$ a');
});

test('the line would wrap, or holds wide characters: not predicted', () => {
  const p = slowLink();
  const s = screen(['$ '], [0, 19]);
  p.input(1, { char: 'a' }, s);
  assert.equal(p.cells.size, 0);
  const wide = screen(['中'], [0, 3]);
  wide.lines[0].width[0] = 2;
  wide.lines[0].width[1] = 0;
  p.judge(1, s);
  p.input(2, { char: 'a' }, wide);
  assert.equal(p.cells.size, 0);
});

test('outbox: numbered, held while down, sent once on resume, bounded', () => {
  const sent = [];
  const box = new Outbox((b) => sent.push(b), 'f'.repeat(32));
  box.opened();
  assert.equal(box.push(new Uint8Array([1])), 1);
  assert.equal(box.push(new Uint8Array([2])), 2);
  assert.equal(sent.length, 2);
  box.acked(1);
  box.closed();
  assert.equal(box.push(new Uint8Array([3])), 3);
  assert.equal(sent.length, 2, 'held while down');
  assert.deepEqual(box.params(), { client: 'f'.repeat(32), input: '2' }, 'the next connection starts at the first unacknowledged');
  box.opened();
  assert.deepEqual(sent.slice(2).map((b) => b[0]), [2, 3], 'sent again in order');
  box.acked(3);
  assert.deepEqual(box.params().input, '4');
  box.closed();
  let dropped = 0;
  for (let i = 0; i < HELD_MESSAGES + 5; i++) if (box.push(new Uint8Array([0])) === null) dropped++;
  assert.equal(dropped, 5, 'past the bound, dropped (and said)');
  assert.equal(box.discard(), HELD_MESSAGES, 'a view connection drops what was held');
  assert.match(clientId(), /^[0-9a-f]{32}$/);
});

test('typing: resumes from the last Sync only while no frame came after it', () => {
  const t = new Typing(() => {});
  t.outbox.opened();
  assert.equal(t.params(true).resume, undefined, 'nothing held yet');
  const s = screen(['$ '], [0, 2]);
  t.sync({ revision: '3.0.0.1.80.24', input: 0n, echo: { known: true, echo: false, canonical: false, barred: false } }, s);
  assert.equal(t.params(true).resume, '3.0.0.1.80.24');
  assert.equal(t.params(false).resume, undefined, 'a screen not held is not resumed');
  t.frame({ full: false, resized: false, scroll: 0, pushed: 0 });
  assert.equal(t.params(true).resume, undefined, 'a frame without its Sync: not resumable');
});

test('typing: the link is quiet once an input waits past a second (or three round trips)', () => {
  const t = new Typing(() => {});
  t.outbox.opened();
  const s = screen(['$ '], [0, 2]);
  t.sync({ revision: '1.0.0.1.80.24', input: 0n, echo: { known: false } }, s);
  t.input(new Uint8Array([0x82, 1, 0x61]), { char: 'a' }, s, 0);
  assert.equal(t.quiet(500), false);
  assert.equal(t.quiet(1001), true);
  t.predictor.rtt(600);
  assert.equal(t.quiet(1001), false, 'a satellite link waits longer');
  t.sync({ revision: '1.0.0.1.80.24', input: 1n, echo: { known: false } }, s);
  assert.equal(t.waiting(5000), 0);
});

test('typing: to a server that sends no Sync, nothing is sent twice and the link never looks quiet', () => {
  const sent = [];
  const t = new Typing((b) => sent.push(b[2]));
  t.outbox.opened();
  const s = screen(['$ '], [0, 2]);
  t.input(new Uint8Array([0x82, 1, 0x61]), { char: 'a' }, s, 0);
  assert.equal(t.quiet(60000), false, 'no acknowledgement is coming');
  t.closed();
  t.input(new Uint8Array([0x82, 1, 0x62]), { char: 'b' }, s, 10);
  t.outbox.opened();
  assert.deepEqual(sent, [0x61, 0x62], 'a was sent once; b, typed while down, once the link was back');
});

test('typing on after the screen moved: predicted again from the new screen, shown once one is echoed', () => {
  const p = slowLink();
  const s = screen(['$ '], [0, 2]);
  p.input(1, { char: 'a' }, s);
  echo(s, ['a']);
  p.judge(1, s);
  p.input(2, { char: 'b' }, s);
  p.input(3, { char: 'c' }, s);
  // A full frame comes (the window was resized): b and c are in flight.
  p.reset(s);
  assert.equal(shown(p, s, 0), '$ a', 'a new epoch: hidden until echoed');
  p.input(4, { char: 'd' }, s);
  echo(s, ['b']);
  p.judge(2, s);
  assert.equal(shown(p, s, 0), '$ abcd', 'b echoed: c and d show, predicted from the new screen');
  echo(s, ['c', 'd']);
  p.judge(4, s);
  assert.equal(p.stats.wrong, 0);
});

test('keys typed before an Enter is judged are predicted once it is, from the screen it made', () => {
  const p = slowLink();
  const s = screen(['$ ', ''], [0, 2]);
  p.input(1, { char: 'x' }, s);
  echo(s, ['x']);
  p.judge(1, s);
  p.input(2, 'other', s); // Enter
  p.input(3, { char: 'y' }, s);
  p.input(4, { char: 'z' }, s);
  assert.equal(p.cells.size, 0, 'not before the Enter is judged');
  s.cursor = { ...s.cursor, row: 1, col: 0 };
  p.judge(2, s);
  assert.equal(p.cells.size, 2, 'y and z predicted on the new line');
  echo(s, ['y']);
  p.judge(3, s);
  assert.equal(shown(p, s, 1), 'yz');
});
