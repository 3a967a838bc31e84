import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Chunk } from '../../schemas/repoIndex.ts';
import { checkOutsideRun, resolveTarget, type IndexView } from '../../core/repo/outsideRun.ts';
import type { RunRow } from '../../core/ranking/imported.ts';

/** core/repo/outsideRun.ts on a hand-made index: how ids name chunks, the order of tied rows, the one error line. */
const chunk = (file: string, start: number, end: number, suffix = ''): Chunk => ({
  chunk_id: `${file}:${start}-${end}${suffix}`, file, revision: 'a'.repeat(40), language: 'typescript', start_line: start, end_line: end,
  start_byte: 0, end_byte: 1, symbols: [], references: [], role: 'definition', text: 'x',
});
const chunks = [chunk('a.ts', 1, 10), chunk('a.ts', 11, 14), chunk('a.ts', 11, 14, '~1'), chunk('a.ts', 20, 30), chunk('b.ts', 1, 5)];
const view: IndexView = {
  indexBuildId: 'build1',
  byId: new Map(chunks.map((c) => [c.chunk_id, c])),
  byFile: new Map([['a.ts', chunks.slice(0, 4)], ['b.ts', chunks.slice(4)]]),
  whyNotIndexed: (p) => (p === 'vendor/x.js' ? 'exclude:vendor/**' : undefined),
};
const ids = (t: ReturnType<typeof resolveTarget>) => (typeof t === 'string' ? t : t.map((c) => c.chunk_id));

test('an id names a chunk exactly, by most-overlapping lines (the earlier on a tie), by one line, or as a whole file', () => {
  assert.deepEqual(ids(resolveTarget('a.ts:11-14~1', view)), ['a.ts:11-14~1']);
  assert.deepEqual(ids(resolveTarget('a.ts:11-14', view)), ['a.ts:11-14']); // the chunk id, not a range of two chunks
  assert.deepEqual(ids(resolveTarget('a.ts:8-13', view)), ['a.ts:1-10']); // 3 lines of 1-10, 3 of 11-14: the earlier
  assert.deepEqual(ids(resolveTarget('a.ts:9-13', view)), ['a.ts:11-14']); // 2 lines against 3
  assert.deepEqual(ids(resolveTarget('a.ts:25', view)), ['a.ts:20-30']);
  assert.deepEqual(ids(resolveTarget('b.ts', view)), ['b.ts:1-5']);
  assert.deepEqual(ids(resolveTarget('a.ts', view)), ['a.ts:1-10', 'a.ts:11-14', 'a.ts:11-14~1', 'a.ts:20-30']);
  assert.match(ids(resolveTarget('a.ts:16-18', view)) as string, /^lines 16-18 of a\.ts are in no chunk/);
  assert.equal(resolveTarget('vendor/x.js:3', view), 'vendor/x.js is not indexed (exclude:vendor/**)');
  assert.equal(resolveTarget('c.ts', view), 'neither a chunk id nor a file of index build build1');
});

test('tied rows follow SHA-256("0\\0" + row id), not file order; a chunk reached twice keeps its first place', () => {
  const tied = ['b.ts', 'a.ts:1-10', 'a.ts:20-30', 'a.ts:11-14'];
  const rows: RunRow[] = [
    ...tied.map((id, i) => ({ query_id: 'c1', corpus_id: id, score: 2, where: `f:${i + 1}` })),
    { query_id: 'c1', corpus_id: 'a.ts:3', score: 1, where: 'f:5' }, // inside a.ts:1-10, placed already
    { query_id: 'c1', corpus_id: 'a.ts:11-14~1', score: 5, where: 'f:6' },
  ];
  const check = checkOutsideRun(rows, ['c1'], view);
  assert.equal(check.error, null);
  const key = (id: string) => createHash('sha256').update('0\0' + id).digest().readUIntBE(0, 6);
  const expectTied = [...tied].sort((x, y) => key(x) - key(y));
  assert.notDeepEqual(expectTied, [...tied].sort(), 'precondition: the keyed order is not the ids\' order');
  assert.notDeepEqual(expectTied, tied, 'precondition: nor the file\'s');
  const expectChunks = expectTied.map((id) => ids(resolveTarget(id, view))[0]);
  assert.deepEqual(check.ranked.get('c1')!.map((s) => s.id), ['a.ts:11-14~1', ...expectChunks]);
  assert.equal(check.merged, 1);
});

test('every kind of problem goes into one line; nothing is ranked', () => {
  const rows: RunRow[] = [
    { query_id: 'c1', corpus_id: 'a.ts:1-10', score: 1, rank: 2, where: 'f:1' },
    { query_id: 'c1', corpus_id: 'a.ts:1-10', score: 3, rank: 1, where: 'f:2' },
    { query_id: 'cX', corpus_id: 'b.ts', score: 1, where: 'f:3' },
    { query_id: 'c1', corpus_id: 'zz.ts', score: Infinity, rank: 3, where: 'f:4' },
  ];
  const check = checkOutsideRun(rows, ['c1', 'c2'], view);
  assert.equal(
    check.error,
    '1 unknown gold case ids (f:3: cX); 1 ids not in index build build1 (f:4: zz.ts: neither a chunk id nor a file of index build build1); ' +
      '1 duplicate (case, id) pairs (f:2: c1 a.ts:1-10 again (first at f:1)); 1 scores that are not finite numbers (f:4: Infinity); ' +
      "1 ranks that contradict the scores (f:4: rank 3 scores Infinity > rank 2's 1); 1 gold cases with no row (c2): a run must rank something for every case it is evaluated on",
  );
  assert.equal(check.ranked.size, 0);
  assert.equal(checkOutsideRun([], ['c1'], view, { allowEmpty: true }).error, null);
});
