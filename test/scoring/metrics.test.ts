import { idOrderOf, topK } from '../../core/ranking/topk.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execAtK } from '../../core/metrics/exec_at_k.ts';
import { executionPrecisionAtK } from '../../core/metrics/execution_precision.ts';
import { ndcgAtK } from '../../core/metrics/ndcg.ts';
import { reciprocalRankFirstPassing } from '../../core/metrics/reciprocal_rank.ts';
import { canonicalRank, rankInScores } from '../../core/metrics/canonical_rank.ts';
import { evaluateQuery, METRICS } from '../../core/metrics/per_query.ts';

const close = (a: number, b: number, msg = '') => assert.ok(Math.abs(a - b) < 1e-12, `${msg} ${a} vs ${b}`);

test('exec@k, execp@k and first-pass reciprocal rank: hand-worked', () => {
  // Ranks:         1      2     3      4     5      6      7      8      9      10
  const passed = [false, false, true, false, true, false, false, false, false, true];
  assert.deepEqual([1, 3, 5, 10].map((k) => execAtK(passed, k)), [0, 1, 1, 1]);
  close(executionPrecisionAtK(passed, 1), 0);
  close(executionPrecisionAtK(passed, 3), 1 / 3);
  close(executionPrecisionAtK(passed, 5), 2 / 5);
  close(executionPrecisionAtK(passed, 10), 3 / 10);
  close(reciprocalRankFirstPassing(passed), 1 / 3);
  close(reciprocalRankFirstPassing(new Array(10).fill(false)), 0);
  // Only the top-10 is executed: a pass at rank 11 does not count.
  close(reciprocalRankFirstPassing([...new Array(10).fill(false), true]), 0);
  // Short ranking: precision keeps k in the denominator (trec_eval P_k convention).
  close(executionPrecisionAtK([true, true], 5), 2 / 5);
  assert.throws(() => execAtK(passed, 0), /positive integer/);
});

test('canonical nDCG@k matches pytrec_eval ndcg_cut', () => {
  // Reference: pytrec_eval-terrier 0.5.11, RelevanceEvaluator(qrels, {'ndcg_cut.1,3,5,10'}) on these runs, with
  // binary qrels (relevance 1) and distinct scores so trec_eval's own tie rule plays no part; run once in a
  // throwaway venv. Runs listed in descending score order.
  const cases: { ranked: string[]; rel: string[]; expect: [number, number, number, number] }[] = [
    { ranked: ['q1_d1', 'q1_canonical', 'q1_d2', 'q2_canonical'], rel: ['q1_canonical'], expect: [0, 0.6309297535714575, 0.6309297535714575, 0.6309297535714575] },
    { ranked: ['q2_canonical', 'q1_canonical'], rel: ['q2_canonical'], expect: [1, 1, 1, 1] },
    { ranked: ['c', 'd', 'b', 'e', 'f', 'a'], rel: ['a', 'b'], expect: [0, 0.3065735963827292, 0.3065735963827292, 0.5249810332008933] },
    {
      ranked: ['q4_d1', 'q4_d2', 'q4_d3', 'q4_d4', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'q4_canonical'],
      rel: ['q4_canonical'],
      expect: [0, 0, 0, 0],
    },
    { ranked: ['x', 'n', 'z', 'm'], rel: ['x', 'y', 'z'], expect: [1, 0.7039180890341347, 0.7039180890341347, 0.7039180890341347] },
  ];
  for (const c of cases) {
    [1, 3, 5, 10].forEach((k, i) => close(ndcgAtK(c.ranked, new Set(c.rel), k), c.expect[i], `${c.ranked[0]} @${k}`));
  }
  // Hand: canonical at rank 2 of 1 relevant -> 1/log2(3) = 0.6309...
  close(ndcgAtK(['a', 'b'], new Set(['b']), 10), 1 / Math.log2(3));
});

test('canonical rank counts higher scores, then equal scores earlier in the tie order', () => {
  const ids = ['q1_d1', 'q1_canonical', 'q1_d2', 'q2_canonical', 'a_other'];
  const scores = [0.9, 0.8, 0.8, 0.95, 0.8];
  // Tie order given by hand: a_other, q1_canonical, q1_d1, q1_d2, q2_canonical.
  const order = Int32Array.from([2, 1, 3, 4, 0]);
  // Higher: 0.9, 0.95 -> 2; equal 0.8 earlier in the tie order: a_other -> 1; q1_d2 later -> no.
  assert.equal(rankInScores(scores, order, 1), 4);
  assert.equal(rankInScores(scores, order, 3), 1);
  assert.equal(canonicalRank(scores, order, [1, 0]), 2); // best of two correct items
  assert.throws(() => canonicalRank(scores, order, []), /at least one/);
  // Agrees with the position topK gives each item under the real (hashed) tie order.
  const real = idOrderOf(ids);
  const full = Array.from(topK(scores, real, ids.length));
  ids.forEach((_, i) => assert.equal(rankInScores(scores, real, i), full.indexOf(i) + 1));
});

test('evaluateQuery returns every metric, in the METRICS order', () => {
  const ranked = ['d1', 'c', 'd2', 'x', 'y', 'z', 'u', 'v', 'w', 't'];
  const passed = [false, true, false, false, false, false, false, false, false, true];
  const scores = ranked.map((_, i) => 1 - i / 10);
  const m = evaluateQuery({ ranked, scores, passed, relevant: new Set(['c']), canonical_rank: 2 });
  assert.deepEqual(Object.keys(m), [...METRICS]);
  assert.equal(m['exec@1'], 0);
  assert.equal(m['exec@3'], 1);
  close(m['execp@10'], 0.2);
  close(m['ndcg@3'], 1 / Math.log2(3));
  close(m['rr_exec@10'], 0.5);
  assert.equal(m.canonical_rank, 2);
  assert.throws(() => evaluateQuery({ ranked, scores, passed: [true], relevant: new Set(['c']), canonical_rank: 2 }), /verdicts/);
});
