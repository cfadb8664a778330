// URLs under a path prefix: base.js derives the server's root from where it
// was loaded, and no page or module of web/ names an absolute path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { root, route } from '../../../web/base.js';

const webDir = new URL('../../../web/', import.meta.url);

test('base.js: the root is the folder above web/', () => {
  assert.equal(root.href, new URL('../../../', import.meta.url).href);
  assert.equal(route('api/sessions'), `${root.pathname}api/sessions`);
  assert.equal(route('s/abc?role=view'), `${root.pathname}s/abc?role=view`);
  assert.ok(route('api/sessions').startsWith('/'));
});

test('web/: no absolute route in a page or module', () => {
  const absolute = /(["'`])\/(api|web|s|embed)\b/;
  const files = readdirSync(webDir).filter((f) => /\.(js|html)$/.test(f));
  assert.ok(files.length > 5, `found ${files.length} files`);
  for (const file of files) {
    const code = readFileSync(new URL(file, webDir), 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line));
    for (const line of code) assert.doesNotMatch(line, absolute, `${file}: ${line.trim()}`);
  }
});
