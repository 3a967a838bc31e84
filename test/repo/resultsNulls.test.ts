import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultsTable } from '../../activities/repo/runOutput.ts';
import { writeParquet } from '../../activities/storage/parquet.ts';
import { venvDir } from '../../activities/paths.ts';
import type { CaseResult } from '../../schemas/repoIndex.ts';

// Issue 37: a case with no relevant rank (or no final context) was NaN in results.parquet, so every retriever's
// mean rank read NaN in DuckDB and pandas. It is NULL now: the means skip it.
test('results.parquet: no rank and no context are NULL, and pandas means skip them', () => {
  const base = {
    case_id: 'a', retriever: 'bm25', mode: 'recorded', query_class: 'definition', language: 'go', area: 'core', split: 'test',
    case_revision: 'r', index_revision: 'r', index_build_id: 'b', cutoff: 5, passed: true, required_evidence: 'all', hit: true,
    first_relevant_rank: 2, reciprocal_rank: 0.5, group_recall: 1, diagnosis: 'pass', context_lines: 10, context_tokens: 100,
    missing_group_ids: [], forbidden_chunk_ids: [], revision_mismatches: [], final_context_ids: ['c'],
  };
  const rows = [base, { ...base, case_id: 'b', first_relevant_rank: 4, context_lines: 30 }, { ...base, case_id: 'c', first_relevant_rank: null, context_lines: undefined, context_tokens: undefined }];
  const dir = mkdtempSync(join(tmpdir(), 'er-results-nulls-'));
  try {
    const file = join(dir, 'results.parquet');
    writeParquet(file, resultsTable(rows as unknown as CaseResult[]));
    const code = 'import sys, json, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); d = t.to_pandas(); print(json.dumps({n: [t.column(n).null_count, float(d[n].mean())] for n in ("first_relevant_rank", "context_lines", "context_tokens")}))';
    const py = spawnSync(join(venvDir(), 'bin', 'python'), ['-c', code, file], { encoding: 'utf8' });
    assert.equal(py.status, 0, py.stderr);
    assert.deepEqual(JSON.parse(py.stdout), { first_relevant_rank: [1, 3], context_lines: [1, 20], context_tokens: [1, 100] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
