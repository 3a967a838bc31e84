// Every hosted embedding provider is redirected by its one documented variable (OPENAI_BASE_URL, GEMINI_BASE_URL
// or the SDK's own GOOGLE_GEMINI_BASE_URL, MISTRAL_BASE_URL, COHERE_BASE_URL): the real SDK, pointed only by the
// environment (nothing injected), sends its request to the local fake provider.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { createProvider } from '../../activities/embeddings/providers/index.ts';
import { BASE_URL_VARS, providerBaseUrl } from '../../activities/embeddings/baseUrls.ts';

let server: FakeEmbeddingServer;
before(async () => {
  server = await startFakeEmbeddingServer({ defaultDims: 6 });
});
after(async () => {
  await server.close();
});

const KEYS = { OPENAI_API_KEY: 'sk-test', GEMINI_API_KEY: 'g-test', MISTRAL_API_KEY: 'm-test', COHERE_API_KEY: 'c-test' };
const CASES = [
  { provider: 'openai', model: 'text-embedding-3-small', variable: 'OPENAI_BASE_URL', base: () => server.baseUrls.openai, path: '/openai/v1/embeddings' },
  { provider: 'gemini', model: 'gemini-embedding-001', variable: 'GEMINI_BASE_URL', base: () => server.baseUrls.gemini, path: '/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents' },
  { provider: 'gemini', model: 'gemini-embedding-001', variable: 'GOOGLE_GEMINI_BASE_URL', base: () => server.baseUrls.gemini, path: '/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents' },
  { provider: 'mistral', model: 'codestral-embed', variable: 'MISTRAL_BASE_URL', base: () => server.baseUrls.mistral, path: '/mistral/v1/embeddings' },
  { provider: 'cohere', model: 'embed-v4.0', variable: 'COHERE_BASE_URL', base: () => server.baseUrls.cohere, path: '/cohere/v2/embed' },
] as const;

for (const c of CASES) {
  test(`${c.provider}: ${c.variable} alone points the SDK at the server`, async () => {
    const config = EmbeddingConfig.parse({ config_id: `t-${c.provider}`, family: 'test', provider: c.provider, model: c.model, dimensions: 6, output_dimensionality: 6 });
    const start = server.requests.length;
    const p = await createProvider(config, { env: { ...KEYS, [c.variable]: c.base() }, modelRoot: '/nonexistent' });
    try {
      const vectors = await p.embed(['def add(a, b): return a + b'], 'document');
      assert.equal(vectors.vectors.length, 1);
    } finally {
      await p.close?.();
    }
    const reqs = server.requests.slice(start);
    assert.equal(reqs.length, 1, `one request reached the fake server (${c.variable})`);
    assert.equal(reqs[0].path, c.path);
  });
}

test('the variables in order, an injected URL first, none set: the SDK default', () => {
  assert.deepEqual(Object.keys(BASE_URL_VARS).sort(), ['cohere', 'gemini', 'mistral', 'openai']);
  assert.equal(providerBaseUrl('gemini', { env: { GEMINI_BASE_URL: 'http://a', GOOGLE_GEMINI_BASE_URL: 'http://b' } }), 'http://a');
  assert.equal(providerBaseUrl('mistral', { env: { MISTRAL_BASE_URL: 'http://m' }, baseUrls: { mistral: 'http://injected' } }), 'http://injected');
  assert.equal(providerBaseUrl('cohere', { env: {} }), undefined);
});
