import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lengthOrder } from '../../core/embeddings/lengthOrder.ts';
import { lengthOrdered } from '../../activities/embeddings/sweepActivities.ts';
import { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { EmbeddingCache } from '../../activities/embeddings/cache.ts';
import { embedItems } from '../../activities/embeddings/embedItems.ts';
import type { EmbeddingProvider } from '../../activities/embeddings/types.ts';

const cache = new EmbeddingCache(join(mkdtempSync(join(tmpdir(), 'lenorder-')), 'cache.sqlite'));
after(() => cache.close());

test('lengthOrder: shortest first, ties in input order, input untouched', () => {
  const lengths = [5, 1, 5, 0, 1];
  assert.deepEqual(lengthOrder(lengths), [3, 1, 4, 0, 2]);
  assert.deepEqual(lengths, [5, 1, 5, 0, 1]);
  assert.deepEqual(lengthOrder([]), []);
  const items = ['ccc', 'a', 'bb', 'a2'].map((text, i) => ({ id: String(i), text }));
  assert.deepEqual(lengthOrdered(items).map((x) => x.id), ['1', '2', '3', '0']);
});

/** A provider whose vector is the text's length, recording each batch; `tokens` scripts its token counts. */
function recorder(tokens?: Record<string, number>) {
  const batches: string[][] = [];
  const p: EmbeddingProvider = {
    async embed(texts) {
      batches.push([...texts]);
      return { vectors: texts.map((t) => Float32Array.of(t.length, 1)), tokens: texts.length };
    },
    ...(tokens ? { countTokens: (texts: readonly string[]) => texts.map((t) => tokens[t]) } : {}),
  };
  return { p, batches };
}

test("embedItems batches by the provider's token counts when it has them (else by characters), and returns vectors in item order", async () => {
  // Characters and tokens disagree: 'xxxxxxxx' is long in characters but one token; 'a b c' short but five.
  const texts = ['a b c', 'xxxxxxxx', 'dd', 'e f g h i j'];
  const tokens = { 'a b c': 5, xxxxxxxx: 1, dd: 2, 'e f g h i j': 6 };
  const config = EmbeddingConfig.parse({ config_id: 'rec-tokens', family: 't', provider: 'local-onnx', model: 'm', dimensions: 2, batch_size: 2, normalize: false, local: { model_dir: 'x' } });
  const items = texts.map((text, i) => ({ id: `i${i}`, text }));
  const byTokens = recorder(tokens);
  const r = await embedItems(config, 'document', items, { cache, provider: async () => byTokens.p });
  assert.deepEqual(byTokens.batches, [['xxxxxxxx', 'dd'], ['a b c', 'e f g h i j']]);
  assert.deepEqual(r.vectors.map((v) => v[0]), texts.map((t) => t.length));
  const byChars = recorder();
  const c2 = EmbeddingConfig.parse({ ...config, config_id: 'rec-chars' });
  const r2 = await embedItems(c2, 'document', items, { cache, provider: async () => byChars.p });
  assert.deepEqual(byChars.batches, [['dd', 'a b c'], ['xxxxxxxx', 'e f g h i j']]);
  assert.deepEqual(r2.vectors.map((v) => v[0]), texts.map((t) => t.length));
});

test('local MiniLM: countTokens is the row each text adds to a batch (specials included, capped at 256)', async () => {
  const { loadRegistry } = await import('../../activities/embeddings/configs.ts');
  const { createLocalOnnxProvider } = await import('../../activities/embeddings/providers/localOnnx.ts');
  const config = loadRegistry({ root: process.cwd(), env: {} }).entries.find((e) => e.config.config_id === 'local-all-minilm-l6-v2')!.config;
  const p = await createLocalOnnxProvider(config, { env: {}, modelRoot: join(process.cwd(), '.execretrieval', 'models') });
  try {
    const texts = ['def f(x): return x', 'word '.repeat(1000), ''];
    const counts = p.countTokens!(texts);
    // Each text alone: the tokens the model was fed (attention-mask ones) are what countTokens said.
    for (let i = 0; i < texts.length; i++) assert.equal((await p.embed([texts[i]], 'document')).tokens, counts[i], texts[i].slice(0, 20));
    assert.equal(counts[1], 256);
    assert.equal(counts[2], 2); // [CLS] [SEP]
  } finally {
    await p.close?.();
  }
});
