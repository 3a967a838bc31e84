import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeEmbeddingServer, fakeVector, fakeTokens, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { createProvider } from '../../activities/embeddings/providers/index.ts';
import { availability } from '../../activities/embeddings/availability.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { EmbeddingCache } from '../../activities/embeddings/cache.ts';
import { embedItems } from '../../activities/embeddings/embedItems.ts';
import { ProviderResponseError, type ProviderEnv } from '../../activities/embeddings/types.ts';
import { DEFAULT_RETRY } from '../../activities/embeddings/retry.ts';
import { projectRoot } from '../../activities/paths.ts';
import { l2Normalize } from '../../core/embeddings/vectors.ts';

/**
 * The code-model entries added for issue 24, exactly as the shipped registry has them, on the wire against the fake
 * provider: Voyage and Jina over their documented REST requests, nomic-embed-code and CodeSage over an
 * OpenAI-compatible server with their model cards' prefixes.
 */
let server: FakeEmbeddingServer;
let penv: ProviderEnv;
let cache: EmbeddingCache;
const registry = new Map(loadRegistry({ root: projectRoot(), env: {} }).entries.map((e) => [e.config.config_id, e.config]));
const entry = (id: string): EmbeddingConfig => {
  const c = registry.get(id);
  assert.ok(c, `${id} is in data/embedding-configs.json`);
  return c;
};
before(async () => {
  // A model's native width (an entry asking for fewer dimensions sends them, and the fake honours the request).
  const dims = Object.fromEntries([...registry.values()].filter((c) => c.output_dimensionality == null).map((c) => [c.model, c.dimensions ?? 8]));
  server = await startFakeEmbeddingServer({ dims });
  penv = {
    env: { VOYAGE_API_KEY: 'v-test', JINA_API_KEY: 'j-test', VOYAGE_BASE_URL: server.baseUrls.voyage, JINA_BASE_URL: server.baseUrls.jina, EXECRETRIEVAL_EMBED_BASE_URL: server.baseUrls.openai },
    modelRoot: '/nonexistent',
  };
  cache = new EmbeddingCache(join(mkdtempSync(join(tmpdir(), 'embcache-code-')), 'cache.sqlite'));
});
after(async () => {
  cache.close();
  await server.close();
});

/** Embeds one query and two documents under `id`; returns the requests it sent and the vectors. */
async function both(id: string) {
  const c = entry(id);
  const start = server.requests.length;
  const q = await embedItems(c, 'query', [{ id: 'q', text: 'merge two sorted lists' }], { cache, provider: () => createProvider(c, penv) });
  const d = await embedItems(c, 'document', [{ id: 'a', text: 'def merge(a, b): return sorted(a + b)' }, { id: 'b', text: 'def add(a, b): return a + b' }], { cache, provider: () => createProvider(c, penv) });
  return { c, reqs: server.requests.slice(start), q, d };
}

test('Voyage: input_type query/document, truncation, output_dimension and output_dtype as the entry says; vectors by index; tokens from usage', async () => {
  const { c, reqs, q, d } = await both('voyage-code-3');
  assert.equal(reqs[0].path, '/voyage/v1/embeddings');
  assert.equal(reqs[0].headers.authorization, 'Bearer v-test');
  assert.deepEqual(reqs[0].body, { input: ['merge two sorted lists'], model: 'voyage-code-3', input_type: 'query', truncation: true });
  assert.deepEqual((reqs[1].body as { input_type: string }).input_type, 'document');
  assert.deepEqual(Array.from(q.vectors[0]), Array.from(l2Normalize(fakeVector('voyage-code-3', 'merge two sorted lists', c.dimensions!))));
  assert.equal(d.stats.tokens_reported, fakeTokens('def merge(a, b): return sorted(a + b)') + fakeTokens('def add(a, b): return a + b'));
  const small = await both('voyage-code-3-512-int8');
  assert.deepEqual(small.reqs[0].body, { input: ['merge two sorted lists'], model: 'voyage-code-3', input_type: 'query', truncation: true, output_dimension: 512, output_dtype: 'int8' });
  assert.equal(small.q.vectors[0].length, 512);
});

test('Jina: code models send task nl2code.query / nl2code.passage; v2-base-code sends no task; float embeddings', async () => {
  const code = await both('jina-code-embeddings-1.5b');
  assert.equal(code.reqs[0].path, '/jina/v1/embeddings');
  assert.equal(code.reqs[0].headers.authorization, 'Bearer j-test');
  assert.deepEqual(code.reqs[0].body, { model: 'jina-code-embeddings-1.5b', input: ['merge two sorted lists'], embedding_type: 'float', task: 'nl2code.query' });
  assert.equal((code.reqs[1].body as { task: string }).task, 'nl2code.passage');
  assert.equal(code.q.vectors[0].length, 1536);
  assert.equal((await both('jina-code-embeddings-0.5b')).q.vectors[0].length, 896);
  const v2 = await both('jina-embeddings-v2-base-code');
  assert.deepEqual(v2.reqs[0].body, { model: 'jina-embeddings-v2-base-code', input: ['merge two sorted lists'], embedding_type: 'float' });
});

test('nomic-embed-code and CodeSage over an OpenAI-compatible server: the documented query prefix, code raw', async () => {
  const nomic = await both('nomic-embed-code');
  assert.equal(nomic.reqs[0].path, '/openai/v1/embeddings');
  assert.deepEqual((nomic.reqs[0].body as { input: string[] }).input, ['Represent this query for searching relevant code: merge two sorted lists']);
  assert.deepEqual((nomic.reqs[1].body as { input: string[] }).input.sort(), ['def add(a, b): return a + b', 'def merge(a, b): return sorted(a + b)']);
  const cs = await both('codesage-large-v2');
  assert.deepEqual((cs.reqs[0].body as { input: string[] }).input, ['merge two sorted lists']);
  assert.equal(cs.q.vectors[0].length, 2048);
});

test('Voyage and Jina: 429 Retry-After waited out, a short batch refused, no key unavailable (availability agrees)', async () => {
  for (const [api, id] of [['voyage', 'voyage-code-3'], ['jina', 'jina-code-embeddings-0.5b']] as const) {
    const c = { ...entry(id), config_id: `rl-${id}` };
    server.script(api, { status: 429, retryAfter: '3' }, { status: 500 });
    const slept: number[] = [];
    const r = await embedItems(c, 'document', [{ id: 'x', text: `retry ${api}` }], { cache, provider: () => createProvider(c, penv), retry: { ...DEFAULT_RETRY, random: () => 0.5, sleep: async (ms) => void slept.push(ms) } });
    assert.deepEqual(slept, [3000, 500], api);
    assert.equal(r.stats.retries, 2);
    const s = { ...entry(id), config_id: `short-${id}` };
    server.script(api, { status: 'short' });
    await assert.rejects(
      embedItems(s, 'document', [{ id: 'a', text: `s1 ${api}` }, { id: 'b', text: `s2 ${api}` }], { cache, provider: () => createProvider(s, penv) }),
      (e: unknown) => e instanceof ProviderResponseError && /sent 2 texts, got 1 vectors back/.test(e.message),
    );
    const nokey = { ...penv, env: {} };
    assert.match(availability(entry(id), nokey).detail, new RegExp(`no API key: set ${api.toUpperCase()}_API_KEY`));
    await assert.rejects(createProvider(entry(id), nokey), new RegExp(`no API key: set ${api.toUpperCase()}_API_KEY`));
  }
});
