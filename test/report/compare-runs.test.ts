import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { scoreRun } from '../../activities/scoring/scoreRun.ts';
import { compareRuns } from '../../activities/scoring/compareRuns.ts';
import { compareSameBenchmark } from '../../core/report/runComparison.ts';
import { METRICS, type MetricName } from '../../core/metrics/per_query.ts';
import type { ConfigScores, QueryScore } from '../../core/report/types.ts';
import { CANONICAL_FIRST, writeConfig, writeTinyRun } from '../scoring/fixtures/tinyBenchmark.ts';

const settings = { replicates: 300, seed: 5, alpha: 0.05 };

function config(id: string, exec1: number[]): ConfigScores {
  const queries: QueryScore[] = exec1.map((v, i) => {
    const metrics = {} as Record<MetricName, number>;
    for (const m of METRICS) metrics[m] = v;
    return {
      query_id: `q${i}`,
      domain: null,
      metrics,
      deception: { has_distractor: 1, deceived: 0, tied: 0, rank1_miss: v ? 0 : 1, rank1_own_distractor: 0, pref_wins: 1, pref_pairs: 1, by_bug_type: {} },
    };
  });
  return { config_id: id, queries };
}

test('same benchmark: per shared configuration, McNemar on the discordant queries, Holm across configurations', () => {
  // x: A passes 7 queries B fails, B passes 1 A fails; y: 3 against 0. z is only in run A.
  const a = [config('x', [1, 1, 1, 1, 1, 1, 1, 0, 1, 0]), config('y', [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]), config('z', new Array(10).fill(1))];
  const b = [config('y', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), config('x', [0, 0, 0, 0, 0, 0, 0, 1, 1, 0])];
  const r = compareSameBenchmark(a, b, settings);
  assert.deepEqual([r.common, r.only_a, r.only_b], [['x', 'y'], ['z'], []]);
  const row = (c: string) => r.rows.find((x) => x.config_id === c && x.metric === 'exec@1')!;
  assert.deepEqual([row('x').b, row('x').c, row('y').b, row('y').c], [7, 1, 3, 0]);
  // Exact two-sided binomial on the discordant pairs, by hand: 2 · P(X <= 1 | n = 8) = 2 · 9/256; 2 · 1/8.
  const px = (2 * 9) / 256;
  const py = 2 / 8;
  const close = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-12, `${a} vs ${b}`);
  close(row('x').p_value, px);
  close(row('y').p_value, py);
  // Holm over the two configurations of exec@1: min(1, 2 · px) = 0.140625, then max(that, py) = 0.25.
  close(row('x').p_holm, 0.140625);
  close(row('y').p_holm, 0.25);
  assert.ok(Math.abs(row('x').diff! - 0.6) < 1e-12);
  // Non-binary metrics carry the bootstrap difference only.
  assert.equal(r.rows.find((x) => x.config_id === 'x' && x.metric === 'ndcg@10')!.p_value, null);
  assert.throws(() => compareSameBenchmark([config('x', [1, 0])], [config('x', [1, 0, 1])], settings), /same queries/);
});

describe('compare-runs on scored runs', () => {
  let dir: string;
  let oracle: Oracle;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'execretrieval-compare-runs-'));
    oracle = await openOracle({ cachePath: join(dir, 'exec-cache.sqlite'), concurrency: 2 });
    const a = join(dir, 'a');
    writeTinyRun(a);
    const b = join(dir, 'b');
    cpSync(a, b, { recursive: true });
    // Run B's `toy` ranks every canonical first: exec@1 [1,1,1,1] against A's [0,1,1,0].
    writeConfig(b, 'toy', CANONICAL_FIRST);
    await scoreRun({ runDir: a, oracle, configs: ['toy', 'bm25'], replicates: 200, seed: 1 });
    await scoreRun({ runDir: b, oracle, configs: ['toy', 'bm25'], replicates: 200, seed: 1 });
  });
  after(async () => {
    await oracle?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('same benchmark: paired rows per configuration', () => {
    const r = compareRuns(join(dir, 'a'), join(dir, 'b'), settings);
    assert.equal(r.same_benchmark, true);
    assert.deepEqual(r.common, ['toy', 'bm25']);
    const toy = r.rows.find((x) => x.config_id === 'toy' && x.metric === 'exec@1')!;
    assert.deepEqual([toy.value_a, toy.value_b, toy.b, toy.c, toy.p_value], [0.5, 1, 0, 2, 0.5]);
    const bm25 = r.rows.find((x) => x.config_id === 'bm25' && x.metric === 'exec@1')!;
    assert.deepEqual([bm25.b, bm25.c, bm25.diff], [0, 0, 0]); // same ranking in both runs
  });

  test('different benchmarks: headline side by side, no test', async () => {
    const c = join(dir, 'c');
    cpSync(join(dir, 'a'), c, { recursive: true });
    const qf = join(c, 'benchmark', 'queries.jsonl');
    writeFileSync(qf, readFileSync(qf, 'utf8').trim().split('\n').slice(0, -1).join('\n') + '\n'); // drops q_0004
    await scoreRun({ runDir: c, oracle, configs: ['bm25'], replicates: 200, seed: 1 });
    const r = compareRuns(join(dir, 'a'), c, settings);
    assert.equal(r.same_benchmark, false);
    assert.deepEqual([r.common, r.only_a], [['toy', 'bm25'].filter((x) => x === 'bm25'), ['toy']]);
    assert.ok(r.rows.every((x) => x.p_value === null && x.diff === null));
    const e1 = r.rows.find((x) => x.config_id === 'bm25' && x.metric === 'exec@1')!;
    const sa = JSON.parse(readFileSync(join(dir, 'a', 'report', 'summary.json'), 'utf8'));
    const sc = JSON.parse(readFileSync(join(c, 'report', 'summary.json'), 'utf8'));
    assert.deepEqual([e1.value_a, e1.value_b], [sa.estimates.bm25['exec@1'].estimate, sc.estimates.bm25['exec@1'].estimate]);
  });
});
