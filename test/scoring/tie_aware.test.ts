import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execAtK } from '../../core/metrics/exec_at_k.ts';
import { executionPrecisionAtK } from '../../core/metrics/execution_precision.ts';
import { ndcgAtK } from '../../core/metrics/ndcg.ts';
import { reciprocalRankFirstPassing } from '../../core/metrics/reciprocal_rank.ts';
import {
  expectedExecAtK,
  expectedNdcgAtK,
  expectedPrecisionAtK,
  expectedReciprocalRank,
  tieClosureEnd,
  tieGroups,
} from '../../core/metrics/tie_aware.ts';
import { evaluateQuery } from '../../core/metrics/per_query.ts';

const close = (a: number, b: number, msg = '') => assert.ok(Math.abs(a - b) < 1e-12, `${msg}: ${a} vs ${b}`);

/** Every permutation of xs (small arrays only). */
function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [xs.slice()];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

/**
 * The definition itself, independently of the closed forms: average a hash-order metric over every order of
 * every tied group (the cartesian product of each group's permutations).
 */
function bruteForce(scores: number[], flags: boolean[], metric: (order: boolean[]) => number): number {
  let orders: boolean[][] = [[]];
  for (const g of tieGroups(scores)) {
    const perms = permutations(flags.slice(g.start, g.end));
    orders = orders.flatMap((o) => perms.map((p) => [...o, ...p]));
  }
  return orders.reduce((a, o) => a + metric(o), 0) / orders.length;
}

/** Deterministic pseudo-random cases: scores drawn from few values so groups form, flags ~40% true. */
function cases(n: number): { scores: number[]; flags: boolean[] }[] {
  let x = 12345;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: n }, () => {
    const len = 4 + Math.floor(rnd() * 9); // 4..12 items
    const scores = Array.from({ length: len }, () => Math.floor(rnd() * 4)).sort((a, b) => b - a);
    return { scores, flags: scores.map(() => rnd() < 0.4) };
  });
}

test('tie-aware exec@k, execp@k, RR and nDCG equal the average over every order of each tied group', () => {
  let straddling = 0;
  for (const { scores, flags } of cases(60)) {
    for (const k of [1, 3, 5, 10]) {
      close(expectedExecAtK(scores, flags, k), bruteForce(scores, flags, (o) => execAtK(o, k)), `exec@${k} ${scores}`);
      close(expectedPrecisionAtK(scores, flags, k), bruteForce(scores, flags, (o) => executionPrecisionAtK(o, k)), `execp@${k}`);
      const nRel = flags.filter(Boolean).length + 1; // one relevant item outside the list
      const ids = (o: boolean[]) => o.map((f, i) => (f ? `r${i}` : `n${i}`));
      const rel = (o: boolean[]) => new Set([...ids(o).filter((id) => id.startsWith('r')), 'missing']);
      close(expectedNdcgAtK(scores, flags, nRel, k), bruteForce(scores, flags, (o) => ndcgAtK(ids(o), rel(o), k)), `ndcg@${k}`);
      if (tieGroups(scores).some((g) => g.start < k && g.end > k)) straddling++;
    }
    close(expectedReciprocalRank(scores, flags, 10), bruteForce(scores, flags, (o) => reciprocalRankFirstPassing(o, 10)), `rr ${scores}`);
    close(expectedReciprocalRank(scores, flags, 3), bruteForce(scores, flags, (o) => reciprocalRankFirstPassing(o, 3)), `rr@3 ${scores}`);
  }
  assert.ok(straddling > 30, `the cases exercise groups that straddle the cutoff (${straddling})`);
});

test('hand-worked: canonical and three token-identical twins tied at the top', () => {
  // Four items share the top score; one (the canonical) passes. Hash order happened to put it third.
  const scores = [5, 5, 5, 5, 2];
  const passed = [false, false, true, false, false];
  assert.equal(execAtK(passed, 1), 0);
  close(expectedExecAtK(scores, passed, 1), 1 / 4);
  close(expectedExecAtK(scores, passed, 3), 3 / 4); // 1 − C(3,3)/C(4,3)
  close(expectedPrecisionAtK(scores, passed, 3), (3 * (1 / 4)) / 3);
  close(expectedReciprocalRank(scores, passed), (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4);
  close(reciprocalRankFirstPassing(passed), 1 / 3);
  // Without ties the expectation is the hash-order value.
  const distinct = [5, 4, 3, 2, 1];
  for (const k of [1, 3, 5]) {
    assert.equal(expectedExecAtK(distinct, passed, k), execAtK(passed, k));
    close(expectedPrecisionAtK(distinct, passed, k), executionPrecisionAtK(passed, k));
  }
  close(expectedReciprocalRank(distinct, passed), 1 / 3);
});

test('the tie closure extends the top-10 to the end of the group tied with rank 10', () => {
  const s = [9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 0.5];
  assert.equal(tieClosureEnd(s, 10), 12);
  assert.equal(tieClosureEnd(s.slice(0, 10), 10), 10);
  assert.equal(tieClosureEnd([3, 2, 1], 10), 3);
  assert.equal(tieClosureEnd([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0], 10), 11);
  // evaluateQuery needs the verdicts of the whole closure, and uses them for the _ta values only.
  const ranked = s.map((_, i) => `c${i}`);
  const passed = [false, false, false, false, false, false, false, false, false, false, true, false];
  assert.throws(() => evaluateQuery({ ranked, scores: s, passed: passed.slice(0, 10), relevant: new Set(['c10']), canonical_rank: 11 }), /12 ranked snippets need verdicts/);
  const m = evaluateQuery({ ranked, scores: s, passed, relevant: new Set(['c10']), canonical_rank: 11 });
  assert.equal(m['exec@10'], 0);
  close(m['exec@10_ta'], 2 / 4); // the group of four holds places 9..12; two of them are inside the top-10
  close(m['ndcg@10_ta'], ((1 / 4) * (1 / Math.log2(10) + 1 / Math.log2(11))) / 1);
  assert.equal(m['ndcg@10'], 0);
});
