import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GoldCase } from '../../schemas/gold.ts';
import type { CaseResult } from '../../schemas/repoIndex.ts';
import { evaluateCase } from '../../core/repo/evaluate.ts';
import { reciprocalRankFusion, weightedScoreFusion } from '../../core/repo/fusion.ts';
import { matchGlob } from '../../core/repo/glob.ts';
import { decidePath, defaultPolicy } from '../../core/repo/pathPolicy.ts';
import { parseGoldJsonl } from '../../core/repo/goldParse.ts';
import { aggregate } from '../../core/repo/aggregate.ts';
import { evaluateGate, parseSliceMinimum, DEFAULT_GATE, type GateInput } from '../../core/repo/gate.ts';
import { rerank, DEFAULT_RERANK_WEIGHTS } from '../../core/repo/rerank.ts';
import { queryIntent } from '../../core/repo/intent.ts';
import { fileRole } from '../../core/repo/roles.ts';
import { splitOf } from '../../core/repo/split.ts';
import { grid, tuneOnTrain } from '../../core/repo/tune.ts';

const REV = 'abc1234';
const chunk = (id: string, file: string, symbols: string[], role: 'definition' | 'test' | 'call_site' = 'definition', revision = REV) => ({
  chunk_id: id,
  file,
  symbols,
  references: [] as string[],
  role,
  revision,
});

function gcase(over: Partial<GoldCase> = {}): GoldCase {
  return {
    id: 'c1',
    query: 'q',
    repositoryRevision: REV,
    evidence: [{ id: 'g', anyOf: [{ file: 'src/retry.ts', symbol: 'RetryPolicy', roles: ['definition'] }] }],
    forbiddenPathPrefixes: [],
    cutoff: 5,
    queryClass: 'exact_identifier',
    rationale: 'r',
    ...over,
  };
}

test("group recall: the guide's worked call gives recall 0.5 and missing ['configuration']", () => {
  // From the guide's groupRecallAtK illustration: two groups, k = 2, only the public contract is present.
  const c = gcase({
    cutoff: 2,
    evidence: [
      { id: 'public_contract', anyOf: [{ file: 'src/retry.ts', symbol: 'RetryPolicy', roles: ['definition'] }] },
      { id: 'configuration', anyOf: [{ file: 'config/retry.ts', roles: ['config', 'definition'] }] },
    ],
  });
  const m = evaluateCase(c, [chunk('c-test', 'test/retry.spec.ts', [], 'test'), chunk('c-def', 'src/retry.ts', ['RetryPolicy'])]);
  assert.equal(m.group_recall, 0.5);
  assert.deepEqual(m.missing_group_ids, ['configuration']);
  assert.equal(m.first_relevant_rank, 2);
  assert.equal(m.reciprocal_rank, 0.5);
  assert.equal(m.required_evidence, false);
  assert.equal(m.passed, false);
});

test('the cutoff is the production cutoff: a definition at rank 6 is a miss at cutoff 5', () => {
  const ranked = [1, 2, 3, 4, 5].map((i) => chunk(`t${i}`, `test/t${i}.ts`, [], 'test'));
  ranked.push(chunk('def', 'src/retry.ts', ['RetryPolicy']));
  const m5 = evaluateCase(gcase({ cutoff: 5 }), ranked);
  assert.equal(m5.first_relevant_rank, null);
  assert.equal(m5.reciprocal_rank, 0);
  assert.equal(m5.hit, false);
  const m6 = evaluateCase(gcase({ cutoff: 6 }), ranked);
  assert.equal(m6.first_relevant_rank, 6);
  assert.ok(Math.abs(m6.reciprocal_rank - 1 / 6) < 1e-12);
});

test('forbidden sources and revision mismatches fail a case even with the evidence present', () => {
  const c = gcase({ forbiddenPathPrefixes: ['src/legacy/'] });
  const m = evaluateCase(c, [chunk('old', 'src/legacy/retry.ts', ['RetryPolicy']), chunk('def', 'src/retry.ts', ['RetryPolicy'])]);
  assert.deepEqual(m.forbidden_chunk_ids, ['old']);
  assert.equal(m.required_evidence, true);
  assert.equal(m.passed, false);
  const m2 = evaluateCase(gcase(), [chunk('def', 'src/retry.ts', ['RetryPolicy'], 'definition', 'fff0000')]);
  assert.deepEqual(m2.revision_mismatches, ['def']);
  assert.equal(m2.passed, false);
  // an abbreviated case revision matches the full id of the same commit
  const m3 = evaluateCase(gcase(), [chunk('def', 'src/retry.ts', ['RetryPolicy'], 'definition', REV + '0'.repeat(33))]);
  assert.equal(m3.passed, true);
});

test('forbidden rules: a glob forbids tests next to sources, a {file, symbol} pair one deprecated symbol in an allowed file', () => {
  const ranked = [
    chunk('def', 'src/retry.ts', ['RetryPolicy']),
    chunk('spec', 'src/net/retry.test.ts', [], 'test'),
    chunk('old', 'src/retry.ts', ['legacyRetry']),
    chunk('ok', 'src/net/client.ts', ['Client']),
  ];
  const c = gcase({ forbidden: [{ file: 'src/**/*.test.ts' }, { file: 'src/retry.ts', symbol: 'legacyRetry' }] });
  const m = evaluateCase(c, ranked);
  assert.deepEqual(m.forbidden_chunk_ids, ['spec', 'old']);
  assert.equal(m.passed, false);
  // Prefixes cannot say either: a prefix on src/ would forbid the definition too.
  assert.deepEqual(evaluateCase(gcase({ forbiddenPathPrefixes: ['src/'] }), ranked).forbidden_chunk_ids, ['def', 'spec', 'old', 'ok']);
  // A rule that matches nothing in the context forbids nothing.
  assert.deepEqual(evaluateCase(gcase({ forbidden: [{ file: 'src/**/*.spec.ts' }, { file: 'src/retry.ts', symbol: 'gone' }] }), ranked).forbidden_chunk_ids, []);
});

test('role and symbol: a test that uses the symbol is not a definition; usage roles accept references', () => {
  const test1 = { ...chunk('t', 'src/retry.ts', [], 'test'), references: ['RetryPolicy'] };
  assert.equal(evaluateCase(gcase(), [test1]).hit, false);
  const usage = gcase({ evidence: [{ id: 'ex', anyOf: [{ file: 'src/*.ts', symbol: 'RetryPolicy', roles: ['test'] }] }] });
  assert.equal(evaluateCase(usage, [test1]).passed, true);
});

test('reciprocal rank fusion matches a hand computation (k = 60, Cormack et al. 2009)', () => {
  // a: 1/61 + 1/62; b: 1/62 + 1/61; c: 1/63; d: 1/63 → a and b tie, c and d tie, both broken by the keyed tie
  // order (default key "0"; Python hashlib.sha256(b"0\0" + id) begins a 5f1aa0, b a8d4a7, c 50f613, d 4aef0c).
  const fused = reciprocalRankFusion([
    [{ id: 'a', score: 9 }, { id: 'b', score: 8 }, { id: 'c', score: 1 }],
    [{ id: 'b', score: 0.9 }, { id: 'a', score: 0.5 }, { id: 'd', score: 0.1 }],
  ]);
  assert.deepEqual(fused.map((f) => f.id), ['a', 'b', 'd', 'c']);
  assert.ok(Math.abs(fused[0].score - (1 / 61 + 1 / 62)) < 1e-15);
  assert.ok(Math.abs(fused[3].score - 1 / 63) < 1e-15);
});

test('weighted score fusion min-max normalises each list, then takes the weighted sum (hand-worked)', () => {
  // list 1 normalised: a 1, b 0.5, c 0; list 2: b 1, d 0. Weights 0.7 / 0.3:
  // a 0.7, b 0.35 + 0.3 = 0.65, c 0, d 0 (c and d tie: d first in the keyed tie order, see above).
  const fused = weightedScoreFusion(
    [
      [{ id: 'a', score: 10 }, { id: 'b', score: 6 }, { id: 'c', score: 2 }],
      [{ id: 'b', score: 0.8 }, { id: 'd', score: 0.2 }],
    ],
    [0.7, 0.3],
  );
  assert.deepEqual(fused.map((f) => [f.id, Number(f.score.toFixed(10))]), [['a', 0.7], ['b', 0.65], ['d', 0], ['c', 0]]);
  assert.throws(() => weightedScoreFusion([[]], [1, 2]), /1 lists but 2 weights/);
});

test('globs and the default path policy', () => {
  assert.ok(matchGlob('src/a/b.ts', 'src/**'));
  assert.ok(matchGlob('b.ts', '**/*.ts'));
  assert.ok(!matchGlob('src/a/b.ts', 'src/*.ts'));
  assert.ok(matchGlob('x.yml', '*.{json,yml}'));
  const p = defaultPolicy({ exclude: ['src/legacy/**'] });
  assert.deepEqual(decidePath('src/legacy/session.ts', 10, p), { included: false, reason: 'exclude:src/legacy/**' });
  assert.equal(decidePath('node_modules/x/index.js', 10, defaultPolicy()).reason, 'exclude:**/node_modules/**');
  assert.equal(decidePath('src/big.ts', 10_000_000, defaultPolicy()).reason, 'too-large');
  assert.equal(decidePath('src/ok.ts', 10, defaultPolicy()).included, true);
});

test('file roles: tests by path and by framework import, docs, config, generated', () => {
  assert.equal(fileRole('test/x.ts', ''), 'test');
  assert.equal(fileRole('src/a.spec.ts', ''), 'test');
  assert.equal(fileRole('pkg/test_a.py', ''), 'test');
  assert.equal(fileRole('src/checks.ts', "import { test } from 'node:test';"), 'test');
  assert.equal(fileRole('src/checks.py', 'import pytest\n'), 'test');
  assert.equal(fileRole('src/checks.py', 'x = 1\nfrom unittest import mock\n'), 'test');
  // A package's setup.py with a test command that imports pytest when run is the package manifest, not a test.
  assert.equal(fileRole('setup.py', 'class PyTest(TestCommand):\n    def run_tests(self):\n        import pytest\n'), 'config');
  assert.equal(fileRole('README.md', ''), 'docs');
  assert.equal(fileRole('tsconfig.json', ''), 'config');
  assert.equal(fileRole('src/api.generated.ts', ''), 'generated');
  assert.equal(fileRole('db/migrations/001.py', ''), 'migration');
  assert.equal(fileRole('src/legacy/session.ts', ''), null);
  assert.equal(fileRole('src/retry.ts', 'export class RetryPolicy {}'), null);
});

test('gold loading reports every bad case with file, line and field, and keeps the good ones', () => {
  const good = JSON.stringify(gcase({ id: 'ok' }));
  const noCutoff = JSON.stringify({ ...gcase({ id: 'bad1' }), cutoff: 0 });
  const badRole = JSON.stringify({ ...gcase({ id: 'bad2' }), evidence: [{ id: 'g', anyOf: [{ file: 'a', roles: ['nonsense'] }] }] });
  const branch = JSON.stringify({ ...gcase({ id: 'bad3' }), repositoryRevision: 'main' });
  const text = [good, noCutoff, '{oops', badRole, branch, good].join('\n');
  const { cases, errors } = parseGoldJsonl(text, 'gold.jsonl');
  assert.deepEqual(cases.map((c) => c.id), ['ok']);
  const where = errors.map((e) => `${e.line}:${e.case_id ?? '-'}:${e.field}`);
  assert.deepEqual(where, ['2:bad1:cutoff', '3:-:(line)', '4:bad2:evidence.0.anyOf.0.roles.0', '5:bad3:repositoryRevision', '6:ok:id']);
});

test('aggregates come from case results and carry counts per slice', () => {
  const base = { retriever: 'bm25', mode: 'live', query: 'q', language: 'typescript', split: 'test', case_revision: REV, index_revision: REV, index_build_id: 'b', cutoff: 5, group_recall: 1, missing_group_ids: [], forbidden_chunk_ids: [], revision_mismatches: [], diagnosis: 'passed', group_diagnoses: [], final_context_ids: [] } as const;
  const r = (id: string, cls: CaseResult['query_class'], area: string, passed: boolean, rr: number): CaseResult => ({
    ...base,
    missing_group_ids: [],
    forbidden_chunk_ids: [],
    revision_mismatches: [],
    group_diagnoses: [],
    final_context_ids: [],
    case_id: id,
    query_class: cls,
    area,
    passed,
    required_evidence: passed,
    hit: rr > 0,
    first_relevant_rank: rr > 0 ? 1 / rr : null,
    reciprocal_rank: rr,
    group_recall: passed ? 1 : 0,
    diagnosis: passed ? 'passed' : 'not_a_candidate',
  });
  const rows = aggregate([r('a', 'exact_identifier', 'core', true, 1), r('b', 'exact_identifier', 'cli', false, 0), r('c', 'stack_trace', 'core', true, 0.5)]);
  const all = rows.find((x) => x.dimension === 'all')!;
  assert.equal(all.n, 3);
  assert.ok(Math.abs(all.pass_rate - 2 / 3) < 1e-12);
  assert.ok(Math.abs(all.mrr - 0.5) < 1e-12); // (1 + 0 + 0.5) / 3
  const exact = rows.find((x) => x.dimension === 'query_class' && x.slice === 'exact_identifier')!;
  assert.equal(exact.n, 2);
  assert.equal(exact.pass_rate, 0.5);
  const core = rows.find((x) => x.dimension === 'area' && x.slice === 'core')!;
  assert.equal(core.n, 2);
  assert.equal(core.mrr, 0.75);

  const gateInput = (results: CaseResult[]): GateInput => ({ retriever: 'bm25', results, retrieversInRun: ['bm25'], goldErrors: [], index: { revision: REV, index_build_id: 'b', completed: true }, refused: [], refusedChunks: [] });
  const v = evaluateGate(gateInput([r('a', 'exact_identifier', 'core', true, 1), r('b', 'exact_identifier', 'cli', false, 0)]), {
    ...DEFAULT_GATE,
    minRequiredEvidenceRate: 0.5,
    sliceMinimums: [parseSliceMinimum('area=cli:1:1')],
  });
  assert.equal(v.ok, false);
  assert.deepEqual(v.checks.filter((c) => !c.ok).map((c) => c.name), ['slice area=cli']);
  const refusedGate = evaluateGate({ ...gateInput([r('a', 'exact_identifier', 'core', true, 1)]), refused: [{ case_id: 'z', reason: 'other revision' }] }, DEFAULT_GATE);
  assert.deepEqual(refusedGate.checks.filter((c) => !c.ok).map((c) => c.name), ['revision integrity']);
  assert.throws(() => parseSliceMinimum('area=cli'), /expected dimension=slice:minRate/);
});

test('query intent and the role-aware reranker', () => {
  assert.equal(queryIntent('What is RetryPolicy?'), 'definition');
  assert.equal(queryIntent('How is the index policy configured?'), 'config');
  assert.equal(queryIntent('Show me examples of RetryPolicy'), 'examples');
  assert.equal(queryIntent('how do I use createSession'), 'examples');
  const cands = [
    { ...chunk('t1', 'test/a.ts', [], 'test'), score: 10 },
    { ...chunk('d', 'src/retry.ts', ['RetryPolicy']), score: 4 },
    { ...chunk('t2', 'test/b.ts', [], 'test'), score: 9 },
    { ...chunk('z', 'src/z.ts', [], 'call_site'), score: 0 },
  ];
  // base scores min-max normalised: t1 1, t2 0.9, d 0.4, z 0; d gains symbol 0.3 + role 0.4 → 1.1.
  const def = rerank('What is RetryPolicy?', cands, undefined, DEFAULT_RERANK_WEIGHTS);
  assert.equal(def[0].chunk_id, 'd');
  assert.ok(Math.abs(def[0].score - 1.1) < 1e-12);
  const ex = rerank('Show me examples of RetryPolicy in tests', cands, undefined, { ...DEFAULT_RERANK_WEIGHTS, symbol: 0 });
  assert.deepEqual(ex.map((c) => c.chunk_id), ['t1', 't2', 'd', 'z']);
  assert.equal(cands[0].score, 10, 'input untouched');
  const ctx = rerank('parse', [{ ...chunk('a', 'src/a/parse.ts', ['parse']), score: 1 }, { ...chunk('w', 'src/webhooks/parse.ts', ['parse']), score: 0.95 }, { ...chunk('z', 'src/z.ts', []), score: 0 }], { package: 'src/webhooks/' });
  assert.equal(ctx[0].chunk_id, 'w');
});

test('split: explicit wins, otherwise a stable hash of the id', () => {
  assert.equal(splitOf({ id: 'x', split: 'train' }), 'train');
  const ids = Array.from({ length: 200 }, (_, i) => `case-${i}`);
  const train = ids.filter((id) => splitOf({ id }) === 'train').length;
  assert.ok(train > 60 && train < 140, `roughly half in train (got ${train})`);
  assert.equal(splitOf({ id: 'case-7' }), splitOf({ id: 'case-7' }));
});

test('tuning picks weights on the train split only and reports the held-out split', async () => {
  assert.deepEqual(grid({ a: [0, 1], b: [2] }), [{ a: 0, b: 2 }, { a: 1, b: 2 }]);
  const mk = (id: string, split: 'train' | 'test', passed: boolean) =>
    ({ case_id: id, split, passed, required_evidence: passed, hit: passed, reciprocal_rank: passed ? 1 : 0, group_recall: passed ? 1 : 0, forbidden_chunk_ids: [], revision_mismatches: [] }) as unknown as CaseResult;
  // w=1 wins on train (2/2 vs 1/2) but loses on test; the outcome must report the test split as it is.
  const t = await tuneOnTrain([0, 1], async (w) =>
    w === 1
      ? [mk('a', 'train', true), mk('b', 'train', true), mk('c', 'test', false), mk('d', 'test', false)]
      : [mk('a', 'train', true), mk('b', 'train', false), mk('c', 'test', true), mk('d', 'test', true)],
  );
  assert.equal(t.best, 1);
  assert.equal(t.train.pass_rate, 1);
  assert.equal(t.test.pass_rate, 0);
  assert.equal(t.test.n, 2);
  assert.deepEqual(t.tried.map((x) => x.train_pass_rate), [0.5, 1]);
});
