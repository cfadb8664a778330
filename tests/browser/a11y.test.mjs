// End-to-end: the client for screen readers and keyboard-only users. axe-core
// finds no serious or critical violation on the pages, the Share panel and
// the search bar; the screen's text is
// mirrored in the DOM and new output announced, throttled; role, label and
// read-only state are exposed; Ctrl-Shift-M leaves the terminal; themes
// follow the URL and the user's contrast, colour-scheme and motion settings,
// and for every theme the page offers a program's OSC 11 query is answered
// with the background the canvas paints.
import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import { waitFor } from './lib/harness.mjs';
import { TOKEN } from './lib/server.mjs';
import { setup, e2e, env, session, open, finish, input, screenText } from './lib/e2e.mjs';
import { THEMES } from '../../web/palette.js';

setup();

async function noSeriousViolations(page, what) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const nodes = (v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.html} ${n.failureSummary}`).join('; ');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.help} (${nodes(v)})`), [], `${what}: axe violations`);
  return violations.length;
}

const shadow = (page, fn, arg) => page.evaluate(([f, a]) => (0, eval)(f)(document.querySelector('panecast-terminal').shadowRoot, window.panecast, a), [fn.toString(), arg]);

e2e('axe finds no serious or critical violation on /r/{name}, the replay page', async () => {
  const s = await env.server.api('POST', '/api/sessions', { command: ['printf', '\\033[31mred\\033[0m replayed\\n'], record: true });
  await env.server.api('DELETE', `/api/sessions/${s.id}`);
  const ctx = await env.browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${env.server.base}/r/${s.recording}?token=${TOKEN}`);
  await waitFor(() => page.evaluate(() => window.panecast?.status === 'connected' && document.getElementById('play').getAttribute('aria-label')), { what: 'the replay connected' });
  await noSeriousViolations(page, '/r/{name}');
  await ctx.close();
  // The recording went to the server's default directory: leave nothing behind.
  await env.server.api('DELETE', `/api/recordings/${s.recording}`);
});

e2e('axe finds no serious or critical violation on /, /s/{id}, /embed/{id}, the Share panel and the search bar', async () => {
  const id = await session();
  await input(id, 'printf "\\033[31mred\\033[0m plain\\n"\r');
  const ctx = await env.browser.newContext();
  const index = await ctx.newPage();
  await index.goto(`${env.server.base}/?token=${TOKEN}`);
  await waitFor(() => index.evaluate((id) => document.body.textContent.includes(id), id), { what: 'the session listed' });
  await noSeriousViolations(index, '/');
  await ctx.close();
  for (const [path, role] of [['s', 'control'], ['s', 'view'], ['embed', 'view']]) {
    const page = await open(id, { path, role });
    await noSeriousViolations(page, `/${path}/{id} as ${role}`);
    await finish(page, `a11y-axe-${path}-${role}`);
  }
  // The Share panel, open with a link made and listed, and the search bar, open with matches counted.
  const page = await open(id);
  await page.getByRole('button', { name: 'Share' }).click();
  await page.getByRole('button', { name: 'Create link' }).click();
  await waitFor(() => page.locator('.pc-share tr').count(), { what: 'the new link listed' });
  await page.locator('panecast-terminal').click();
  await page.keyboard.press('Control+Shift+F');
  await page.keyboard.type('plain');
  const bar = page.locator('panecast-terminal').locator('.pc-find');
  await waitFor(async () => /^\d+\/\d+$/.test(await bar.locator('output').textContent()), { what: 'the matches counted' });
  assert.ok(await bar.isVisible() && await page.locator('.pc-share').isVisible(), 'the search bar and the Share panel are open');
  await noSeriousViolations(page, 'the Share panel and the search bar');
  await finish(page, 'a11y-axe-share-search');
});

e2e('the screen is mirrored as text and new output is announced politely', async () => {
  const id = await session();
  const page = await open(id);
  await page.keyboard.type('echo hello there');
  await page.keyboard.press('Enter');
  await waitFor(() => shadow(page, (r) => r.querySelector('pre.pc-sr').textContent.includes('\nhello there')), { what: 'the output in the mirror' });
  const live = await waitFor(() => shadow(page, (r) => { const l = r.querySelector('[aria-live]'); return l.textContent.includes('hello there') && { polite: l.getAttribute('aria-live'), text: l.textContent }; }), { what: 'the output announced' });
  assert.equal(live.polite, 'polite');
  await waitFor(async () => {
    const mirror = await shadow(page, (r) => r.querySelector('pre.pc-sr').textContent);
    return mirror === (await screenText(id)).map((l) => l.trimEnd()).join('\n').replace(/\n+$/, '');
  }, { what: 'the mirror holding the screen as the API has it' });
  await finish(page, 'a11y-mirror');
});

e2e('a flood is announced at most twice a second, a dozen lines at a time', async () => {
  const id = await session();
  const page = await open(id);
  await shadow(page, (r) => {
    window.announced = [];
    new MutationObserver(() => window.announced.push(r.querySelector('[aria-live]').textContent)).observe(r.querySelector('[aria-live]'), { childList: true, characterData: true, subtree: true });
  });
  const t0 = Date.now();
  await input(id, 'seq 200000; echo done\r');
  await waitFor(async () => (await screenText(id)).includes('done'), { what: 'the flood finished', timeout: 60000 });
  await waitFor(() => page.evaluate(() => window.announced.some((a) => a.includes('done'))), { what: 'the end announced' });
  const seconds = (Date.now() - t0) / 1000;
  const announced = await page.evaluate(() => window.announced);
  assert.ok(announced.length <= seconds * 2 + 2, `${announced.length} announcements in ${seconds.toFixed(1)} s`);
  for (const a of announced) assert.ok(a.split('\n').length <= 12, `at most 12 lines: ${a.split('\n').length}`);
  await finish(page, 'a11y-flood');
});

e2e('role, label and read-only state are exposed; Ctrl-Shift-M leaves the terminal', async () => {
  const id = await session();
  const view = await open(id, { role: 'view' });
  const a = await shadow(view, (r) => { const ta = r.querySelector('textarea'); return { ro: ta.getAttribute('aria-readonly'), rd: ta.getAttribute('aria-roledescription'), label: ta.getAttribute('aria-label'), help: r.getElementById(ta.getAttribute('aria-describedby')).textContent }; });
  assert.deepEqual(a, { ro: 'true', rd: 'terminal', label: 'Terminal', help: 'Ctrl-Shift-M leaves the terminal.' });
  await finish(view, 'a11y-view');
  const page = await open(id);
  assert.equal(await shadow(page, (r) => r.querySelector('textarea').getAttribute('aria-readonly')), 'false');
  await input(id, 'printf "\\033]2;build log\\007"\r');
  await waitFor(() => shadow(page, (r) => r.querySelector('textarea').getAttribute('aria-label') === 'Terminal: build log'), { what: 'the title in the label' });
  await page.locator('panecast-terminal').click();
  assert.equal(await shadow(page, (r) => r.activeElement && r.activeElement.tagName), 'TEXTAREA');
  await page.keyboard.press('Control+Shift+M');
  await page.keyboard.press('Tab');
  assert.notEqual(await shadow(page, (r) => r.activeElement && r.activeElement.tagName), 'TEXTAREA', 'Tab went past the terminal');
  await page.locator('panecast-terminal').click();
  assert.equal(await shadow(page, (r) => r.activeElement && r.activeElement.tagName), 'TEXTAREA', 'a click comes back');
  await page.keyboard.press('Tab');
  assert.equal(await shadow(page, (r) => r.activeElement && r.activeElement.tagName), 'TEXTAREA', 'Tab goes to the program inside');
  await finish(page, 'a11y-focus');
});

e2e('themes: URL parameter, attribute, prefers-color-scheme, prefers-contrast, prefers-reduced-motion', async () => {
  const id = await session();
  await input(id, 'printf "\\033[1 q"\r'); // a blinking block cursor
  const bg = (page) => page.evaluate(() => window.panecast.painter.palette.bg);
  const cases = [
    [{ colorScheme: 'dark' }, '', '#1e1e1e'],
    [{ colorScheme: 'light' }, '', '#ffffff'],
    [{ colorScheme: 'light', contrast: 'more' }, '', '#000000'],
    [{ colorScheme: 'light' }, '&theme=contrast', '#000000'],
    [{ colorScheme: 'dark' }, '&theme=light', '#ffffff'],
  ];
  for (const [media, query, want] of cases) {
    const page = await open(id, { query, contextOptions: { viewport: { width: 600, height: 400 }, ...media } });
    assert.equal(await bg(page), want, `${JSON.stringify(media)} ${query}`);
    // Connected is not painted: the first frame may still be on its way.
    await waitFor(() => page.evaluate(() => window.panecast.paints > 0), { what: 'a first paint' });
    // A resize after the first paint clears the canvas until the next one: wait for the theme's pixel.
    const rgb = JSON.stringify([1, 3, 5].map((i) => parseInt(want.slice(i, i + 2), 16)));
    const corner = () => page.evaluate(() => JSON.stringify([...window.panecast.canvas.getContext('2d').getImageData(1, 1, 1, 1).data.slice(0, 3)]));
    await waitFor(async () => (await corner()) === rgb, { what: `the corner painted in that theme, ${rgb}` });
    await page.evaluate(() => document.querySelector('panecast-terminal').setAttribute('theme', 'solarized'));
    assert.equal(await bg(page), '#002b36', 'the attribute changes the theme');
    await finish(page, `a11y-theme-${want.slice(1)}`);
  }
  for (const reducedMotion of ['no-preference', 'reduce']) {
    const page = await open(id, { contextOptions: { reducedMotion } });
    await waitFor(() => page.evaluate(() => window.panecast.screen.cursor.blink), { what: 'a blinking cursor' });
    const paints = await page.evaluate(() => window.panecast.paints);
    await page.locator('panecast-terminal').click();
    // The overlay decides on blinking when it is painted: wait for a paint with the focus rather than
    // for a fixed time (on a busy machine the animation frame can come later than any such time).
    await waitFor(() => page.evaluate((n) => window.panecast.focused && window.panecast.paints > n, paints), { what: 'a paint with the focus' });
    const blinks = await page.evaluate(() => !!window.panecast.blinkTimer);
    assert.equal(blinks, reducedMotion !== 'reduce', `cursor blinks with ${reducedMotion}`);
    await finish(page, `a11y-motion-${reducedMotion}`);
  }
});

e2e('themes change what programs are told: OSC 11 answers the control page\'s theme', async () => {
  // For each line typed, the program asks for the background and prints the answer (ESC as E).
  const ask = "while read l; do stty raw -echo; printf '\\033]11;?\\007'; r=$(head -c 25); stty sane; echo \"$r\" | tr '\\033' E; done";
  const id = await session({ command: ['sh', '-c', `echo ready; ${ask}`], ready: 'ready' });
  const answers = [];
  // Enter typed on `page`: it reaches the session after the page's Theme messages.
  const asked = async (page, want) => {
    answers.push(`E]11;rgb:${want}E\\`);
    await page.locator('panecast-terminal').click();
    await page.keyboard.press('Enter');
    await waitFor(async () => JSON.stringify((await screenText(id)).filter((l) => l.startsWith('E]'))) === JSON.stringify(answers), { what: `the answers ${answers}` });
  };
  const light = await open(id, { query: '&theme=light' });
  await asked(light, 'ffff/ffff/ffff');
  // A view page's theme changes nothing.
  const view = await open(id, { role: 'view', query: '&theme=contrast' });
  await asked(light, 'ffff/ffff/ffff');
  await finish(view, 'a11y-theme-osc-view');
  // An auto theme follows the system's colour scheme and contrast, and tells the session when they change.
  const auto = await open(id, { contextOptions: { viewport: { width: 900, height: 520 }, colorScheme: 'dark' } });
  await asked(auto, '1e1e/1e1e/1e1e');
  for (const [media, want] of [[{ colorScheme: 'light' }, 'ffff/ffff/ffff'], [{ contrast: 'more' }, '0000/0000/0000']]) {
    await auto.emulateMedia(media);
    await waitFor(() => auto.evaluate((bg) => window.panecast.painter.palette.bg === bg, '#' + want.slice(0, 2).repeat(3)), { what: `the page painting ${want}` });
    await asked(auto, want);
  }
  await finish(auto, 'a11y-theme-osc-auto');
  await finish(light, 'a11y-theme-osc-light');
});

e2e('every theme the page offers: OSC 11 answers the background the canvas paints', async () => {
  // For each line typed, the program asks for the background and prints the answer (ESC as E).
  const ask = "while read l; do stty raw -echo; printf '\\033]11;?\\007'; r=$(head -c 25); stty sane; echo \"$r\" | tr '\\033' E; done";
  const id = await session({ command: ['sh', '-c', `echo ready; ${ask}`], ready: 'ready' });
  const answers = () => screenText(id).then((lines) => lines.filter((l) => l.startsWith('E]11;')));
  const offered = Object.keys(THEMES);
  assert.ok(offered.length >= 5, `the page's themes: ${offered}`);
  const painted = new Map();
  for (const theme of offered) {
    const page = await open(id, { query: `&theme=${theme}` });
    await waitFor(() => page.evaluate(() => window.panecast.paints > 0), { what: 'a first paint' });
    // The canvas's top-left pixel, a blank cell: the background painted, as OSC 11 writes it.
    const pixel = () => page.evaluate(() => [...window.panecast.canvas.getContext('2d').getImageData(1, 1, 1, 1).data.slice(0, 3)]
      .map((c) => c.toString(16).padStart(2, '0').repeat(2)).join('/'));
    const want = await page.evaluate(() => window.panecast.painter.palette.bg);
    const wantOsc = [1, 3, 5].map((i) => want.slice(i, i + 2).repeat(2)).join('/');
    await waitFor(async () => (await pixel()) === wantOsc, { what: `${theme}: the canvas painted ${want}` });
    const before = (await answers()).length;
    // Enter typed on the page reaches the session after the page's Theme message.
    await page.locator('panecast-terminal').click();
    await page.keyboard.press('Enter');
    await waitFor(async () => (await answers()).length > before, { what: `${theme}: the program's answer` });
    const answer = (await answers())[before];
    assert.equal(answer, `E]11;rgb:${await pixel()}E\\`, `${theme}: OSC 11 answers the painted background`);
    painted.set(theme, answer);
    await finish(page, `a11y-theme-osc11-${theme}`);
  }
  // solarized and xterm paint backgrounds of their own: the answers tell them apart.
  assert.notEqual(painted.get('solarized'), painted.get('dark'));
  assert.notEqual(painted.get('xterm'), painted.get('dark'));
});
