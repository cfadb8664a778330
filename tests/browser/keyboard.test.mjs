// End-to-end: the kitty keyboard protocol. A program turns the flags on and
// prints, in hex, every byte it reads; keys pressed in the page (and sent
// through the HTTP keys API) must reach it exactly as the protocol encodes
// them: Tab apart from Ctrl+I, Escape as CSI 27 u, releases only while the
// program asked for them, and the legacy bytes again once it pops its flags.
import assert from 'node:assert/strict';
import { waitFor } from './lib/harness.mjs';
import { setup, e2e, session, open, finish, input, screenText, env } from './lib/e2e.mjs';

setup();

// Raw mode; a marker line clears the screen after changing the flags:
// READY pushes 3 (disambiguate, event types), PUSH pushes 11 (also all keys
// as escape codes), POP pops both. Anything else read is printed in hex.
const PROGRAM = String.raw`
import os, tty
tty.setraw(0)
def mark(flags, text):
    os.write(1, (flags + '\x1b[2J\x1b[H' + text + '\r\n').encode())
mark('\x1b[>3u', 'READY')
while True:
    data = os.read(0, 4096)
    if not data:
        break
    if data == b'PUSH':
        mark('\x1b[>11u', 'PUSHED')
    elif data == b'POP':
        mark('\x1b[<2u', 'POPPED')
    else:
        os.write(1, (data.hex() + '\r\n').encode())
`;

const hex = (s) => Buffer.from(s, 'latin1').toString('hex');
const CSI = '\x1b[';

/** Every byte the program printed after its last marker, as one hex string. */
async function received(id, marker) {
  const lines = (await screenText(id)).map((l) => l.trim());
  const at = lines.indexOf(marker);
  return at < 0 ? null : lines.slice(at + 1).join('');
}

/** Waits until the program has read exactly `expected` (a byte string) since `marker`. */
async function expectBytes(id, marker, expected, what) {
  let last;
  try {
    await waitFor(async () => (last = await received(id, marker)) === hex(expected), { what });
  } catch {
    assert.equal(last, hex(expected), what);
  }
}

const modes = (page) => page.evaluate(() => window.panecast.screen.modes);
const keys = (id, list) => env.server.api('POST', `/api/sessions/${id}/input`, { keys: list });

e2e('kitty keyboard flags: Tab vs Ctrl+I, Escape, releases and repeats, legacy again after a pop', async () => {
  const id = await session({ command: ['/usr/bin/python3', '-c', PROGRAM], ready: 'READY' });
  const page = await open(id);
  await page.locator('panecast-terminal').click();
  await waitFor(async () => (await modes(page)).keyReleases === true, { what: 'the client told to send releases' });
  assert.equal((await modes(page)).keyAll, false);

  // Flags 1 + 2: Tab stays a tab (no release), Ctrl+I is CSI 105;5u with its
  // release, Escape is CSI 27u, a held 'a' types twice (text) then releases.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+i');
  await page.keyboard.press('Escape');
  await page.keyboard.down('a');
  await page.keyboard.down('a');
  await page.keyboard.up('a');
  let want = '\t' + CSI + '105;5u' + CSI + '105;5:3u' + CSI + '27u' + CSI + '27;1:3u' + 'aa' + CSI + '97;1:3u';
  await expectBytes(id, 'READY', want, 'the browser keys under flags 3');
  // The HTTP keys API under the same flags: presses only.
  await keys(id, ['Tab', 'C-i', 'C-[', 'Escape']);
  want += '\t' + CSI + '105;5u' + CSI + '91;5u' + CSI + '27u';
  await expectBytes(id, 'READY', want, 'the API keys under flags 3');

  // Flags 11: every key is an escape code, plain letters and Shift itself
  // included, and a key held down repeats as :2.
  await input(id, 'PUSH');
  await waitFor(async () => (await modes(page)).keyAll === true, { what: 'the client told to send every key' });
  await page.keyboard.press('b');
  await page.keyboard.press('Tab');
  await page.keyboard.down('Shift');
  await page.keyboard.down('A');
  await page.keyboard.down('A');
  await page.keyboard.up('A');
  await page.keyboard.up('Shift');
  want = CSI + '98u' + CSI + '98;1:3u' + CSI + '9u' + CSI + '9;1:3u'
    + CSI + '57441;2u' + CSI + '97;2u' + CSI + '97;2:2u' + CSI + '97;2:3u' + CSI + '57441;1:3u';
  await expectBytes(id, 'PUSHED', want, 'the browser keys under flags 11');

  // Popped: legacy bytes, and the client sends no releases.
  await input(id, 'POP');
  await waitFor(async () => (await modes(page)).keyReleases === false, { what: 'the client told to stop releases' });
  assert.equal((await modes(page)).keyAll, false);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+i');
  await page.keyboard.press('Escape');
  await page.keyboard.press('a');
  await keys(id, ['C-i', 'Escape']);
  await expectBytes(id, 'POPPED', '\t\t\x1ba\t\x1b', 'legacy bytes after the pop');
  await finish(page, 'keyboard');
});
