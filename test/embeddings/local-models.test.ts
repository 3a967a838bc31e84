import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { createLocalOnnxProvider } from '../../activities/embeddings/providers/localOnnx.ts';
import { createLocalStaticProvider } from '../../activities/embeddings/providers/localStatic.ts';
import { ProviderUnavailableError } from '../../activities/embeddings/types.ts';
import { dot } from '../../core/embeddings/vectors.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';

// Real weights installed by infra/bootstrap/20-models.mjs (npm test runs bootstrap first).
const penv = { env: {}, modelRoot: join(process.cwd(), '.execretrieval', 'models') };
const SENTENCES = ['The weather is lovely today.', "It's so sunny outside!", 'He drove to the stadium.'];
const config = (id: string) => loadRegistry({ root: process.cwd(), env: {} }).entries.find((e) => e.config.config_id === id)!.config;

test('local all-MiniLM-L6-v2 reproduces the sentence-transformers reference similarities', async () => {
  const p = await createLocalOnnxProvider(config('local-all-minilm-l6-v2'), penv);
  try {
    const { vectors, tokens } = await p.embed(SENTENCES, 'query');
    assert.equal(vectors.length, 3);
    assert.equal(vectors[0].length, 384);
    // Reference: sentence-transformers quick start for all-MiniLM-L6-v2 (mean pooling, normalised):
    // similarity(1,2) 0.6660, (1,3) 0.1046, (2,3) 0.1411.
    assert.ok(Math.abs(dot(vectors[0], vectors[1]) - 0.666) <= 0.002, `(1,2) = ${dot(vectors[0], vectors[1])}`);
    assert.ok(Math.abs(dot(vectors[0], vectors[2]) - 0.1046) <= 0.002, `(1,3) = ${dot(vectors[0], vectors[2])}`);
    assert.ok(Math.abs(dot(vectors[1], vectors[2]) - 0.1411) <= 0.002, `(2,3) = ${dot(vectors[1], vectors[2])}`);
    assert.ok(Math.abs(dot(vectors[0], vectors[0]) - 1) < 1e-5, 'normalised');
    // [CLS] The weather is lovely today . [SEP] = 8 word pieces, etc.: counts include special tokens.
    assert.ok(tokens! >= 3 * 5 && tokens! < 40);
    // Batching must not change a vector (padding is masked out of the mean).
    const alone = (await p.embed([SENTENCES[2]], 'query')).vectors[0];
    assert.ok(Math.abs(dot(alone, vectors[2]) - 1) < 1e-5);
    // Truncation at the model card's max_seq_length (256 word pieces, special tokens included).
    const long = await p.embed(['word '.repeat(1000)], 'document');
    assert.equal(long.tokens, 256);
  } finally {
    await p.close?.();
  }
});

test('local static model matches the vectors of its own package encoder', async () => {
  const p = await createLocalStaticProvider(config('local-static-64'), penv);
  const { vectors } = await p.embed([...SENTENCES, 'def add(a, b): return a + b'], 'document');
  // Reference: tokenlearn-static-model 0.1.1's Rust `get_embeddings` on the same four texts (run once by hand
  // in a scratch venv): pairwise dots and the first 8 components of the code snippet's vector.
  const ref: [number, number, number][] = [[0, 1, 0.590427], [0, 2, 0.421114], [0, 3, 0.312686], [1, 2, 0.368714], [1, 3, 0.475051], [2, 3, 0.411625]];
  for (const [i, j, want] of ref) assert.ok(Math.abs(dot(vectors[i], vectors[j]) - want) < 1e-5, `(${i},${j}) = ${dot(vectors[i], vectors[j])}`);
  const head = [-0.40375, -0.145379, -0.218579, -0.319521, -0.14656, -0.094883, -0.088643, -0.066694];
  head.forEach((x, k) => assert.ok(Math.abs(vectors[3][k] - x) < 1e-5, `component ${k} = ${vectors[3][k]}`));
});

test('a missing local model is unavailable at once, naming the file', async () => {
  const c = EmbeddingConfig.parse({ ...config('local-all-minilm-l6-v2'), local: { model_dir: 'no-such-model' } });
  await assert.rejects(createLocalOnnxProvider(c, penv), (e: unknown) => e instanceof ProviderUnavailableError && /no-such-model\/config\.json is missing/.test(e.message));
});
