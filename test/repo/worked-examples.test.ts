import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GoldCase } from '../../schemas/gold.ts';
import { defaultPolicy } from '../../core/repo/pathPolicy.ts';
import { DEFAULT_RERANK_WEIGHTS } from '../../core/repo/rerank.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { evalOne, indexAt, top } from './helpers.ts';
import { PARSE_FILES, RETRY_FILES, SESSION_FILES } from './worked-fixtures.ts';

/**
 * The guide's three worked examples on real git repositories: each fails under a naive configuration with
 * the diagnosis the guide gives, and passes under the fix it proposes.
 */
const repos: FixtureRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));
function repo(files: Record<string, string>) {
  const r = new FixtureRepo();
  repos.push(r);
  return { r, rev: r.commit('fixture', files) };
}

test('deprecated createSession in src/legacy/ outranks the current one; a path policy fixes it', async () => {
  const { r, rev } = repo(SESSION_FILES);
  const c: GoldCase = {
    id: 'session-expiry',
    query: 'How does createSession handle an expired refresh token?',
    repositoryRevision: rev,
    evidence: [
      { id: 'service', anyOf: [{ file: 'src/auth/session-service.ts', symbol: 'createSession', roles: ['definition'] }] },
      { id: 'validator', anyOf: [{ file: 'src/auth/validate.ts', symbol: 'validateRefreshToken', roles: ['definition'] }] },
    ],
    forbiddenPathPrefixes: ['src/legacy/'],
    cutoff: 5,
    queryClass: 'behaviour_description',
    rationale: 'The service is the current implementation and delegates expiry to the validator; src/legacy/ is a shim no longer called.',
  };
  const naive = await evalOne(r.dir, await indexAt(r.dir, rev), c);
  const ranked = naive.evaluated.record.candidates_after_rerank;
  assert.equal(ranked[0].file, 'src/legacy/session.ts', top(ranked));
  assert.equal(naive.result.passed, false);
  assert.equal(naive.result.diagnosis, 'forbidden_source_in_context');
  assert.deepEqual(naive.result.forbidden_chunk_ids, [ranked[0].chunk_id]);
  assert.equal(naive.result.first_relevant_rank, 2, 'the current definition is present: ingestion worked, ranking/forbidden handling did not');
  assert.equal(naive.result.required_evidence, true);
  assert.ok(naive.evaluated.bundle, 'a failed case gets an evidence bundle');
  assert.equal(naive.evaluated.bundle!.index_revision, rev);

  const fixedIndex = await indexAt(r.dir, rev, defaultPolicy({ exclude: [...defaultPolicy().exclude, 'src/legacy/**'] }));
  assert.equal(fixedIndex.inventory.find((e) => e.path === 'src/legacy/session.ts')!.reason, 'exclude:src/legacy/**');
  const fixed = await evalOne(r.dir, fixedIndex, c);
  assert.equal(fixed.result.passed, true, top(fixed.evaluated.record.candidates_after_rerank));
  assert.equal(fixed.result.diagnosis, 'passed');
  assert.equal(fixed.result.first_relevant_rank, 1);
  assert.equal(fixed.evaluated.bundle, null);
});

test('overloaded parse: without context the webhook parser misses the cutoff; the package context filter fixes it', async () => {
  const { r, rev } = repo(PARSE_FILES);
  const index = await indexAt(r.dir, rev);
  const c: GoldCase = {
    id: 'webhook-parse',
    query: 'Where does parse validate webhook signatures?',
    repositoryRevision: rev,
    evidence: [{ id: 'webhook_parse', anyOf: [{ file: 'src/webhooks/parse.ts', symbol: 'parse', roles: ['definition'] }] }],
    forbiddenPathPrefixes: [],
    cutoff: 3,
    queryClass: 'behaviour_description',
    context: { openFile: 'src/webhooks/handler.ts', package: 'src/webhooks/' },
    rationale: 'The user has the webhook handler open; only the webhook parse checks the HMAC signature.',
  };
  const naive = await evalOne(r.dir, index, c);
  const ranked = naive.evaluated.record.candidates_after_rerank;
  assert.equal(naive.result.passed, false, top(ranked));
  assert.deepEqual(ranked.slice(0, 3).map((x) => x.symbols[0]), ['parse', 'parse', 'parse'], 'three other parse functions fill the cutoff');
  assert.equal(naive.result.diagnosis, 'ranked_below_cutoff');
  assert.match(naive.result.group_diagnoses[0].detail, /candidate at rank \d+ before reranking/);

  const fixed = await evalOne(r.dir, index, c, { contextFilter: true });
  assert.equal(fixed.evaluated.record.filters.pathPrefix, 'src/webhooks/');
  assert.ok(fixed.evaluated.record.candidates_before_rerank.every((x) => x.file.startsWith('src/webhooks/')));
  assert.equal(fixed.result.passed, true, top(fixed.evaluated.record.candidates_after_rerank));

  // The same case without reliable context stays a failure under the filter (nothing to filter by):
  // the context must come from user state, never be guessed.
  const noContext = await evalOne(r.dir, index, { ...c, id: 'webhook-parse-noctx', context: undefined }, { contextFilter: true });
  assert.equal(noContext.result.passed, false);
});

test('RetryPolicy usages crowd the definition out of a cutoff of 5; a role-aware rerank fixes it', async () => {
  const { r, rev } = repo(RETRY_FILES);
  const index = await indexAt(r.dir, rev);
  const c: GoldCase = {
    id: 'retry-policy-definition',
    query: 'What is RetryPolicy?',
    repositoryRevision: rev,
    evidence: [{ id: 'definition', anyOf: [{ file: 'src/retry.ts', symbol: 'RetryPolicy', roles: ['definition'] }] }],
    forbiddenPathPrefixes: [],
    cutoff: 5,
    queryClass: 'exact_identifier',
    rationale: 'A "what is" question needs the class definition, not tests that construct it.',
  };
  const naive = await evalOne(r.dir, index, c);
  const ranked = naive.evaluated.record.candidates_after_rerank;
  assert.ok(ranked.slice(0, 5).every((x) => x.role === 'test'), top(ranked));
  assert.equal(naive.result.first_relevant_rank, null);
  assert.equal(naive.result.diagnosis, 'ranked_below_cutoff');
  assert.deepEqual(naive.result.missing_group_ids, ['definition']);

  const fixed = await evalOne(r.dir, index, c, { rerank: DEFAULT_RERANK_WEIGHTS });
  assert.equal(fixed.result.passed, true, top(fixed.evaluated.record.candidates_after_rerank));
  assert.equal(fixed.result.first_relevant_rank, 1);
  // The reranker only reorders: the candidates before reranking are the naive ranking.
  assert.deepEqual(
    fixed.evaluated.record.candidates_before_rerank.map((x) => x.chunk_id),
    naive.evaluated.record.candidates_before_rerank.map((x) => x.chunk_id),
  );

  // "Show me examples" wants usages: a reranker weighted for symbol hits only demotes a test that was
  // inside the cutoff below it — the diagnosis names the reranker.
  const examples: GoldCase = {
    ...c,
    id: 'retry-policy-examples',
    query: 'Show me examples of RetryPolicy',
    queryClass: 'usage_examples',
    evidence: [{ id: 'example', anyOf: [{ file: 'test/retry-zero.test.ts', symbol: 'RetryPolicy', roles: ['test'] }] }],
    rationale: 'Any test constructing a RetryPolicy is an example; this one is the group target.',
  };
  const good = await evalOne(r.dir, index, examples, { rerank: DEFAULT_RERANK_WEIGHTS });
  assert.equal(good.result.passed, true, top(good.evaluated.record.candidates_after_rerank));
  const bad = await evalOne(r.dir, index, examples, { rerank: { symbol: 1, path: 0, role: 0, trap: 0 } });
  assert.equal(bad.result.diagnosis, 'demoted_by_reranker', top(bad.evaluated.record.candidates_after_rerank));
});
