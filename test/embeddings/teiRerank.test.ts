/**
 * A reranker behind text-embeddings-inference's POST /rerank (issue 38: a cross-encoder has no weights in any
 * registry here, so the way to one is the server that hosts it). The `tei` provider row talks to the route; our
 * serve-embeddings answers the same route with its first model as a (query, snippet) cosine scorer, checked here
 * against the in-process local scorer on the same MiniLM.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbedServer, type EmbedServer } from '../../infra/embedServer/server.ts';
import { servableModels, type ServedModel } from '../../infra/embedServer/servedModel.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { EmbeddingCache } from '../../activities/embeddings/cache.ts';
import { loadRerankers } from '../../activities/rerank/configs.ts';
import { createLocalScorer } from '../../activities/rerank/localScorer.ts';
import { RERANKERS } from '../../activities/rerank/providers.ts';
import { ProviderUnavailableError } from '../../activities/embeddings/types.ts';
import { cosine } from '../../core/embeddings/vectors.ts';
import { modelRoot, projectRoot } from '../../activities/paths.ts';

const QUERY = 'Return the n-th Fibonacci number.';
const DOCS = [
  'def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a',
  'def is_palindrome(s):\n    return s == s[::-1]',
  'def fib(n):\n    a, b = 0, 1\n    for _ in range(n - 1):\n        a, b = b, a + b\n    return a',
  'def word_count(text):\n    return len(text.split())',
];

let dir: string;
let server: EmbedServer;
let minilm: EmbedServer;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tei-rerank-'));
  // A model whose vectors are known functions of the text: the route's answer is checked exactly.
  const known: ServedModel = {
    id: 'known', aliases: [], dimensions: 2, origin: 'test',
    async embed(texts) {
      return { vectors: texts.map((t) => Float32Array.of(t.length, t.split('f').length)), tokens: 0 };
    },
    async close() {},
  };
  server = await startEmbedServer({ models: [known] });
  const penv = { env: process.env, modelRoot: modelRoot() };
  const { models } = servableModels(loadRegistry({ root: projectRoot() }).entries, penv, ['sentence-transformers/all-MiniLM-L6-v2']);
  assert.equal(models.length, 1, 'the local ONNX MiniLM is served');
  minilm = await startEmbedServer({ models });
});
after(async () => {
  await server?.close();
  await minilm?.close();
  rmSync(dir, { recursive: true, force: true });
});

const tei = () => loadRerankers(projectRoot()).get('tei-rerank')!;

test('POST /rerank answers as TEI does: every text scored, sorted by score, malformed bodies refused with 422', async () => {
  const res = await fetch(`${server.url}/rerank`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'fff', texts: ['f', 'abcdef', 'ff'] }) });
  assert.equal(res.status, 200);
  const v = (t: string) => Float32Array.of(t.length, t.split('f').length);
  const want = ['f', 'abcdef', 'ff'].map((t, index) => ({ index, score: cosine(v('fff'), v(t)) })).sort((a, b) => b.score - a.score);
  const got = (await res.json()) as { index: number; score: number }[];
  assert.deepEqual(got.map((g) => g.index), want.map((w) => w.index));
  got.forEach((g, i) => assert.ok(Math.abs(g.score - want[i].score) < 1e-6));
  for (const body of [{ texts: ['x'] }, { query: 'q' }, { query: 'q', texts: [] }, [1]]) {
    const r = await fetch(`${server.url}/rerank`, { method: 'POST', body: JSON.stringify(body) });
    assert.equal(r.status, 422, JSON.stringify(body));
  }
});

test('the tei reranker row through serve-embeddings\' /rerank gives the in-process local scorer\'s scores (same MiniLM)', async () => {
  const viaServer = await RERANKERS.tei(tei(), { env: { TEI_RERANK_BASE_URL: minilm.url }, modelRoot: modelRoot() });
  const remote = await viaServer.rerank(QUERY, DOCS);
  const local = loadRerankers(projectRoot()).get('local-minilm-scorer')!;
  const embedding = loadRegistry({ root: projectRoot() }).entries.find((e) => e.config.config_id === local.model)!.config;
  const cache = new EmbeddingCache(join(dir, 'cache.sqlite'));
  try {
    const inProcess = await createLocalScorer(local, embedding, { env: process.env, modelRoot: modelRoot() }, cache).rerank(QUERY, DOCS);
    assert.equal(remote.scores.length, DOCS.length);
    remote.scores.forEach((s, i) => assert.ok(Math.abs(s - inProcess.scores[i]) < 1e-4, `document ${i}: ${s} vs ${inProcess.scores[i]}`));
    // The Fibonacci snippets outrank the others, in input order whatever order the server answered in.
    assert.ok(Math.min(remote.scores[0], remote.scores[2]) > Math.max(remote.scores[1], remote.scores[3]));
  } finally {
    cache.close();
  }
});

test('no server configured: the tei row is unavailable with what to set, before anything is sent', async () => {
  await assert.rejects(RERANKERS.tei(tei(), { env: {}, modelRoot: modelRoot() }), (e: unknown) => e instanceof ProviderUnavailableError && /set TEI_RERANK_BASE_URL/.test(e.message));
});
