import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeStatistics } from '../../core/report/statistics.ts';
import type { ConfigScores, QueryScore } from '../../core/report/types.ts';
import { METRICS, type MetricName } from '../../core/metrics/per_query.ts';
import { mcnemarExact } from '../../core/stats/mcnemar.ts';

/** A query whose metrics are all derived from where the first passing snippet sits (99 = none). */
function q(id: string, domain: string, firstPass: number, deceivedBy: string[]): QueryScore {
  const m = {} as Record<MetricName, number>;
  for (const name of METRICS) m[name] = 0;
  for (const k of [1, 3, 5, 10]) m[`exec@${k}` as MetricName] = firstPass <= k ? 1 : 0;
  m['rr_exec@10'] = firstPass <= 10 ? 1 / firstPass : 0;
  m.canonical_rank = firstPass;
  const bugs = ['off_by_one', 'wrong_operator'];
  const by: Record<string, { outscores: number; ties: number; total: number }> = {};
  for (const b of bugs) by[b] = { outscores: deceivedBy.includes(b) ? 1 : 0, ties: 0, total: 1 };
  return {
    query_id: id,
    domain,
    metrics: m,
    deception: {
      has_distractor: 1,
      deceived: deceivedBy.length ? 1 : 0,
      rank1_miss: firstPass === 1 ? 0 : 1,
      rank1_own_distractor: firstPass !== 1 && deceivedBy.length ? 1 : 0,
      tied: id === 'q2' ? 1 : 0,
      pref_wins: 2 - deceivedBy.length,
      pref_pairs: 2,
      by_bug_type: by,
    },
  };
}

const A: ConfigScores = {
  config_id: 'A',
  queries: [q('q1', 'math', 1, []), q('q2', 'math', 1, []), q('q3', 'string', 2, ['off_by_one']), q('q4', 'string', 1, []), q('q5', 'math', 99, ['off_by_one', 'wrong_operator'])],
};
const B: ConfigScores = {
  config_id: 'B',
  queries: [q('q1', 'math', 2, ['wrong_operator']), q('q2', 'math', 3, ['off_by_one']), q('q3', 'string', 1, []), q('q4', 'string', 4, ['off_by_one']), q('q5', 'math', 99, [])],
};
const settings = { replicates: 2000, seed: 7, alpha: 0.05 };

test('estimates are the hand-computed means and ratios', () => {
  const s = computeStatistics([A, B], settings);
  const e = s.estimates;
  assert.equal(e.A['exec@1'].estimate, 3 / 5);
  assert.equal(e.B['exec@1'].estimate, 1 / 5);
  assert.equal(e.A['exec@3'].estimate, 4 / 5);
  assert.equal(e.A.deception_rate.estimate, 2 / 5);
  assert.equal(e.B.deception_rate.estimate, 3 / 5);
  assert.equal(e.A.tie_rate.estimate, 1 / 5);
  // A's rank-1 misses: q3 (deceived) and q5 (deceived) -> 2/2; B's: q1,q2,q4 deceived, q5 not -> 3/4.
  assert.equal(e.A.rank1_own_share.estimate, 1);
  assert.equal(e.B.rank1_own_share.estimate, 3 / 4);
  assert.equal(e.A.pref_accuracy.estimate, 7 / 10);
  assert.equal(e.A['bug_outscore:off_by_one'].estimate, 2 / 5);
  assert.equal(e.A['bug_outscore:wrong_operator'].estimate, 1 / 5);
  assert.equal(e.A['domain_deception:string'].estimate, 1 / 2);
  assert.equal(e.A['domain_deception:math'].estimate, 1 / 3);
  assert.deepEqual(s.bug_types, ['off_by_one', 'wrong_operator']);
  assert.deepEqual(s.domains, ['math', 'string']);
  for (const config of ['A', 'B']) {
    for (const st of Object.values(e[config])) {
      assert.ok(st.ci_low! <= st.estimate + 1e-12 && st.estimate <= st.ci_high! + 1e-12, `${config} ${st.key} ${st.ci_low} ${st.estimate} ${st.ci_high}`);
    }
  }
});

test('pairwise rows: McNemar on discordant exec@1, paired-bootstrap difference, Holm per metric', () => {
  const C: ConfigScores = { config_id: 'C', queries: A.queries.map((x) => ({ ...x })) };
  const s = computeStatistics([A, B, C], settings);
  const ab = s.pairwise.find((r) => r.metric === 'exec@1' && r.config_a === 'A' && r.config_b === 'B')!;
  // exec@1 A = [1,1,0,1,0], B = [0,0,1,0,0]: b = 3 (A only), c = 1 (B only).
  assert.deepEqual([ab.b, ab.c], [3, 1]);
  assert.equal(ab.p_value, mcnemarExact(3, 1).p_value);
  assert.ok(Math.abs(ab.diff - 0.4) < 1e-12);
  assert.ok(ab.ci_low! <= 0.4 && 0.4 <= ab.ci_high!);
  const ac = s.pairwise.find((r) => r.metric === 'exec@1' && r.config_a === 'A' && r.config_b === 'C')!;
  assert.deepEqual([ac.b, ac.c, ac.p_value, ac.diff, ac.ci_low, ac.ci_high], [0, 0, 1, 0, 0, 0]); // identical configs
  // Holm over the three exec@1 pairs: p = [0.625 (AB), 1 (AC), 0.625 (BC)] -> [1, 1, 1] after capping.
  const fam = s.pairwise.filter((r) => r.metric === 'exec@1');
  assert.equal(fam.length, 3);
  for (const r of fam) assert.ok(r.p_holm! >= r.p_value!);
  // Continuous metrics: interval, no test.
  const nd = s.pairwise.find((r) => r.metric === 'ndcg@10')!;
  assert.equal(nd.p_value, null);
  assert.equal(s.pairwise.length, 3 * 16);
});

test('same seed, same intervals; configurations must cover the same queries', () => {
  const x = computeStatistics([A, B], settings);
  const y = computeStatistics([A, B], settings);
  assert.deepEqual(x.estimates, y.estimates);
  const short: ConfigScores = { config_id: 'S', queries: A.queries.slice(1) };
  assert.throws(() => computeStatistics([A, short], settings), /same queries/);
});
