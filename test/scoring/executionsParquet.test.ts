// scoring/executions.parquet holds each pair's per-test outcomes as a typed list of strings (not a JSON string),
// as an independent reader (pyarrow) sees it; the reader takes both that and the JSON strings of older runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bool, Table, vectorFromArray } from 'apache-arrow';
import { readExecutionsParquet, writeExecutionsParquet, type ExecutionRow } from '../../activities/scoring/scoringFiles.ts';
import { utf8Column, writeParquet } from '../../activities/storage/parquet.ts';

const ROWS: ExecutionRow[] = [
  { query_id: 'q1', corpus_id: 'c1', passed: false, outcomes: ['pass', 'FAIL: assert f(2) == 3'], cached: false },
  { query_id: 'q1', corpus_id: 'c2', passed: true, outcomes: ['pass', 'pass', 'pass'], cached: true },
  { query_id: 'q2', corpus_id: 'c1', passed: false, outcomes: [], cached: false },
];

test('outcomes are a list<string> column; read back unchanged; an older run\'s JSON strings still read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-execpq-'));
  try {
    const file = join(dir, 'executions.parquet');
    writeExecutionsParquet(file, ROWS);
    assert.deepEqual(readExecutionsParquet(file), ROWS.map(({ cached: _, ...r }) => r));
    const venvPython = new URL('../../.venv/bin/python', import.meta.url).pathname;
    const seen = execFileSync(venvPython, ['-c', 'import sys, json, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); print(t.schema.field("outcomes").type); print(json.dumps(t.column("outcomes").to_pylist()))', file], { encoding: 'utf8' }).trim().split('\n');
    assert.match(seen[0], /^list<(item|element): string/);
    assert.deepEqual(JSON.parse(seen[1]), ROWS.map((r) => r.outcomes));
    // The layout before outcomes became a list: a JSON string per row.
    const old = join(dir, 'old.parquet');
    writeParquet(old, new Table({
      query_id: utf8Column(ROWS.map((r) => r.query_id)),
      corpus_id: utf8Column(ROWS.map((r) => r.corpus_id)),
      passed: vectorFromArray(ROWS.map((r) => r.passed), new Bool()),
      outcomes: utf8Column(ROWS.map((r) => JSON.stringify(r.outcomes))),
    }));
    assert.deepEqual(readExecutionsParquet(old).map((r) => r.outcomes), ROWS.map((r) => r.outcomes));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
