// corpus.parquet / queries.parquet hold `metadata` as a struct typed from its values (not a JSON string), as an
// independent reader (pyarrow) sees it: nested objects are structs, arrays lists, whole numbers int64, absent keys
// null, a key whose values disagree JSON text; records with no key at all keep the JSON text column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCorpusParquet } from '../../activities/benchmark/parquetRelease.ts';
import type { CorpusRecord } from '../../schemas/benchmark.ts';

const venvPython = new URL('../../.venv/bin/python', import.meta.url).pathname;
const seen = (file: string) => execFileSync(venvPython, ['-c', 'import sys, json, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); print(t.schema.field("metadata").type); print(json.dumps(t.column("metadata").to_pylist()))', file], { encoding: 'utf8' }).trim().split('\n');

const row = (i: number, metadata: Record<string, unknown>): CorpusRecord => ({
  corpus_id: `c${i}`, query_id: 'q1', function_name: 'f', code: 'def f(): pass', is_canonical: i === 0, bug_type: null, bug_description: null, metadata,
});

test('metadata is a typed struct; absent keys are null; disagreeing values JSON text; no key at all stays JSON text', () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-metapq-'));
  try {
    const file = join(dir, 'corpus.parquet');
    writeCorpusParquet(file, [
      row(0, {}),
      row(1, { operator: 'swap_args', span: { start: 10, end: 14, line: 2 }, failing_tests: [0, 2], mixed: 1 }),
      row(2, { operator: 'off_by_one', failing_tests: [], score: 0.5, flag: true, mixed: 'a' }),
    ], {});
    const [type, values] = seen(file);
    assert.equal(type, 'struct<operator: string, span: struct<start: int64, end: int64, line: int64>, failing_tests: list<item: int64>, mixed: string, score: double, flag: bool>');
    const none = { operator: null, span: null, failing_tests: null, mixed: null, score: null, flag: null };
    assert.deepEqual(JSON.parse(values), [
      none,
      { ...none, operator: 'swap_args', span: { start: 10, end: 14, line: 2 }, failing_tests: [0, 2], mixed: '1' },
      { ...none, operator: 'off_by_one', failing_tests: [], score: 0.5, flag: true, mixed: '"a"' },
    ]);
    const empty = join(dir, 'empty.parquet');
    writeCorpusParquet(empty, [row(0, {}), row(1, {})], {});
    assert.deepEqual(seen(empty), ['string', '["{}", "{}"]']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
