/**
 * executeTopK judges the top-10 pairs with a bounded number of oracle calls in flight and the not_defined rule's
 * Sets built once per snippet and per suite (activities/scoring/execute.ts): at 20x MBPP one promise per pair and
 * three Sets per pair held the CLI's heap in the collector (docs/2026-12-05-scale-bench.md). The verdicts and
 * their order must be those of the unbounded path, and the rule must skip exactly the pairs the plain
 * core/scoring/notDefined.ts `undefinedName` proves.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { benchmarkNameFacts, executeTopK, pairKey, type ExecutionTable } from '../../activities/scoring/execute.ts';
import { loadBenchmark, type LoadedBenchmark } from '../../activities/scoring/benchmark.ts';
import { rankConfig } from '../../activities/scoring/rankConfig.ts';
import { NOT_DEFINED, undefinedName } from '../../core/scoring/notDefined.ts';
import { writeTinyRun } from './fixtures/tinyBenchmark.ts';

let dir: string;
let oracle: Oracle;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'er-exec-slices-'));
  oracle = await openOracle({ cachePath: null, concurrency: 2 });
});
after(async () => {
  await oracle?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The oracle, counting the calls in flight at once. */
function gauged(inner: Oracle): { oracle: Oracle; most: () => number; calls: () => number } {
  let now = 0;
  let most = 0;
  let calls = 0;
  return {
    oracle: {
      ...inner,
      run: async (req) => {
        calls++;
        most = Math.max(most, ++now);
        try {
          return await inner.run(req);
        } finally {
          now--;
        }
      },
    },
    most: () => most,
    calls: () => calls,
  };
}

const verdicts = (t: ExecutionTable) => [...t.results].map(([k, r]) => [k, r.passed, r.outcomes]);

test('top-10 pairs judged with one call in flight give the verdicts, order and not_defined skips of the unbounded path', async () => {
  const runDir = join(dir, 'tiny');
  writeTinyRun(runDir);
  const bench: LoadedBenchmark = loadBenchmark(join(runDir, 'benchmark'));
  const rankings = await rankConfig(bench, { config_id: 'bm25', kind: 'bm25', k1: 1.5, b: 0.75 });
  const facts = await benchmarkNameFacts(bench);
  const opts = { depth: 100, nameFacts: Promise.resolve(facts) };

  const wide = gauged(oracle);
  const all = await executeTopK(bench, [rankings], wide.oracle, opts);
  const narrow = gauged(oracle);
  const one = await executeTopK(bench, [rankings], narrow.oracle, { ...opts, inFlight: 1 });

  // Every (query, snippet) pair of the 4 queries × 9 snippets, in the same order, with the same verdicts.
  assert.equal(all.pairs, bench.queries.length * bench.corpus.length);
  assert.deepStrictEqual(verdicts(one), verdicts(all));
  assert.deepEqual([one.pairs, one.not_defined], [all.pairs, all.not_defined]);
  assert.equal(narrow.most(), 1);
  assert.ok(wide.most() > 1, `the unbounded path had ${wide.most()} call in flight`);
  assert.equal(narrow.calls(), all.pairs - all.not_defined);

  // The skipped pairs are exactly those the plain rule proves, one pair at a time.
  let proven = 0;
  bench.queries.forEach((_, q) => {
    bench.corpus.forEach((_, c) => {
      const name = undefinedName(facts.snippets.get(String(c))!, facts.suites.get(String(q))!);
      const r = all.results.get(pairKey(q, c))!;
      if (name !== null) proven++;
      assert.equal(r.outcomes.every((o) => o === NOT_DEFINED), name !== null, `pair ${q}:${c}`);
    });
  });
  assert.ok(proven > 0 && proven < all.pairs, `${proven} of ${all.pairs} pairs proven`);
  assert.equal(all.not_defined, proven);
});
