// End-to-end: who is in the room, and who sets the size (issue 22, parts 2
// and 3). A desktop page drives; a phone that opens a control link labelled
// "Phone" does not shrink the session: it scales the screen to its own
// window, sees who drives, and takes control with the button, after which
// the session has the phone's size and the desktop scales instead. The
// people list names both, without a page reload, and passes axe.
import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import { waitFor } from './lib/harness.mjs';
import { setup, e2e, env, session, open, finish } from './lib/e2e.mjs';

setup();

const PHONE = { viewport: { width: 390, height: 700 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** The page's bar: who drives, the Take control button, the people listed. */
const bar = (page) => page.evaluate(() => {
  const q = (s) => document.querySelector(s);
  return {
    driver: q('.pc-driver')?.textContent ?? '',
    take: q('.pc-bar button[title]') ? !q('.pc-bar button[title]').hidden : false,
    people: [...document.querySelectorAll('.pc-room li')].map((li) => li.textContent),
  };
});

/** The session's size as the API reports it. */
const apiSize = async (id) => {
  const s = await env.server.api('GET', `/api/sessions/${id}`);
  return `${s.cols}x${s.rows}`;
};

/** The size of the terminal's canvas on the page, in CSS pixels. */
const canvasBox = (page) => page.evaluate(() => {
  const r = document.querySelector('panecast-terminal').shadowRoot.querySelector('canvas').getBoundingClientRect();
  return { width: r.width, height: r.height };
});

e2e('a phone does not resize the session until it takes control; the room names who is here', async () => {
  const id = await session();
  const desk = await open(id, { viewport: { width: 1000, height: 600 } });
  const deskSize = await waitFor(async () => {
    const size = await apiSize(id);
    const shown = await desk.evaluate(() => `${window.panecast.screen.cols}x${window.panecast.screen.rows}`);
    return size !== '80x24' && size === shown && size;
  }, { what: "the desktop's window sizes the session" });
  await waitFor(async () => (await bar(desk)).driver === 'you drive the size', { what: 'the desktop drives' });

  const link = await env.server.api('POST', `/api/sessions/${id}/links`, { role: 'control', label: 'Phone' });
  const phoneContext = await env.browser.newContext(PHONE);
  const phone = await phoneContext.newPage();
  phone.errors = [];
  phone.on('pageerror', (e) => phone.errors.push(e.message));
  await phone.goto(`${env.server.base}/s/${id}#t=${link.token}`);
  await waitFor(() => phone.evaluate(() => window.panecast && window.panecast.status === 'connected'), { what: 'the phone connected' });
  await waitFor(async () => (await bar(phone)).driver === 'admin drives the size', { what: 'the phone is told who drives' });
  await waitFor(async () => (await bar(desk)).people.some((p) => p === 'Phone (link): controlling'), { what: 'the desktop lists the phone, live' });
  assert.deepEqual((await bar(desk)).people, ['admin (admin): controlling, drives the size', 'Phone (link): controlling']);
  // The phone sent its window's size, and the session kept the desktop's.
  await waitFor(() => phone.evaluate(() => window.panecast.lastResize !== null), { what: 'the phone reported its window' });
  assert.equal(await apiSize(id), deskSize, 'the phone did not resize the session');
  const fitted = await canvasBox(phone);
  assert.ok(fitted.width <= 390 && fitted.height <= 700, `the phone scales the screen to its window: ${JSON.stringify(fitted)}`);
  assert.equal(await phone.evaluate(() => `${window.panecast.screen.cols}x${window.panecast.screen.rows}`), deskSize);
  assert.ok((await bar(phone)).take, 'the phone offers Take control');
  assert.ok(!(await bar(desk)).take, 'the driver is not offered Take control');

  await phone.click('.pc-bar button[title]');
  const phoneSize = await waitFor(async () => {
    const size = await apiSize(id);
    return size !== deskSize && size;
  }, { what: "the phone's window sizes the session" });
  const [cols] = phoneSize.split('x').map(Number);
  assert.ok(cols < 60, `the phone's width in columns: ${phoneSize}`);
  await waitFor(async () => (await bar(phone)).driver === 'you drive the size', { what: 'the phone drives' });
  await waitFor(async () => (await bar(desk)).driver === 'Phone drives the size', { what: 'the desktop sees the phone drive' });
  assert.ok((await bar(desk)).take, 'the desktop can take control back');

  await desk.click('.pc-room summary');
  const { violations } = await new AxeBuilder({ page: desk }).include('.pc-bar').analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`), [], 'the people list passes axe');

  await phone.screenshot({ path: 'tests/artifacts/browser/e2e-room-phone.png' });
  assert.deepEqual(phone.errors, [], 'no errors on the phone');
  await phoneContext.close();
  await waitFor(async () => (await bar(desk)).driver === 'you drive the size', { what: 'the desktop drives again when the phone leaves' });
  await waitFor(async () => (await apiSize(id)) === deskSize, { what: "the desktop's window applies again" });
  await finish(desk, 'room-desk');
});
