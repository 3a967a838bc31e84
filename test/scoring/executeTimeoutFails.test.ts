// Scoring reuses verification's timed-out runs (issue 18): an own distractor that timed out under its mutant
// limit, after failing a test by wrong output, is not run again for scoring's 5 s, and its verdict (`passed`,
// the only thing the metrics read) is what a full run gives. One that only timed out is run again.
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
// Fails test 0 by wrong output, then never ends on test 1.
const failsThenLoops = 'def f(x):\n    while x:\n        pass\n    return 7\n';
// Only loops (test 0 would pass under any limit long enough; here it is slow, not wrong): must be run again.
const slowOnly = 'def f(x):\n    import time\n    time.sleep(0.4)\n    return x\n';

test('an own distractor that failed by wrong output and timed out in verification is not run again; a timeout-only one is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-score-tf-'));
  const oracle = await openOracle({ cachePath: join(dir, 'exec.sqlite'), concurrency: 2 });
  try {
    const suite = { kind: 'asserts' as const, tests };
    // What verification left in the cache: both mutants under a 0.2 s limit.
    const v1 = await oracle.run({ code: failsThenLoops, suite, timeout_s: 0.2 });
    const v2 = await oracle.run({ code: slowOnly, suite, timeout_s: 0.2 });
    assert.deepEqual(v1.outcomes, ['FAIL', 'TIMEOUT']);
    assert.deepEqual(v2.outcomes, ['TIMEOUT', 'TIMEOUT']);
    const q = QueryRecord.parse({ query_id: 'q1', query: 'identity', function_name: 'f', tests, correct_corpus_ids: ['c0'], distractor_corpus_ids: ['d1', 'd2'] });
    const corpus = [
      { corpus_id: 'c0', code: canonical, is_canonical: true },
      { corpus_id: 'd1', code: failsThenLoops, is_canonical: false },
      { corpus_id: 'd2', code: slowOnly, is_canonical: false },
    ].map((c) => CorpusRecord.parse({ ...c, query_id: 'q1', function_name: 'f' }));
    const bench: LoadedBenchmark = { dir, queries: [q], corpus, corpusIndex: new Map(corpus.map((c, i) => [c.corpus_id, i])), rejections: [] };
    const ranking: QueryRanking = { query_id: 'q1', top: Int32Array.from([1, 2, 0]), topScores: Float64Array.from([3, 2, 1]), canonical_rank: 3, correct: [], distractors: [] };
    const t0 = performance.now();
    const table = await executeTopK(bench, [[ranking]], oracle);
    const seconds = (performance.now() - t0) / 1000;
    const d1 = table.results.get(pairKey(0, 1))!;
    const d2 = table.results.get(pairKey(0, 2))!;
    assert.equal(d1.cached, true, 'answered from the verification run');
    assert.deepEqual(d1.outcomes, ['FAIL', 'TIMEOUT']);
    assert.equal(d1.passed, false);
    assert.equal(d2.cached, false, 'a run with only timeouts is run again under scoring\'s limit');
    assert.deepEqual(d2.outcomes, ['pass', 'pass'], 'and under 5 s it passes: a timeout alone never answered for it');
    assert.equal(table.results.get(pairKey(0, 0))!.passed, true);
    assert.ok(seconds < 4.5, `the looping distractor was not waited out for 5 s (${seconds.toFixed(1)} s)`);
    // Independent check of the verdict that reuse stands for: run the looping one in full under 5 s.
    const full = await oracle.run({ code: failsThenLoops, suite, timeout_s: 5 });
    assert.equal(full.cached, false);
    assert.equal(full.passed, d1.passed);
  } finally {
    await oracle.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
