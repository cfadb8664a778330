// Soft keyboards, in Chromium against the mock server: the event sequences
// Android's Gboard and iOS send (composition per word, keyCode 229 keydowns,
// beforeinput/input pairs, deletes) are replayed on the terminal's textarea,
// and what reached the session must be each character exactly once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, waitFor, WEB } from '../lib/harness.mjs';
import { startMock, TOKEN } from '../lib/mock-server.mjs';

let mock, browser;
before(async () => {
  mock = await startMock({ webDir: WEB });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await mock?.close();
});

async function open(s) {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 700 }, isMobile: true, hasTouch: true });
  const page = await ctx.newPage();
  await page.goto(`${mock.base}/s/${s.id}?token=${TOKEN}`);
  await waitFor(() => page.evaluate(() => window.panecast && window.panecast.status === 'connected'), { what: 'connected' });
  await page.evaluate(() => window.panecast.focus());
  return page;
}

/** Replays [kind, args] events on the textarea: key (keydown 229), start, update, end, input. */
const replay = (page, events) => page.evaluate((events) => {
  const ta = document.querySelector('panecast-terminal').shadowRoot.querySelector('textarea');
  for (const [kind, a = {}] of events) {
    if (kind === 'key') ta.dispatchEvent(new KeyboardEvent('keydown', { key: a.key || 'Unidentified', keyCode: 229, bubbles: true, cancelable: true }));
    else if (kind === 'input') {
      const init = { inputType: a.type, data: a.data ?? null, isComposing: !!a.composing, bubbles: true, cancelable: true };
      if (ta.dispatchEvent(new InputEvent('beforeinput', init))) ta.dispatchEvent(new InputEvent('input', init));
    } else ta.dispatchEvent(new CompositionEvent('composition' + kind, { data: a.data ?? '', bubbles: true }));
  }
}, events);

const sent = (s) => s.received.filter((m) => m.type === 'text' || m.type === 'key').map((m) => (m.type === 'text' ? m.text : `<${m.key.named || m.key.char}>`)).join('');

/** Gboard: each word is composed; the word is committed at the space. */
const gboardWord = (word) => [
  ['start'],
  ...[...word].flatMap((_, i) => [['key'], ['update', { data: word.slice(0, i + 1) }], ['input', { type: 'insertCompositionText', data: word.slice(0, i + 1), composing: true }]]),
  ['end', { data: word }],
  ['key'], ['input', { type: 'insertText', data: ' ' }],
];

test('Gboard: composed words and spaces arrive once each', async () => {
  const s = mock.create();
  const page = await open(s);
  await replay(page, [...gboardWord('hello'), ...gboardWord('world')]);
  await waitFor(() => sent(s) === 'hello world ', { what: `"hello world " sent (got ${JSON.stringify(sent(s))})` });
  await page.context().close();
});

test('iOS: typed characters and an autocorrected word arrive once each', async () => {
  const s = mock.create();
  const page = await open(s);
  // iOS types plain characters as insertText; a predictive-text word comes as one insertText too.
  await replay(page, [['key', { key: 'h' }], ['input', { type: 'insertText', data: 'h' }], ['key', { key: 'i' }], ['input', { type: 'insertText', data: 'i' }],
    ['input', { type: 'insertText', data: ' there' }], ['input', { type: 'insertLineBreak' }]]);
  await waitFor(() => sent(s) === 'hi there<Enter>', { what: `"hi there" and Enter sent (got ${JSON.stringify(sent(s))})` });
  await page.context().close();
});

test('Gboard backspace (keyCode 229 and deleteContentBackward) reaches the program', async () => {
  const s = mock.create();
  const page = await open(s);
  await replay(page, [...gboardWord('ab'), ['key'], ['input', { type: 'deleteContentBackward' }]]);
  await waitFor(() => sent(s) === 'ab <Backspace>', { what: `Backspace sent (got ${JSON.stringify(sent(s))})` });
  await page.context().close();
});
