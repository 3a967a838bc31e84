import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildBm25Index } from '../../core/bm25.ts';
import { tokenizeCode, splitIdentifier } from '../../core/tokenize.ts';

test('tokenizeCode splits snake_case, camelCase, acronyms, digits and punctuation, keeping compounds', () => {
  assert.deepEqual(tokenizeCode('def get_max_value(xs):'), ['def', 'getmaxvalue', 'get', 'max', 'value', 'xs']);
  assert.deepEqual(splitIdentifier('parseHTTPResponse2xx'), ['parse', 'http', 'response', '2', 'xx']);
  assert.deepEqual(tokenizeCode('x.isEmpty() && y!=0'), ['x', 'isempty', 'is', 'empty', 'y', '0']);
  assert.deepEqual(tokenizeCode('__init__'), ['init']);
  assert.deepEqual(tokenizeCode('utf8'), ['utf8', 'utf', '8']);
  assert.deepEqual(tokenizeCode('a + b'), ['a', 'b']);
  assert.deepEqual(tokenizeCode('maxValue'), tokenizeCode('max_value'));
  assert.deepEqual(tokenizeCode(''), []);
});

/*
 * Hand-worked example (k1 = 1.5, b = 0.75, idf = ln(1 + (N − n + 0.5)/(n + 0.5))):
 *   d1 "sum list"        → [sum, list]          |d1| = 2
 *   d2 "sum sum numbers" → [sum, sum, numbers]  |d2| = 3
 *   d3 "reverse string"  → [reverse, string]    |d3| = 2      N = 3, avgdl = 7/3
 * length normaliser K(D) = k1·(1 − b + b·|D|/avgdl):
 *   K(2) = 1.5·(1/4 + (3/4)(6/7)) = 1.5·25/28 = 75/56;  K(3) = 1.5·(1/4 + (3/4)(9/7)) = 51/28
 * query "sum": n = 2, idf = ln(1 + 1.5/2.5) = ln 1.6
 *   d1: tf 1 → 1·2.5/(1 + 75/56) = 140/131;  d2: tf 2 → 2·2.5/(2 + 51/28) = 140/107
 * query "reverse list": each term n = 1, idf = ln(1 + 2.5/1.5) = ln(8/3)
 *   d1 and d3 both get ln(8/3)·140/131 (a tie, broken by id), d2 gets 0.
 */
const docs = [
  { id: 'd2', text: 'sum sum numbers' },
  { id: 'd1', text: 'sum list' },
  { id: 'd3', text: 'reverse string' },
];

test('BM25 matches the hand-worked example', () => {
  const idx = buildBm25Index(docs);
  const sum = idx.search('sum', 3);
  assert.deepEqual(sum.map((h) => h.id), ['d2', 'd1', 'd3']);
  assert.ok(Math.abs(sum[0].score - Math.log(1.6) * (140 / 107)) < 1e-12);
  assert.ok(Math.abs(sum[1].score - Math.log(1.6) * (140 / 131)) < 1e-12);
  assert.equal(sum[2].score, 0);

  const rl = idx.search('reverse list', 3);
  // d1 and d3 tie; the keyed tie order (default key "0") puts d3 first: SHA-256("0\0d3") begins 4923a9,
  // SHA-256("0\0d1") 63af8c (Python hashlib).
  assert.deepEqual(rl.map((h) => h.id), ['d3', 'd1', 'd2']);
  assert.ok(Math.abs(rl[1].score - Math.log(8 / 3) * (140 / 131)) < 1e-12);
  assert.equal(rl[0].score, rl[1].score);

  // scoreAll keeps the input order (d2, d1, d3).
  const all = idx.scoreAll('sum');
  assert.ok(Math.abs(all[0] - Math.log(1.6) * (140 / 107)) < 1e-12);
  assert.ok(Math.abs(all[1] - Math.log(1.6) * (140 / 131)) < 1e-12);
  assert.equal(all[2], 0);
});

test('BM25 parameters act as the formula says', () => {
  // k1 = 0: every matching term contributes exactly its idf, whatever tf and length.
  const binary = buildBm25Index(docs, { k1: 0 });
  assert.ok(Math.abs(binary.scoreAll('sum')[0] - Math.log(1.6)) < 1e-12);
  // b = 0: no length normalisation; d2 tf 2 → 2·2.5/(2 + 1.5) = 10/7.
  const nolen = buildBm25Index(docs, { b: 0 });
  assert.ok(Math.abs(nolen.scoreAll('sum')[0] - Math.log(1.6) * (10 / 7)) < 1e-12);
  // Repeated query terms count again.
  assert.ok(Math.abs(buildBm25Index(docs).scoreAll('sum sum')[1] - 2 * Math.log(1.6) * (140 / 131)) < 1e-12);
});

test('BM25 rejects duplicate ids and bad parameters; topK bounds the result', () => {
  assert.throws(() => buildBm25Index([{ id: 'a', text: 'x' }, { id: 'a', text: 'y' }]), /duplicate document id "a"/);
  assert.throws(() => buildBm25Index(docs, { b: 2 }), /0 <= b <= 1/);
  assert.equal(buildBm25Index(docs).search('sum', 1).length, 1);
  assert.deepEqual(buildBm25Index([]).search('sum', 5), []);
  // Code-aware: a camelCase query term finds the snake_case identifier's parts.
  const code = buildBm25Index([
    { id: 'a', text: 'def max_value(xs): return max(xs)' },
    { id: 'b', text: 'def reverse(s): return s[::-1]' },
  ]);
  assert.equal(code.search('maxValue', 1)[0].id, 'a');
});
