import { test } from 'node:test';
import assert from 'node:assert/strict';
import { densityScaling } from '../../core/report/density.ts';
import { queriesToResolve, rankResolution } from '../../core/report/resolution.ts';
import { analysesMarkdown } from '../../core/report/analysesMarkdown.ts';
import { secondStage } from '../../core/report/secondStage.ts';
import { deceptionByEditPosition } from '../../core/report/editPosition.ts';
import { unseenEdits } from '../../activities/scoring/editPosition.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { projectRoot } from '../../activities/paths.ts';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { AutoTokenizer, PreTrainedTokenizer, env, type Tensor } from '@huggingface/transformers';
import { tokenizeTruncated } from '../../activities/embeddings/providers/truncation.ts';
import type { PairwiseRow } from '../../core/stats/pairwise.ts';
import type { ScoredQuery } from '../../core/report/types.ts';

const SETTINGS = { replicates: 200, seed: 1, alpha: 0.05 };

/** A scored query with only what the analyses read: executed hits (rank order) and the own items with scores. */
function q(query_id: string, hits: [string, boolean][], own: [string, number, boolean][]): ScoredQuery {
  return {
    query_id,
    domain: null,
    metrics: {} as ScoredQuery['metrics'],
    deception: {} as ScoredQuery['deception'],
    hits: hits.map(([corpus_id, passed], i) => ({ corpus_id, passed, score: 1 - i / 100, outcomes: [] })),
    own: own.map(([corpus_id, score, is_canonical]) => ({ corpus_id, score, is_canonical, rank: 0, bug_type: is_canonical ? null : 'x' })),
    ties: { closure: hits.length, truncated: 0 },
  };
}

// A: two twins above its canonical; B: its canonical first, a foreign twin (A's a1) and its own twin below.
const A = q('A', [['a1', false], ['a2', false], ['cA', true], ['x', false]], [['cA', 0.5, true], ['a1', 0.9, false], ['a2', 0.8, false]]);
const B = q('B', [['cB', true], ['a1', false], ['b1', false]], [['cB', 0.9, true], ['b1', 0.7, false]]);

test('density scaling: hand-worked levels 0, 1, 2 (twins removed from the whole pool, foreign twins included)', () => {
  const t = densityScaling('m', [A, B], { levels: [0, 1, 2], draws: 3, k: 2, seed: 7 }, SETTINGS);
  const [l0, l1, l2] = t.points;
  // Level 0: no twin anywhere. A reads cA, x; B reads cB only (one survivor < k: short, the missing slot fails).
  assert.equal(l0.exec_at_1.estimate, 1);
  assert.equal(l0.execp_at_k.estimate, 0.5);
  assert.ok(Number.isNaN(l0.deception_rate.estimate));
  assert.equal(l0.short, 3); // B in each of the 3 draws
  assert.equal(l0.mean_kept, 0);
  // Level 1: whichever twin A keeps sits above cA (exec@1 0, execp@2 1/2) and outscores it; B keeps b1 (0.7 < 0.9).
  assert.equal(l1.exec_at_1.estimate, 0.5);
  assert.equal(l1.execp_at_k.estimate, 0.5);
  assert.equal(l1.deception_rate.estimate, 0.5);
  assert.equal(l1.mean_kept, 1);
  // Level 2: the full pool: the stored rankings as they are.
  assert.equal(l2.exec_at_1.estimate, 0.5);
  assert.equal(l2.execp_at_k.estimate, 0.25);
  assert.equal(l2.deception_rate.estimate, 0.5);
  assert.equal(l2.mean_kept, 1.5);
  assert.equal(l2.short, 0);
});

test('density scaling: the seeded draw decides which twin stays; many draws approach the exact expectation', () => {
  // C: twin c1 above the canonical at rank 1, twin c2 far below. At level 1, c1 stays with probability 1/2,
  // so exec@1 is exactly 1/2 in expectation and deception too (only c1 outscores).
  const C = q('C', [['c1', false], ['cC', true], ['y', false]], [['cC', 0.5, true], ['c1', 0.95, false], ['c2', 0.1, false]]);
  const one = (seed: number) => densityScaling('m', [C], { levels: [1], draws: 1, k: 1, seed }, SETTINGS).points[0].exec_at_1.estimate;
  const seen = new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(one));
  assert.deepEqual([...seen].sort(), [0, 1], 'different seeds keep different twins');
  assert.equal(one(3), one(3), 'same seed, same draw');
  const many = densityScaling('m', [C], { levels: [1], draws: 4000, k: 1, seed: 11 }, SETTINGS).points[0];
  assert.ok(Math.abs(many.exec_at_1.estimate - 0.5) < 0.03, `exec@1 ${many.exec_at_1.estimate}`);
  assert.ok(Math.abs(many.deception_rate.estimate - (1 - many.exec_at_1.estimate)) < 1e-12, 'deceived exactly when c1 stays');
});

test('density scaling is tie-aware: equal scores count as every order of the tied group, not the hash order', () => {
  // T: its canonical cT ties with twin t1 at the top (0.9), twin t2 below (0.5), then two failing snippets.
  // Hash order put t1 first, so the hash-order exec@1 read 0 at every level; tie-aware it is 1/2 while t1 stays.
  const hit = (corpus_id: string, passed: boolean, score: number) => ({ corpus_id, passed, score, outcomes: [] });
  const T: ScoredQuery = {
    ...q('T', [], [['cT', 0.9, true], ['t1', 0.9, false], ['t2', 0.5, false]]),
    hits: [hit('t1', false, 0.9), hit('cT', true, 0.9), hit('t2', false, 0.5), hit('u', false, 0.4), hit('v', false, 0.3)],
    ties: { closure: 5, truncated: 0 },
  };
  const t = densityScaling('m', [T], { levels: [0, 2], draws: 2, k: 2, seed: 3 }, SETTINGS);
  const [l0, l2] = t.points;
  // Level 0: cT alone at the top: exec@1 1; top 2 = cT, u: execp@2 1/2.
  assert.equal(l0.exec_at_1.estimate, 1);
  assert.equal(l0.execp_at_k.estimate, 0.5);
  // Level 2 (all twins): {t1, cT} tied for ranks 1-2: exec@1_ta = 1/2, execp@2_ta = (2 places × 1/2 passing) / 2 = 1/2.
  assert.equal(l2.exec_at_1.estimate, 0.5);
  assert.equal(l2.execp_at_k.estimate, 0.5);
  assert.equal(l2.short, 0);
  // A tied group at k that runs past the executed top list (closure beyond the hits) is counted as short.
  const cut: ScoredQuery = { ...T, hits: T.hits.slice(0, 2), ties: { closure: 3, truncated: 0 } };
  assert.equal(densityScaling('m', [cut], { levels: [2], draws: 1, k: 2, seed: 3 }, SETTINGS).points[0].short, 1);
});

test('density scaling: rejects a non-positive draw count', () => {
  assert.throws(() => densityScaling('m', [A], { levels: [0], draws: 0, k: 1, seed: 0 }, SETTINGS), /draws/);
});

test('queries to resolve: smallest query count at which the observed discordance gives exact McNemar p < alpha (scipy brute force)', () => {
  // Reference: a linear scan over m with scipy.stats.binom (2 * cdf(min(b, c)), b + c), b·m/n and c·m/n rounded.
  assert.equal(queriesToResolve(6, 3, 100, 0.05), 409);
  assert.equal(queriesToResolve(10, 2, 50, 0.05), 48);
  assert.equal(queriesToResolve(1, 0, 10, 0.05), 55);
  assert.equal(queriesToResolve(4, 4, 100, 0.05), null, 'no observed difference');
  // Already resolved at n: the answer is at most n.
  assert.ok(queriesToResolve(30, 5, 100, 0.05)! <= 100);
});

test('rank resolution: adjacent headline pairs, a stored row read as A − B flipped when the upper one is its B', () => {
  const row = (a: string, b: string, diff: number, lo: number, hi: number, bb: number, cc: number, holm: number): PairwiseRow => ({
    metric: 'exec@1', config_a: a, config_b: b, value_a: 0, value_b: 0, diff, ci_low: lo, ci_high: hi, b: bb, c: cc, p_value: holm, p_holm: holm,
  });
  // Headline order x > y > z; stored pairs in registry order (z, y), (x, y), (x, z).
  const pairwise = [row('z', 'y', -0.02, -0.05, 0.01, 3, 5, 0.7), row('x', 'y', 0.2, 0.1, 0.3, 25, 5, 0.001), row('x', 'z', 0.22, 0.12, 0.32, 26, 4, 0.0005)];
  const rows = rankResolution(['x', 'y', 'z'], pairwise, ['exec@1'], 100, 0.05);
  assert.equal(rows.length, 2);
  assert.deepEqual(
    { upper: rows[0].upper, lower: rows[0].lower, diff: rows[0].diff, boot: rows[0].resolved_bootstrap, mc: rows[0].resolved_mcnemar, b: rows[0].b, c: rows[0].c },
    { upper: 'x', lower: 'y', diff: 0.2, boot: true, mc: true, b: 25, c: 5 },
  );
  const yz = rows[1];
  assert.deepEqual([yz.upper, yz.lower, yz.diff, yz.ci_low, yz.ci_high, yz.b, yz.c], ['y', 'z', 0.02, -0.01, 0.05, 5, 3]);
  assert.equal(yz.resolved_bootstrap, false);
  assert.equal(yz.resolved_mcnemar, false);
  assert.equal(yz.queries_needed, queriesToResolve(5, 3, 100, 0.05));
  assert.ok(yz.queries_needed! > 100);
});

test('report.md sections: one density table per configuration (lower bounds marked), one resolution table per metric', () => {
  const t = densityScaling('m', [A, B], { levels: [0, 1, 2], draws: 3, k: 2, seed: 7 }, SETTINGS);
  const pairwise = [
    { metric: 'exec@1', config_a: 'x', config_b: 'y', value_a: 0.5, value_b: 0.4, diff: 0.1, ci_low: -0.1, ci_high: 0.3, b: 4, c: 4, p_value: 1, p_holm: 1 },
  ];
  const md = analysesMarkdown([t], rankResolution(['x', 'y'], pairwise, ['exec@1'], 10, 0.05)).join('\n');
  assert.match(md, /## Density scaling[\s\S]*### m\n/);
  // Level 0: B runs short in all 3 draws; no twin, so no deception value.
  assert.match(md, /\| 0 \| 0\.00 \| 1\.000 \[1\.000, 1\.000\] \| ≥ 0\.500 \[[^\]]+\] \| – \| 3 \|/);
  assert.match(md, /\| 2 \| 1\.50 \| 0\.500 \[[^\]]+\] \| 0\.250 \[[^\]]+\] \| 0\.500 \[[^\]]+\] \| 0 \|/);
  assert.match(md, /## Rank resolution[\s\S]*### exec@1[\s\S]*\| x \| y \| 0\.100 \[-0\.100, 0\.300\] \| no \| 4 \| 4 \| 1\.0000 \| no \| none \(b = c\) \|/);
});

test('second stage: RRF with BM25 over the top k, hand-worked; exact fused ties keep the first-stage order, not the id order', () => {
  const Q1 = q('Q1', [['d1', false], ['c', true], ['x', false]], []);
  const Q2 = q('Q2', [['z', true], ['a', false]], []); // fused tie (1,2) vs (2,1): id order would put a first
  const Q3 = q('Q3', [['d', false], ['e', false]], []);
  const Q4 = q('Q4', [['c', true], ['d', false], ['e', false]], []); // c not in BM25's list
  const ranks = new Map([
    ['Q1', new Map([['c', 1], ['x', 2], ['d1', 5]])],
    ['Q2', new Map([['a', 1], ['z', 2]])],
    ['Q4', new Map([['d', 1], ['e', 2]])],
  ]);
  const r = secondStage('m', [Q1, Q2, Q3, Q4], 'bm25', ranks, 10, SETTINGS);
  // Q1: c = 1/62 + 1/61 beats d1 = 1/61 + 1/63: fixed. Q2: tie, z stays. Q3: nothing passes. Q4: d = 1/62 + 1/61 > c = 1/61: lost.
  assert.equal(r.first_exec_at_1.estimate, 0.5);
  assert.equal(r.fused_exec_at_1.estimate, 0.5);
  assert.equal(r.ceiling_exec_at_k.estimate, 0.75);
  assert.equal(r.recovered.estimate, 0); // one won (Q1), one lost (Q4), over one query of room (Q1)
  assert.equal(r.recovered.support, 1);
  // Depth 1: the rerank has nothing to reorder, fused = first = ceiling.
  const one = secondStage('m', [Q1, Q2, Q3, Q4], 'bm25', ranks, 1, SETTINGS);
  assert.deepEqual([one.first_exec_at_1.estimate, one.fused_exec_at_1.estimate, one.ceiling_exec_at_k.estimate], [0.5, 0.5, 0.5]);
});

test('deception by edit position: hand-worked, with and without the twins the embedder never saw', () => {
  // P: its only twin outscoring the canonical is unseen (edit past the limit); P also has a seen twin below.
  // R: one unseen twin that ties the canonical exactly, nothing else. S: a seen twin above.
  const P = q('P', [], [['cP', 0.5, true], ['p1', 0.50001, false], ['p2', 0.2, false]]);
  const R = q('R', [], [['cR', 0.7, true], ['r1', 0.7, false]]);
  const S = q('S', [], [['cS', 0.4, true], ['s1', 0.6, false]]);
  const r = deceptionByEditPosition('m', [P, R, S], new Set(['p1', 'r1']), 256, SETTINGS);
  assert.deepEqual([r.twins, r.unseen, r.max_tokens], [4, 2, 256]);
  assert.equal(r.deception_all.estimate, 2 / 3); // P (by p1) and S
  assert.equal(r.tie_all.estimate, 1 / 3); // R
  assert.equal(r.deception_seen.estimate, 1 / 2); // over P (p2 only: not deceived) and S; R has no seen twin
  assert.equal(r.deception_seen.support, 2);
  assert.equal(r.tie_seen.estimate, 0);
});

test('unseen edits: decided by the model tokenizer on the truncated input ([SEP] rule included)', async () => {
  const config = loadRegistry({ root: projectRoot(), env: {} }).entries.find((e) => e.config.config_id === 'local-all-minilm-l6-v2')!.config;
  const root = join(projectRoot(), '.execretrieval', 'models');
  const body = 'def f(x):\n' + '    x = x + 1\n'.repeat(120) + '    return x\n'; // far past 256 word pieces
  const rec = (corpus_id: string, code: string, is_canonical: boolean) => ({ corpus_id, query_id: 'q', function_name: 'f', code, is_canonical, bug_type: null, bug_description: null, metadata: {} });
  const corpus = [
    rec('c', body, true),
    rec('late', body.replace('return x', 'return -x'), false), // edit at the end: cut off
    rec('early', body.replace('def f(x):', 'def f(y):'), false), // edit in the first line: seen
  ];
  assert.deepEqual([...(await unseenEdits(config, corpus, root))!], ['late']);
  // A short function: every edit is seen. A configuration without a token limit gets no verdict.
  assert.deepEqual([...(await unseenEdits(config, [rec('c', 'def f(x):\n    return x\n', true), rec('d', 'def f(x):\n    return -x\n', false)], root))!], []);
  assert.equal(await unseenEdits({ ...config, max_input_tokens: null }, corpus, root), null);
  // SPLADE-tiny cuts at 256 pieces through the same tokenisation: covered too, same verdicts.
  const splade = loadRegistry({ root: projectRoot(), env: {} }).entries.find((e) => e.config.config_id === 'local-splade-tiny')!.config;
  assert.deepEqual([...(await unseenEdits(splade, corpus, root))!], ['late']);
});

test('the tokenizer built from the two files gives the ids AutoTokenizer (the provider) gives', async () => {
  const dir = join(projectRoot(), '.execretrieval', 'models');
  env.localModelPath = dir;
  const auto = await AutoTokenizer.from_pretrained('all-MiniLM-L6-v2', { local_files_only: true });
  const read = (f: string) => JSON.parse(readFileSync(join(dir, 'all-MiniLM-L6-v2', f), 'utf8'));
  const direct = new PreTrainedTokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  const text = 'def naïve_sum(xs):  # Σ of xs\n    return sum(x for x in xs)\n'.repeat(30);
  const ids = (t: PreTrainedTokenizer) => [...((tokenizeTruncated(t, [text], 256).input_ids as Tensor).data as BigInt64Array)].join();
  assert.equal(ids(direct), ids(auto));
});
