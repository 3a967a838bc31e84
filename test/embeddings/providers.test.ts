import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeEmbeddingServer, fakeVector, fakeTokens, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { EmbeddingConfig, type EmbeddingConfigInput } from '../../schemas/embeddingConfig.ts';
import { createProvider } from '../../activities/embeddings/providers/index.ts';
import { availability } from '../../activities/embeddings/availability.ts';
import { EmbeddingCache } from '../../activities/embeddings/cache.ts';
import { embedItems } from '../../activities/embeddings/embedItems.ts';
import { ProviderResponseError, ProviderUnavailableError, type ProviderEnv } from '../../activities/embeddings/types.ts';
import { DEFAULT_RETRY, parseRetryAfter } from '../../activities/embeddings/retry.ts';
import { l2Normalize } from '../../core/embeddings/vectors.ts';

let server: FakeEmbeddingServer;
let penv: ProviderEnv;
let cache: EmbeddingCache;
before(async () => {
  server = await startFakeEmbeddingServer({ defaultDims: 6 });
  penv = { env: { OPENAI_API_KEY: 'sk-test', GEMINI_API_KEY: 'g-test', MISTRAL_API_KEY: 'm-test', COHERE_API_KEY: 'c-test' }, modelRoot: '/nonexistent', baseUrls: server.baseUrls };
  cache = new EmbeddingCache(join(mkdtempSync(join(tmpdir(), 'embcache-')), 'cache.sqlite'));
});
after(async () => {
  cache.close();
  await server.close();
});

const cfg = (c: Partial<EmbeddingConfigInput> & Pick<EmbeddingConfigInput, 'config_id' | 'provider' | 'model'>) =>
  EmbeddingConfig.parse({ family: 'test', dimensions: 6, ...c });
/** Sleeps recorded, not slept: retries are asserted, and the test stays fast. */
function recordingRetry() {
  const slept: number[] = [];
  return { slept, policy: { ...DEFAULT_RETRY, random: () => 0.5, sleep: async (ms: number) => void slept.push(ms) } };
}
const items = (n: number, prefix = 'def f') => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, text: `${prefix}${i}(x): return x + ${i}` }));

test('OpenAI: raw text, dimensions, batch boundaries, usage tokens, cache on rerun', async () => {
  const c = cfg({ config_id: 'oa', provider: 'openai', model: 'text-embedding-3-large', output_dimensionality: 6, batch_size: 2, price_usd_per_million_tokens: 0.13 });
  const start = server.requests.length;
  const its = items(5);
  const r = await embedItems(c, 'document', its, { cache, provider: () => createProvider(c, penv) });
  const reqs = server.requests.slice(start);
  assert.deepEqual(reqs.map((q) => (q.body as { input: string[] }).input.length), [2, 2, 1]);
  assert.deepEqual(reqs[0].body, { model: 'text-embedding-3-large', input: [its[0].text, its[1].text], encoding_format: 'float', dimensions: 6 });
  assert.equal(reqs[0].headers.authorization, 'Bearer sk-test');
  // Vectors come back normalised and in item order.
  its.forEach((it, i) => assert.deepEqual(Array.from(r.vectors[i]), Array.from(l2Normalize(fakeVector('text-embedding-3-large', it.text, 6)))));
  const tokens = its.reduce((a, it) => a + fakeTokens(it.text), 0);
  assert.deepEqual({ ...r.stats, cost_usd: undefined }, { texts: 5, unique_texts: 5, cached: 0, embedded: 5, batches: 3, retries: 0, tokens_reported: tokens, tokens_estimated: 0, cost_usd: undefined });
  assert.ok(Math.abs(r.stats.cost_usd - (tokens * 0.13) / 1e6) < 1e-15);
  // Rerun: nothing sent, same vectors; a provider is never even created.
  const again = await embedItems(c, 'document', its, { cache, provider: () => Promise.reject(new Error('must not be called')) });
  assert.equal(server.requests.length, start + 3);
  assert.equal(again.stats.cached, 5);
  assert.deepEqual(again.vectors.map((v) => Array.from(v)), r.vectors.map((v) => Array.from(v)));
});

test('Gemini: task type per side and outputDimensionality through the real SDK', async () => {
  const c = cfg({ config_id: 'gm', provider: 'gemini', model: 'gemini-embedding-001', output_dimensionality: 6, query: { task_type: 'CODE_RETRIEVAL_QUERY' }, document: { task_type: 'RETRIEVAL_DOCUMENT' } });
  const start = server.requests.length;
  await embedItems(c, 'query', [{ id: 'q1', text: 'add two numbers' }], { cache, provider: () => createProvider(c, penv) });
  await embedItems(c, 'document', [{ id: 'd1', text: 'def add(a, b): return a + b' }], { cache, provider: () => createProvider(c, penv) });
  const [q, d] = server.requests.slice(start);
  assert.equal(q.path, '/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents');
  assert.equal(q.headers['x-goog-api-key'], 'g-test');
  const qr = (q.body as { requests: any[] }).requests[0];
  assert.equal(qr.taskType, 'CODE_RETRIEVAL_QUERY');
  assert.equal(qr.outputDimensionality, 6);
  assert.equal(qr.content.parts[0].text, 'add two numbers');
  assert.equal((d.body as { requests: any[] }).requests[0].taskType, 'RETRIEVAL_DOCUMENT');
});

test('Gemini Embedding 2 style: the instruction is in the text, no task type is sent; a batch is one content per text, one vector each', async () => {
  const c = cfg({ config_id: 'gm2', provider: 'gemini', model: 'gemini-embedding-2', query: { template: 'task: code retrieval | query: {text}' }, document: { template: 'title: none | text: {text}' } });
  const texts = ['sort a list', 'reverse a string', 'add two numbers'];
  const start = server.requests.length;
  const r = await embedItems(c, 'query', texts.map((text, i) => ({ id: `q${i}`, text })), { cache, provider: () => createProvider(c, penv) });
  assert.equal(server.requests.length - start, 1, 'one batch request');
  // The API embeds a content of several parts as ONE vector: bare strings through the SDK gave one content for all three.
  const reqs = (server.requests[start].body as { requests: any[] }).requests;
  // (sent shortest first; the vectors come back in input order)
  assert.deepEqual(reqs.map((q) => q.content.parts.map((p: { text: string }) => p.text)).sort(), texts.map((t) => [`task: code retrieval | query: ${t}`]).sort());
  assert.ok(reqs.every((q) => q.taskType === undefined));
  assert.deepEqual(r.vectors.map((v) => Array.from(v)), texts.map((t) => Array.from(l2Normalize(fakeVector('gemini-embedding-2', `task: code retrieval | query: ${t}`, 6)))));
});

test('Mistral: inputs and output_dimension through the real SDK; OpenAI-compatible server by base URL with prefixes', async () => {
  const m = cfg({ config_id: 'ms', provider: 'mistral', model: 'codestral-embed', output_dimensionality: 6 });
  const start = server.requests.length;
  const r = await embedItems(m, 'document', items(3), { cache, provider: () => createProvider(m, penv) });
  const req = server.requests[start];
  assert.equal(req.path, '/mistral/v1/embeddings');
  assert.deepEqual(req.body, { model: 'codestral-embed', input: items(3).map((i) => i.text), output_dimension: 6 });
  assert.equal(req.headers.authorization, 'Bearer m-test');
  assert.ok(r.stats.tokens_reported > 0);

  const e5 = cfg({ config_id: 'e5', provider: 'openai-compatible', model: 'intfloat/e5-base-v2', base_url_env: 'TEI_URL', query: { template: 'query: {text}' }, document: { template: 'passage: {text}' } });
  const compatEnv = { ...penv, env: { ...penv.env, TEI_URL: server.baseUrls.openai } };
  const s2 = server.requests.length;
  await embedItems(e5, 'query', [{ id: 'q', text: 'reverse a string' }], { cache, provider: () => createProvider(e5, compatEnv) });
  await embedItems(e5, 'document', [{ id: 'd', text: 'def rev(s): return s[::-1]' }], { cache, provider: () => createProvider(e5, compatEnv) });
  assert.deepEqual(server.requests.slice(s2).map((q) => (q.body as { input: string[] }).input[0]), ['query: reverse a string', 'passage: def rev(s): return s[::-1]']);
  // No base URL configured: unavailable, with what to set.
  await assert.rejects(createProvider(e5, penv), (e: unknown) => e instanceof ProviderUnavailableError && /set TEI_URL/.test(e.message));
});

test('Cohere: input_type per side, float embeddings, output dimension, billed tokens through the real SDK', async () => {
  const c = cfg({ config_id: 'co', provider: 'cohere', model: 'embed-v4.0', output_dimensionality: 6, query: { task_type: 'search_query' }, document: { task_type: 'search_document' }, batch_size: 2 });
  const start = server.requests.length;
  const q = await embedItems(c, 'query', [{ id: 'q', text: 'merge two sorted lists' }], { cache, provider: () => createProvider(c, penv) });
  const d = await embedItems(c, 'document', items(3, 'co'), { cache, provider: () => createProvider(c, penv) });
  const reqs = server.requests.slice(start);
  assert.equal(reqs[0].path, '/cohere/v2/embed');
  assert.equal(reqs[0].headers.authorization, 'Bearer c-test');
  assert.deepEqual(reqs[0].body, { model: 'embed-v4.0', texts: ['merge two sorted lists'], input_type: 'search_query', embedding_types: ['float'], output_dimension: 6 });
  assert.deepEqual(reqs.slice(1).map((r) => [(r.body as any).input_type, (r.body as any).texts.length]), [['search_document', 2], ['search_document', 1]]);
  assert.deepEqual(Array.from(q.vectors[0]), Array.from(l2Normalize(fakeVector('embed-v4.0', 'merge two sorted lists', 6))));
  assert.equal(d.stats.tokens_reported, items(3, 'co').reduce((a, it) => a + fakeTokens(it.text), 0));
});

test('429 with Retry-After is waited out exactly; 500 backs off; both then succeed', async () => {
  for (const [api, provider, model] of [['openai', 'openai', 'text-embedding-3-small'], ['mistral', 'mistral', 'mistral-embed'], ['gemini', 'gemini', 'gemini-embedding-001'], ['cohere', 'cohere', 'embed-v4.0']] as const) {
    const c = cfg({ config_id: `rl-${api}`, provider, model });
    server.script(api, { status: 429, retryAfter: '3' }, { status: 500 });
    const { slept, policy } = recordingRetry();
    const r = await embedItems(c, 'document', items(2, `rl${api}`), { cache, provider: () => createProvider(c, penv), retry: policy });
    assert.equal(r.stats.retries, 2, api);
    // 3 s from Retry-After, then the backoff for attempt 2: base 500 ms · 2 · jitter 0.5 = 500 ms.
    assert.deepEqual(slept, [3000, 500], api);
    assert.equal(r.stats.embedded, 2);
  }
  // Gemini also says when in the body (google.rpc.RetryInfo) without a header.
  const g = cfg({ config_id: 'rl-gemini-body', provider: 'gemini', model: 'gemini-embedding-001' });
  server.script('gemini', { status: 429, retryDelayBody: '7s' });
  const { slept, policy } = recordingRetry();
  await embedItems(g, 'document', items(1, 'body'), { cache, provider: () => createProvider(g, penv), retry: policy });
  assert.deepEqual(slept, [7000]);
});

test('persistent 500s give up after maxAttempts; a short batch is a clear, unretried error; no key = unavailable', async () => {
  const c = cfg({ config_id: 'dead', provider: 'openai', model: 'text-embedding-3-small' });
  server.script('openai', { status: 500 }, { status: 500 }, { status: 500 });
  const { slept, policy } = recordingRetry();
  await assert.rejects(embedItems(c, 'document', items(1, 'dead'), { cache, provider: () => createProvider(c, penv), retry: { ...policy, maxAttempts: 3 } }), (e: any) => e.status === 500);
  assert.equal(slept.length, 2);

  for (const [api, provider, model] of [['openai', 'openai', 'm'], ['mistral', 'mistral', 'm'], ['gemini', 'gemini', 'm'], ['cohere', 'cohere', 'm']] as const) {
    const s = cfg({ config_id: `short-${api}`, provider, model });
    server.script(api, { status: 'short' });
    const start = server.requests.length;
    await assert.rejects(
      embedItems(s, 'document', items(3, `short${api}`), { cache, provider: () => createProvider(s, penv) }),
      (e: unknown) => e instanceof ProviderResponseError && new RegExp(`short-${api}: sent 3 texts, got 2 vectors back`).test(e.message),
    );
    assert.equal(server.requests.length, start + 1, `${api}: a short batch is not retried`);
    assert.equal(cache.count(`short-${api}`), 0, 'nothing from a bad batch is cached');
  }
  for (const provider of ['openai', 'gemini', 'mistral', 'cohere'] as const) {
    const nokey = cfg({ config_id: `nokey-${provider}`, provider, model: 'm' });
    await assert.rejects(createProvider(nokey, { ...penv, env: {} }), (e: unknown) => e instanceof ProviderUnavailableError && /no API key: set [A-Z_]+/.test(e.message));
  }
});

test('availability agrees with the factories: a key set or not, and a local-static folder without tokenizer_config.json', async () => {
  for (const provider of ['openai', 'gemini', 'mistral', 'cohere'] as const) {
    const c = cfg({ config_id: `avail-${provider}`, provider, model: 'm' });
    assert.equal(availability(c, penv).ok, true, `${provider} with its key`);
    assert.match(availability(c, { ...penv, env: {} }).detail, /^no API key: set [A-Z_]+$/);
  }
  // Before, `configs` said this folder was ok while the factory refused it for the missing tokenizer_config.json.
  const modelRoot = mkdtempSync(join(tmpdir(), 'models-'));
  mkdirSync(join(modelRoot, 'static'));
  for (const f of ['config.json', 'tokenizer.json', 'model.safetensors']) writeFileSync(join(modelRoot, 'static', f), '{}');
  const st = cfg({ config_id: 'static-incomplete', provider: 'local-static', model: 'm', local: { model_dir: 'static' } });
  const a = availability(st, { ...penv, modelRoot });
  assert.equal(a.ok, false);
  assert.match(a.detail, /tokenizer_config\.json/);
  await assert.rejects(createProvider(st, { ...penv, modelRoot }), (e: unknown) => e instanceof ProviderUnavailableError && /tokenizer_config\.json is missing/.test(e.message));
});

test('Retry-After parsing: seconds, HTTP-date, retry-after-ms', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter(new Headers({ 'retry-after': '12' }), now), 12_000);
  assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now), 30_000);
  assert.equal(parseRetryAfter({ 'Retry-After-Ms': '250' }, now), 250);
  assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now), null);
});
