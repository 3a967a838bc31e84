// Pure mutation logic: classification, ordering, selection, round planning, descriptions, yield counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyOutcomes } from '../../core/mutation/classify.ts';
import { verificationOrder } from '../../core/mutation/order.ts';
import { selectDistractors } from '../../core/mutation/select.ts';
import { isDone, nextRound, type TaskProgress } from '../../core/mutation/rounds.ts';
import { canonicalTooSlow, mutantTimeLimitS } from '../../core/mutation/timeLimit.ts';
import { describeMutation } from '../../core/mutation/describe.ts';
import { buildYieldReport } from '../../core/mutation/yieldReport.ts';
import type { MutationCandidate, VerifiedCandidate } from '../../core/mutation/types.ts';
import type { BugType } from '../../schemas/task.ts';

function cand(bug_type: BugType, n: number, in_while = false): MutationCandidate {
  return { operator: `op_${bug_type}`, bug_type, start: n, end: n + 1, line: 1, original: 'x', replacement: 'y', code: `c${bug_type}${n}`, in_while };
}
const kept = (c: MutationCandidate, failing: number[]): VerifiedCandidate => ({ candidate: c, verdict: 'kept', failing_tests: failing });

test('classification follows the paper: fail a test, and at least one failure is wrong output', () => {
  assert.deepEqual(classifyOutcomes(['pass', 'pass']), { verdict: 'equivalent', failing_tests: [] });
  assert.deepEqual(classifyOutcomes(['pass', 'ERROR: TypeError', 'TIMEOUT']), { verdict: 'crash_only', failing_tests: [1, 2], timed_out: true });
  assert.deepEqual(classifyOutcomes(['FAIL', 'ERROR: TypeError', 'pass']), { verdict: 'kept', failing_tests: [0, 1] });
  assert.deepEqual(classifyOutcomes(['pass', 'FAIL: expected 3']), { verdict: 'kept', failing_tests: [1] });
});

test('verification order is seeded, a permutation, round-robin over bug types, while-loop candidates last', () => {
  const cs = [cand('off_by_one', 1), cand('off_by_one', 2), cand('off_by_one', 3), cand('wrong_operator', 4),
    cand('wrong_comparison', 5, true), cand('wrong_operator', 6), cand('swap_arguments', 7)];
  const a = verificationOrder(cs, 7, 't1');
  assert.deepEqual(a, verificationOrder(cs, 7, 't1'), 'same seed, same order');
  assert.deepEqual([...a].sort(), [0, 1, 2, 3, 4, 5, 6]);
  assert.equal(a[a.length - 1], 4, 'the only in-while candidate is last');
  // The first three cover the three non-loop bug types.
  assert.equal(new Set(a.slice(0, 3).map((i) => cs[i].bug_type)).size, 3);
  const orders = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((s) => verificationOrder(cs, s, 't1').join()));
  assert.ok(orders.size > 1, 'the seed changes the order');
});

test('within a bug type, operators take turns: the one with most sites does not take every early slot', () => {
  const op = (operator: string, n: number): MutationCandidate => ({ ...cand('off_by_one', n), operator, code: `c${n}` });
  const cs = [...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => op('seq_bound', n)), op('int_constant', 9), op('range_bound', 10)];
  for (const seed of [1, 2, 3, 4, 5]) {
    const order = verificationOrder(cs, seed, 't');
    assert.deepEqual(new Set(order.slice(0, 3).map((i) => cs[i].operator)), new Set(['seq_bound', 'int_constant', 'range_bound']));
  }
});

test('selection: distinct bug types first, then distinct failing subsets, never all identical', () => {
  const a = cand('off_by_one', 1), b = cand('off_by_one', 2), c = cand('wrong_operator', 3), d = cand('off_by_one', 4), e = cand('off_by_one', 5);
  // Types first: a (off_by_one) and c (wrong_operator); then a new subset (d: [2]) before a repeated one (b: [0]).
  const sel = selectDistractors([kept(a, [0]), kept(b, [0]), kept(c, [0, 1]), kept(d, [2]), kept(e, [0])], 3);
  assert.deepEqual(sel.map((v) => v.candidate), [a, c, d]);
  // Four distinct types that all fail the same subset: the last is swapped for one with another subset.
  const t = [cand('off_by_one', 1), cand('wrong_operator', 2), cand('swap_arguments', 3), cand('wrong_comparison', 4)];
  const x = cand('off_by_one', 9);
  const sel2 = selectDistractors([...t.map((c2) => kept(c2, [0, 1, 2])), kept(x, [1])], 4);
  assert.deepEqual(sel2.map((v) => v.candidate), [t[0], t[1], t[2], x]);
  // Nothing with another subset exists: keep one (two or more identical ones fail the gate).
  const sel3 = selectDistractors(t.map((c2) => kept(c2, [0])), 4);
  assert.equal(sel3.length, 1);
  // A profile without the rule (mbpp: 3 tests) keeps all four.
  assert.deepEqual(selectDistractors(t.map((c2) => kept(c2, [0])), 4, false).map((v) => v.candidate), t);
  assert.equal(selectDistractors([], 4).length, 0);
});

test('rounds: first one per missing bug type, stop once the selection cannot improve', () => {
  const cs = [cand('off_by_one', 1), cand('off_by_one', 2), cand('wrong_operator', 3), cand('wrong_operator', 4), cand('swap_arguments', 5), cand('off_by_one', 6)];
  const p: TaskProgress = { candidates: cs, order: [0, 2, 4, 1, 3, 5], tried: new Set(), verified: [] };
  const limits = { max: 4, roundSize: 4, cap: 40 };
  assert.deepEqual(nextRound(p, limits), [0, 2, 4, 1], 'one per type, then fill in order');
  const fail = [[0], [1], [0, 1], [2]];
  [0, 2, 4, 1].forEach((i, k) => { p.tried.add(i); p.verified.push(kept(cs[i], fail[k])); });
  assert.ok(isDone(p, limits), '4 kept covering all 3 available types');
  assert.deepEqual(nextRound(p, limits), []);
  // An equivalent mutant of a type leaves that type wanted while its candidates remain.
  const q: TaskProgress = { candidates: cs, order: [0, 2, 4, 1, 3, 5], tried: new Set([0, 2, 4, 1]), verified: [
    kept(cs[0], [0]), kept(cs[2], [1]), { candidate: cs[4], verdict: 'equivalent', failing_tests: [] }, kept(cs[1], [2])] };
  assert.deepEqual(nextRound(q, limits), [3, 5], 'fewer than 4 selectable: keep going in order');
  assert.ok(isDone({ ...q, tried: new Set([0, 1, 2, 3, 4, 5]) }, limits), 'nothing left to try');
  assert.ok(isDone({ ...q, tried: new Set([0, 2]) }, { ...limits, cap: 2 }), 'cap reached');
});

test('rounds: when selection gave up a type for subset diversity, keep trying in order instead of stalling', () => {
  const t = [cand('off_by_one', 1), cand('wrong_operator', 2), cand('swap_arguments', 3), cand('wrong_comparison', 4), cand('off_by_one', 5), cand('off_by_one', 6)];
  const p: TaskProgress = { candidates: t, order: [0, 1, 2, 3, 4, 5], tried: new Set([0, 1, 2, 3, 4]), verified: [
    ...t.slice(0, 4).map((c) => kept(c, [0])), kept(t[4], [1])] };
  const limits = { max: 4, roundSize: 4, cap: 40 };
  assert.equal(isDone(p, limits), false);
  assert.deepEqual(nextRound(p, limits), [5]);
});

test('rounds: a one-test suite under the distinct-subset rule stops at its one attainable distractor', () => {
  const cs = [cand('off_by_one', 1), cand('wrong_operator', 2), cand('swap_arguments', 3), cand('off_by_one', 4), cand('wrong_comparison', 5)];
  const limits = { max: 4, roundSize: 4, cap: 40, distinctSubsets: true };
  const p: TaskProgress = { candidates: cs, order: [0, 1, 2, 3, 4], tried: new Set([0]), verified: [kept(cs[0], [0])], tests: 1 };
  assert.ok(isDone(p, limits), 'one kept: every other would fail the same subset [0]');
  assert.deepEqual(nextRound(p, limits), []);
  // The same state with more tests, or without the rule, goes on (selection can still grow).
  assert.equal(isDone({ ...p, tests: 3 }, limits), false);
  assert.equal(isDone(p, { ...limits, distinctSubsets: false }), false);
  assert.deepEqual(nextRound(p, { ...limits, distinctSubsets: false }), [1, 2, 3, 4]);
  // Nothing kept yet: keep verifying.
  assert.deepEqual(nextRound({ ...p, tried: new Set([0]), verified: [{ candidate: cs[0], verdict: 'equivalent', failing_tests: [] }] }, limits), [1, 2, 3, 4]);
});

test('mutant time limits: 5x the canonical, floor 0.1 s, rounded up to a tier, never above the old fixed tiers', () => {
  assert.equal(mutantTimeLimitS(5), 0.1); // the median MBPP canonical: floor
  assert.equal(mutantTimeLimitS(12.3), 0.1); // the slowest MBPP canonical, loaded: still the floor
  assert.equal(mutantTimeLimitS(20), 0.1);
  assert.equal(mutantTimeLimitS(21), 0.2); // 0.105 s -> next tier
  assert.equal(mutantTimeLimitS(40), 0.2);
  assert.equal(mutantTimeLimitS(41), 0.5);
  assert.equal(mutantTimeLimitS(120), 1);
  assert.equal(mutantTimeLimitS(249), 1); // 1.245 s -> tier 2, capped by the old 1 s tier under 250 ms
  assert.equal(mutantTimeLimitS(250), 2); // 1.25 s -> tier 2, old tier 3
  assert.equal(mutantTimeLimitS(2000), 5);
  assert.equal(mutantTimeLimitS(5000), 5);
  for (const ms of [0, 3, 19, 33, 99, 180, 400, 900, 1500]) {
    const old = ms < 250 ? 1 : ms < 1000 ? 3 : 5;
    const limit = mutantTimeLimitS(ms);
    assert.ok(limit <= old && limit >= Math.min(old, Math.max(0.1, (5 * ms) / 1000)), `${ms} ms -> ${limit} s`);
  }
});

test('a canonical is too slow over 1 s of CPU time (MBPP: only mbpp_123, 2-4 s; the next slowest under 15 ms)', () => {
  assert.equal(canonicalTooSlow(15), false);
  assert.equal(canonicalTooSlow(1000), false);
  assert.equal(canonicalTooSlow(1001), true);
  assert.equal(canonicalTooSlow(2000), true);
});

test('bug descriptions say what changed and where', () => {
  const canonical = 'def f(n):\n    for i in range(1, n):\n        pass\n';
  const c: MutationCandidate = { operator: 'int_constant', bug_type: 'off_by_one', start: 29, end: 30, line: 2, original: '1', replacement: '2', code: '', in_while: false };
  assert.equal(describeMutation(c, canonical), 'off_by_one at line 2: changed the integer constant 1 to 2 in `for i in range(1, n):`');
});

test('yield report counts per operator and bug type; verified = equivalent + crash_only + kept', () => {
  const a = cand('off_by_one', 1), b = cand('off_by_one', 2), c = cand('wrong_operator', 3);
  const r = buildYieldReport([
    { candidates: [a, b, c], verified: [kept(a, [0]), { candidate: b, verdict: 'equivalent', failing_tests: [] }], selected: [kept(a, [0])] },
    { candidates: [c], verified: [{ candidate: c, verdict: 'crash_only', failing_tests: [0] }], selected: [] },
  ]);
  assert.deepEqual(r.total, { candidates: 4, verified: 3, equivalent: 1, crash_only: 1, kept: 1, selected: 1, timed_out: 0 });
  assert.deepEqual(r.by_bug_type.off_by_one, { candidates: 2, verified: 2, equivalent: 1, crash_only: 0, kept: 1, selected: 1, timed_out: 0 });
  assert.deepEqual(r.by_operator.op_wrong_operator, { candidates: 2, verified: 1, equivalent: 0, crash_only: 1, kept: 0, selected: 0, timed_out: 0 });
  assert.deepEqual(r.selected_per_task, { '0': 1, '1': 1 });
});
