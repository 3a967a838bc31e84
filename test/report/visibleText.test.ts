import { test } from 'node:test';
import assert from 'node:assert/strict';
import { visibleLine, visibleText } from '../../core/visibleText.ts';
import { escapeHtml } from '../../core/report/format.ts';

test('candidate text: control characters become visible escapes in terminal lines, code blocks and HTML', () => {
  const hostile = 'a\u001b[2J\rb\u0007\u0000c\u009b\u202ed\u2028\te\nf';
  assert.equal(visibleLine(hostile), 'a\\x1b[2J\\x0db\\x07\\x00c\\x9b\\u202ed\\u2028\\x09e\\x0af');
  assert.equal(visibleText(hostile), 'a\\x1b[2J\\x0db\\x07\\x00c\\x9b\\u202ed\\u2028\te\nf');
  assert.equal(escapeHtml('<b>\u001b[31m</b>'), '&lt;b&gt;\\x1b[31m&lt;/b&gt;');
  // Ordinary text, code and non-Latin letters are untouched.
  const code = 'def f(x):\n\treturn "héllo, 世界" + x\n';
  assert.equal(visibleText(code), code);
});
