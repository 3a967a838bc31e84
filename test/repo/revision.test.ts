import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GoldCase } from '../../schemas/gold.ts';
import { DEFAULT_GATE, evaluateGate } from '../../core/repo/gate.ts';
import { DEFAULT_RERANK_WEIGHTS } from '../../core/repo/rerank.ts';
import { loadIndex, IndexInvalidError } from '../../activities/repo/indexStore.ts';
import { runEvaluation } from '../../activities/repo/evalRun.ts';
import { DEFAULT_PIPELINE, RETRIEVER_KINDS, retrieverSet } from '../../activities/repo/pipeline.ts';
import { hashEmbedder } from './hashEmbedder.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { evalOne, indexAt } from './helpers.ts';
import { RETRY_FILES } from './worked-fixtures.ts';

/**
 * Revisions: labels pinned to an older commit keep passing after a refactor moves the code (the index is
 * built from the pinned commit's objects, not the working tree), and a case pinned to a revision the index
 * was not built from is refused rather than scored.
 */
const r = new FixtureRepo();
after(() => r.cleanup());
const cfg = { ...DEFAULT_PIPELINE, rerank: DEFAULT_RERANK_WEIGHTS };

const oldRev = r.commit('retry policy in src/retry.ts', RETRY_FILES);
r.remove(['src/retry.ts']);
const moved = RETRY_FILES['src/retry.ts'];
const newRev = r.commit('refactor: move RetryPolicy to src/policies/retry-policy.ts', { 'src/policies/retry-policy.ts': moved });

const pinnedOld: GoldCase = {
  id: 'retry-old',
  query: 'What is RetryPolicy?',
  repositoryRevision: oldRev.slice(0, 12),
  evidence: [{ id: 'definition', anyOf: [{ file: 'src/retry.ts', symbol: 'RetryPolicy', roles: ['definition'] }] }],
  forbiddenPathPrefixes: [],
  cutoff: 5,
  queryClass: 'exact_identifier',
  rationale: 'The class definition, at the commit before the move.',
};

test('a case pinned to the older commit keeps passing after the refactor (working tree is at the new one)', async () => {
  assert.equal(r.git('rev-parse', 'HEAD'), newRev);
  const index = await indexAt(r.dir, oldRev);
  assert.ok(index.inventory.some((e) => e.path === 'src/retry.ts'), 'index reads the pinned tree, not the working tree');
  assert.ok(!index.inventory.some((e) => e.path.startsWith('src/policies/')));
  const { result, refused } = await evalOne(r.dir, index, pinnedOld, cfg);
  assert.deepEqual(refused, []);
  assert.equal(result.passed, true);
  assert.deepEqual(result.revision_mismatches, []);
});

test('a case pinned to another revision than the index is refused, and the gate fails on it', async () => {
  const index = await indexAt(r.dir, newRev);
  const out = await runEvaluation({ cases: [pinnedOld], index, repoDir: r.dir, mode: 'live', configs: [cfg] });
  assert.equal(out.results.length, 0);
  assert.equal(out.refused.length, 1);
  assert.match(out.refused[0].reason, new RegExp(`pinned to ${pinnedOld.repositoryRevision}.*built from ${newRev}`));
  const ix = { revision: index.manifest.revision, index_build_id: index.manifest.index_build_id, completed: true };
  const v = evaluateGate({ retriever: 'bm25', results: out.results, retrieversInRun: [], goldErrors: [], index: ix, refused: out.refused }, DEFAULT_GATE);
  assert.equal(v.ok, false);
  assert.ok(v.checks.some((c) => c.name === 'revision integrity' && !c.ok));

  // Relabelled through review at the new commit, the case passes there.
  const relabelled: GoldCase = {
    ...pinnedOld,
    id: 'retry-new',
    repositoryRevision: newRev,
    evidence: [{ id: 'definition', anyOf: [{ file: 'src/policies/retry-policy.ts', symbol: 'RetryPolicy', roles: ['definition'] }] }],
  };
  assert.equal((await evalOne(r.dir, index, relabelled, cfg)).result.passed, true);

  // Re-pinned without relabelling, the old path is a stale gold label, not a retrieval failure.
  const stale = await evalOne(r.dir, index, { ...pinnedOld, id: 'retry-stale', repositoryRevision: newRev }, cfg);
  assert.equal(stale.result.diagnosis, 'stale_gold_label');
  assert.match(stale.result.group_diagnoses[0].detail, /src\/retry\.ts does not exist at/);
});

test('an incomplete index manifest makes the run invalid instead of borrowing metadata', async () => {
  const index = await indexAt(r.dir, oldRev);
  const path = join(index.dir, 'manifest.json');
  const m = JSON.parse(readFileSync(path, 'utf8'));
  writeFileSync(path, JSON.stringify({ ...m, completed: false }));
  assert.throws(() => loadIndex(index.dir), (e: unknown) => e instanceof IndexInvalidError && /not completed; the run is invalid/.test(e.message));
  writeFileSync(path, JSON.stringify(m));
  assert.equal(loadIndex(index.dir).chunks.length, index.chunks.length, 'a completed manifest loads the same chunks');
});

test('a bad line in chunks.jsonl makes the index invalid, naming the file and its line (blank lines counted)', async () => {
  const index = await indexAt(r.dir, oldRev);
  const path = join(index.dir, 'chunks.jsonl');
  const text = readFileSync(path, 'utf8');
  const [first, ...rest] = text.split('\n');
  writeFileSync(path, [first, '', '{not json', ...rest].join('\n'));
  assert.throws(() => loadIndex(index.dir), (e: unknown) => e instanceof IndexInvalidError && e.message.startsWith(`${path}:3: invalid JSON: `));
  writeFileSync(path, [first, '', JSON.stringify({ ...JSON.parse(first), file: 7 }), ...rest].join('\n'));
  assert.throws(() => loadIndex(index.dir), (e: unknown) => e instanceof IndexInvalidError && e.message.startsWith(`${path}:3: file: `));
  writeFileSync(path, text);
  assert.deepEqual(loadIndex(index.dir).chunks, index.chunks);
});

test('recorded mode replays stored rankings through the same evaluator with the same results', async () => {
  const index = await indexAt(r.dir, oldRev);
  const live = await runEvaluation({ cases: [pinnedOld], index, repoDir: r.dir, mode: 'live', runId: 'live-1', configs: [DEFAULT_PIPELINE, cfg] });
  const replay = await runEvaluation({ cases: [pinnedOld], index, repoDir: r.dir, mode: 'recorded', recorded: live.evaluated.map((e) => e.record), replays: 'live-1' });
  const strip = (xs: typeof live.results) => xs.map(({ mode: _mode, ...rest }) => rest);
  assert.deepEqual(strip(replay.results), strip(live.results));
  assert.deepEqual(live.results.map((x) => x.passed), [false, true]);
  assert.ok(replay.results.every((x) => x.mode === 'recorded'));
  assert.deepEqual(replay.rejectedRecords, []);
  // A record made against another revision, or replayed under another run's name, is refused on replay.
  const foreign = { ...live.evaluated[0].record, index_revision: newRev };
  const refused = await runEvaluation({ cases: [pinnedOld], index, repoDir: r.dir, mode: 'recorded', recorded: [foreign], replays: 'live-1' });
  assert.equal(refused.results.length, 0);
  assert.match(refused.rejectedRecords[0].reason, /recorded against/);
  const unnamed = await runEvaluation({ cases: [pinnedOld], index, repoDir: r.dir, mode: 'recorded', recorded: [live.evaluated[0].record], replays: 'live-2' });
  assert.match(unnamed.rejectedRecords[0].reason, /^written by run live-1, not by run live-2/);
});

test('retrievers built once and passed in (as --tune does) rank exactly as retrievers built per run', async () => {
  const embedder = hashEmbedder(64);
  const index = await indexAt(r.dir, oldRev, undefined, embedder);
  const configs = RETRIEVER_KINDS.flatMap((retriever) => [{ ...DEFAULT_PIPELINE, retriever }, { ...cfg, retriever, contextFilter: true, neighbours: true }]);
  const retrievers = retrieverSet(index, embedder);
  const input = { cases: [pinnedOld], index, repoDir: r.dir, mode: 'live' as const, configs, embedder };
  const [own, shared] = await Promise.all([runEvaluation(input), runEvaluation({ ...input, retrievers })]);
  assert.equal(own.results.length, configs.length);
  assert.deepEqual(shared.evaluated, own.evaluated);
  // Every retriever kind's ranking (fused, dense, neighbour-expanded) passes replay verification unchanged.
  const stamped = own.evaluated.map((e) => ({ ...e.record, run_id: 'r' }));
  const replay = await runEvaluation({ cases: [pinnedOld], index, repoDir: r.dir, mode: 'recorded', recorded: stamped, replays: 'r' });
  assert.deepEqual(replay.rejectedRecords, []);
  assert.deepEqual(replay.evaluated.map((e) => e.record), stamped);
});
