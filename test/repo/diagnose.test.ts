import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GoldCase } from '../../schemas/gold.ts';
import { defaultPolicy } from '../../core/repo/pathPolicy.ts';
import { diagnoseCase } from '../../core/repo/diagnose.ts';
import { evaluateCase } from '../../core/repo/evaluate.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { evalOne, indexAt } from './helpers.ts';
import { RETRY_FILES, SESSION_FILES } from './worked-fixtures.ts';

/** Each boundary of the diagnosis, produced on a real index (tampered where the boundary is a bug). */
const r = new FixtureRepo();
after(() => r.cleanup());
const rev = r.commit('fixture', { ...RETRY_FILES, ...SESSION_FILES });

const retryCase: GoldCase = {
  id: 'retry',
  query: 'What is RetryPolicy?',
  repositoryRevision: rev,
  evidence: [{ id: 'definition', anyOf: [{ file: 'src/retry.ts', symbol: 'RetryPolicy', roles: ['definition'] }] }],
  forbiddenPathPrefixes: [],
  cutoff: 5,
  queryClass: 'exact_identifier',
  rationale: 'definition',
};

test('excluded by path policy names the rule', async () => {
  const index = await indexAt(r.dir, rev, defaultPolicy({ exclude: ['src/legacy/**'] }));
  const c: GoldCase = {
    ...retryCase,
    id: 'legacy-migration',
    query: 'How did the legacy createSession refresh tokens?',
    evidence: [{ id: 'legacy', anyOf: [{ file: 'src/legacy/session.ts', symbol: 'createSession', roles: ['definition'] }] }],
  };
  const { result } = await evalOne(r.dir, index, c);
  assert.equal(result.diagnosis, 'excluded_by_path_policy');
  assert.match(result.group_diagnoses[0].detail, /src\/legacy\/session\.ts: exclude:src\/legacy\/\*\*/);
});

test('not chunked: the file is indexed but no chunk covers the definition', async () => {
  const index = await indexAt(r.dir, rev);
  // Simulate a chunker that lost the class: drop every chunk whose text holds its declaration.
  const broken = { ...index, chunks: index.chunks.filter((c) => !c.text.includes('export class RetryPolicy')) };
  const { result } = await evalOne(r.dir, broken, retryCase, { candidateDepth: 50 });
  assert.equal(result.diagnosis, 'not_chunked');
  assert.match(result.group_diagnoses[0].detail, /no chunk of src\/retry\.ts covers src\/retry\.ts#RetryPolicy/);
});

test('wrong span: the chunk labelled RetryPolicy holds other text', async () => {
  const index = await indexAt(r.dir, rev);
  const def = index.chunks.find((c) => c.symbols.includes('RetryPolicy'))!;
  const other = index.chunks.find((c) => c.file === 'src/client.ts' && c.role === 'import')!;
  // Simulate a parser that attached the definition's metadata to the wrong bytes: move the chunk's text.
  const shifted = { ...index, chunks: index.chunks.map((c) => (c === def ? { ...c, text: other.text } : c)) };
  const { result } = await evalOne(r.dir, shifted, retryCase, { candidateDepth: 1 });
  assert.equal(result.diagnosis, 'not_chunked');
  assert.match(result.group_diagnoses[0].detail, /wrong span: chunk src\/retry\.ts:\d+-\d+ .* is labelled src\/retry\.ts#RetryPolicy \[definition\] but its text does not hold it/);
});

test('metadata wrong: the chunk holds the definition text but is labelled a call site', async () => {
  const index = await indexAt(r.dir, rev);
  const stale = { ...index, chunks: index.chunks.map((c) => (c.symbols.includes('RetryPolicy') ? { ...c, role: 'call_site' as const, symbols: [] } : c)) };
  const { result, evaluated } = await evalOne(r.dir, stale, retryCase);
  assert.equal(result.diagnosis, 'metadata_wrong');
  assert.match(result.group_diagnoses[0].detail, /holds the text of src\/retry\.ts#RetryPolicy \[definition\] but is labelled role=call_site symbols=\[\]/);
  const excerpt = evaluated.bundle!.targets[0].excerpts[0];
  assert.equal(excerpt.file, 'src/retry.ts');
  assert.match(excerpt.text, /export class RetryPolicy/);
});

test('not a candidate: indexed correctly but outside the inspected candidate depth', async () => {
  const index = await indexAt(r.dir, rev);
  const { result } = await evalOne(r.dir, index, retryCase, { candidateDepth: 3 });
  assert.equal(result.diagnosis, 'not_a_candidate');
  assert.match(result.group_diagnoses[0].detail, /indexed but not among the 3 candidates/);
});

test('an incomplete index or a foreign revision stops the diagnosis at index identity', async () => {
  const index = await indexAt(r.dir, rev);
  const metrics = evaluateCase(retryCase, []);
  const repo = { paths: [], text: () => undefined, inventory: () => undefined, chunksOf: () => [] };
  assert.equal(diagnoseCase({ testCase: retryCase, metrics, index: { revision: rev, completed: false }, repo, before: [], after: [] }).diagnosis, 'invalid_index');
  assert.equal(diagnoseCase({ testCase: retryCase, metrics, index: { revision: 'f'.repeat(40), completed: true }, repo, before: [], after: [] }).diagnosis, 'stale_revision');
  assert.equal(index.manifest.completed, true);
});
