import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GoldCase } from '../../schemas/gold.ts';
import type { CaseResult, Chunk } from '../../schemas/repoIndex.ts';
import { chunkFilter, contextFilters } from '../../core/repo/context.ts';
import { aggregate } from '../../core/repo/aggregate.ts';
import { evaluateGate, parseSliceMinimum } from '../../core/repo/gate.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { evalOne, indexAt, top } from './helpers.ts';
import { PARSE_FILES } from './worked-fixtures.ts';

/**
 * Reliable context as the guide describes it: package and language filter (exactly), the open file is a
 * preference (ranks its directory up, drops nothing); cases with and without context are separate slices.
 */
const r = new FixtureRepo();
after(() => r.cleanup());
const rev = r.commit('fixture', {
  ...PARSE_FILES,
  'src/webhooks/view.tsx': 'export function SignatureBadge() {\n  return <b>signature</b>;\n}\n',
  'tools/parse_webhook.py': 'def parse(body, signature):\n    """Validate a webhook signature in the ops tool."""\n    return check(body, signature)\n',
});
const webhookCase = (context: GoldCase['context']): GoldCase => ({
  id: 'webhook-parse',
  query: 'Where does parse validate webhook signatures?',
  repositoryRevision: rev,
  evidence: [{ id: 'webhook_parse', anyOf: [{ file: 'src/webhooks/parse.ts', symbol: 'parse', roles: ['definition'] }] }],
  forbiddenPathPrefixes: [],
  cutoff: 3,
  queryClass: 'behaviour_description',
  context,
  rationale: 'only the webhook parse checks the HMAC signature',
});

test('the open file is a preference: its directory ranks up, every other candidate stays', async () => {
  const index = await indexAt(r.dir, rev);
  const plain = await evalOne(r.dir, index, webhookCase({ openFile: 'src/webhooks/handler.ts' }));
  const ranked = plain.evaluated.record.candidates_after_rerank;
  assert.equal(plain.result.passed, false, `without the context stage the webhook parser misses the cutoff:\n${top(ranked)}`);

  const ctx = await evalOne(r.dir, index, webhookCase({ openFile: 'src/webhooks/handler.ts' }), { contextFilter: true });
  const rec = ctx.evaluated.record;
  assert.deepEqual(rec.filters, { preferPathPrefix: 'src/webhooks/' }, 'no exact filter from an open file');
  // Nothing dropped: the same candidates as without the context stage.
  assert.deepEqual(rec.candidates_before_rerank.map((c) => c.chunk_id).sort(), ranked.map((c) => c.chunk_id).sort());
  assert.deepEqual(rec.candidates_after_rerank.map((c) => c.chunk_id).sort(), ranked.map((c) => c.chunk_id).sort());
  assert.ok(rec.candidates_after_rerank.some((c) => c.file === 'tools/parse_webhook.py'), 'a candidate outside the open file\'s directory is kept');
  // The order is the retriever's min-max-normalised score plus 0.2 for the open file's directory, computed here.
  const b = rec.candidates_before_rerank;
  const lo = Math.min(...b.map((c) => c.score));
  const hi = Math.max(...b.map((c) => c.score));
  const expected = b
    .map((c) => ({ id: c.chunk_id, s: (hi > lo ? (c.score - lo) / (hi - lo) : 1) + (c.file.startsWith('src/webhooks/') ? 0.2 : 0) }))
    .sort((x, y) => y.s - x.s || (x.id < y.id ? -1 : 1))
    .map((x) => x.id);
  assert.deepEqual(rec.candidates_after_rerank.map((c) => c.chunk_id), expected);
  const rankOf = (list: typeof b) => list.find((c) => c.file === 'src/webhooks/parse.ts' && c.symbols.includes('parse'))!.rank;
  assert.ok(rankOf(rec.candidates_after_rerank) < rankOf(b), `the webhook parser moves up:\n${top(rec.candidates_after_rerank)}`);
});

test('package and language are exact filters; languages compare by family', async () => {
  const index = await indexAt(r.dir, rev);
  const pkg = await evalOne(r.dir, index, webhookCase({ package: 'src/webhooks/' }), { contextFilter: true });
  assert.equal(pkg.evaluated.record.filters.pathPrefix, 'src/webhooks/');
  assert.ok(pkg.evaluated.record.candidates_before_rerank.length > 0);
  assert.ok(pkg.evaluated.record.candidates_before_rerank.every((c) => c.file.startsWith('src/webhooks/')));

  const lang = await evalOne(r.dir, index, webhookCase({ language: 'python' }), { contextFilter: true });
  assert.deepEqual([...new Set(lang.evaluated.record.candidates_before_rerank.map((c) => c.file))], ['tools/parse_webhook.py']);
  assert.equal(lang.result.passed, false, 'the filter is exact: a wrong language excludes the answer (that is the cost of a filter)');

  // `typescript` keeps .ts and .tsx chunks, drops Python and Markdown.
  const keep = chunkFilter(contextFilters({ language: 'typescript' }))!;
  const chunk = (file: string, language: Chunk['language']) => ({ file, language }) as Chunk;
  assert.deepEqual(
    [chunk('a.ts', 'typescript'), chunk('b.tsx', 'tsx'), chunk('c.py', 'python'), chunk('d.md', 'markdown')].filter(keep).map((c) => c.file),
    ['a.ts', 'b.tsx'],
  );
  assert.equal(chunkFilter(contextFilters({ openFile: 'src/a.ts' })), undefined, 'an open file alone filters nothing');
  assert.equal(chunkFilter(contextFilters(undefined)), undefined);
});

test('cases with and without context are separate slices in the aggregates and the gate', async () => {
  const index = await indexAt(r.dir, rev);
  const withCtx = (await evalOne(r.dir, index, webhookCase({ package: 'src/webhooks/' }), { contextFilter: true })).result;
  const without = (await evalOne(r.dir, index, { ...webhookCase(undefined), id: 'webhook-noctx' }, { contextFilter: true })).result;
  const empty = { ...without, case_id: 'empty-ctx', context: {} } as CaseResult;
  assert.equal(withCtx.passed, true);
  assert.equal(without.passed, false);
  const rows = aggregate([withCtx, without, empty]).filter((a) => a.dimension === 'context');
  assert.deepEqual(rows.map((a) => [a.slice, a.n, a.pass_rate]), [['with', 1, 1], ['without', 2, 0]]);

  const m = index.manifest;
  const gate = (spec: string) =>
    evaluateGate(
      { retriever: withCtx.retriever, results: [withCtx, without], retrieversInRun: [withCtx.retriever], goldErrors: [], index: { revision: m.revision, index_build_id: m.index_build_id, completed: true }, refused: [], refusedChunks: [] },
      { minRequiredEvidenceRate: 0, maxForbiddenCases: 0, requireRevisionIntegrity: true, sliceMinimums: [parseSliceMinimum(spec)] },
    );
  assert.equal(gate('context=with:1').ok, true);
  assert.equal(gate('context=without:0.5').ok, false);
  assert.throws(() => parseSliceMinimum('context=maybe:0.5'), /unknown context "maybe" \(one of with, without\)/);
});
