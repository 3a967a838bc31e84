// Scoring runs each pair under its own limit (issue 36): a verification run under a mutant's shorter limit never
// answers it, whatever it did there (the code can read its own limit, so another limit can give another verdict).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle } from '../../activities/exec/oracle.ts';
import { executeTopK, pairKey } from '../../activities/scoring/execute.ts';
import { QueryRecord, CorpusRecord } from '../../schemas/benchmark.ts';
import type { LoadedBenchmark } from '../../activities/scoring/benchmark.ts';
import type { QueryRanking } from '../../core/ranking/rank.ts';

const tests = ['assert f(0) == 0', 'assert f(1) == 1'];
const canonical = 'def f(x):\n    return x\n';
// Slow, not wrong: it timed out under verification's 0.2 s and passes under scoring's 5 s.
const slowOnly = 'def f(x):\n    import time\n    time.sleep(0.4)\n    return x\n';

test('an own distractor that timed out in verification is run again under scoring\'s limit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-score-tf-'));
  const oracle = await openOracle({ cachePath: join(dir, 'exec.sqlite'), concurrency: 2 });
  try {
    const suite = { kind: 'asserts' as const, tests };
    const v = await oracle.run({ code: slowOnly, suite, timeout_s: 0.2 });
    assert.deepEqual(v.outcomes, ['TIMEOUT', 'TIMEOUT']);
    const q = QueryRecord.parse({ query_id: 'q1', query: 'identity', function_name: 'f', tests, correct_corpus_ids: ['c0'], distractor_corpus_ids: ['d1'] });
    const corpus = [
      { corpus_id: 'c0', code: canonical, is_canonical: true },
      { corpus_id: 'd1', code: slowOnly, is_canonical: false },
    ].map((c) => CorpusRecord.parse({ ...c, query_id: 'q1', function_name: 'f' }));
    const bench: LoadedBenchmark = { dir, queries: [q], corpus, corpusIndex: new Map(corpus.map((c, i) => [c.corpus_id, i])), rejections: [] };
    const ranking: QueryRanking = { query_id: 'q1', top: Int32Array.from([1, 0]), topScores: Float64Array.from([2, 1]), canonical_rank: 2, correct: [], distractors: [] };
    const table = await executeTopK(bench, [[ranking]], oracle);
    const d1 = table.results.get(pairKey(0, 1))!;
    assert.equal(d1.cached, false, 'not answered by the 0.2 s run');
    assert.deepEqual(d1.outcomes, ['pass', 'pass']);
    assert.equal(table.results.get(pairKey(0, 0))!.passed, true);
  } finally {
    await oracle.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
