import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { createLocalOnnxProvider } from '../../activities/embeddings/providers/localOnnx.ts';
import { createLocalStaticProvider } from '../../activities/embeddings/providers/localStatic.ts';
import { ProviderUnavailableError } from '../../activities/embeddings/types.ts';
import { dot } from '../../core/embeddings/vectors.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { spawnSync } from 'node:child_process';
import { AutoTokenizer, env, type Tensor } from '@huggingface/transformers';
import { tokenizeTruncated } from '../../activities/embeddings/providers/truncation.ts';
import { projectRoot } from '../../activities/paths.ts';

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

test('a text past 256 word pieces keeps its final [SEP], as sentence-transformers truncates: matches a numpy forward pass', async () => {
  const p = await createLocalOnnxProvider(config('local-all-minilm-l6-v2'), penv);
  try {
    const text = 'def square(x):\n    return x ** 2  # squares x\n'.repeat(40);
    env.localModelPath = penv.modelRoot;
    const tokenizer = await AutoTokenizer.from_pretrained('all-MiniLM-L6-v2', { local_files_only: true });
    const content = tokenizer.encode(text, { add_special_tokens: false });
    assert.ok(content.length > 300, `${content.length} word pieces: long enough to be cut`);
    // The fault itself: transformers.js' own truncation ends the row in a word piece, not [SEP] (102).
    const raw = (tokenizer([text], { truncation: true, max_length: 256 }).input_ids as Tensor).data as BigInt64Array;
    assert.equal(raw.length, 256);
    assert.notEqual(raw[255], 102n);
    const fixed = (tokenizeTruncated(tokenizer, [text, 'short'], 256).input_ids as Tensor).data as BigInt64Array;
    assert.equal(fixed[255], 102n);
    assert.deepEqual([...fixed.slice(0, 255)], [...raw.slice(0, 255)], 'only the last position changes');
    // The reference: onnx's numpy evaluator on [CLS] + content[:254] + [SEP], truncation done in Python.
    const r = spawnSync(join(projectRoot(), '.venv', 'bin', 'python'), [join(projectRoot(), 'test', 'embeddings', 'onnx_truncation_reference.py')], {
      input: JSON.stringify({ model_dir: join(penv.modelRoot, 'all-MiniLM-L6-v2'), content_ids: content, max_length: 256 }),
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const ref = JSON.parse(r.stdout) as { n_tokens: number; last_id: number; vector: number[] };
    assert.deepEqual([ref.n_tokens, ref.last_id], [256, 102]);
    const [ours] = (await p.embed([text], 'document')).vectors;
    let maxDiff = 0;
    ref.vector.forEach((x, k) => (maxDiff = Math.max(maxDiff, Math.abs(ours[k] - x))));
    assert.ok(maxDiff <= 1e-5, `max |Δ| = ${maxDiff}`);
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

/** Vectors for id rows from onnx's numpy evaluator, each row alone (test/embeddings/onnx_forward_reference.py). */
function referenceVectors(model: string, rows: number[][]): number[][] {
  const r = spawnSync(join(projectRoot(), '.venv', 'bin', 'python'), [join(projectRoot(), 'test', 'embeddings', 'onnx_forward_reference.py')], {
    input: JSON.stringify({ model, rows }),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { vectors: number[][] }).vectors;
}

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let k = 0; k < a.length; k++) m = Math.max(m, Math.abs(a[k] - b[k]));
  return m;
};

test('int8 all-MiniLM-L6-v2 matches a numpy forward pass of its own graph to 1e-5, and is not the fp32 model', async () => {
  const c = config('local-all-minilm-l6-v2-int8');
  assert.equal(c.local!.dtype, 'q8');
  const texts = [...SENTENCES, 'def add(a, b):\n    return a + b'];
  const p = await createLocalOnnxProvider(c, penv);
  const fp32 = await createLocalOnnxProvider(config('local-all-minilm-l6-v2'), penv);
  try {
    // Batched (so padded and masked) in the provider; one row at a time, unpadded, in the reference.
    const { vectors } = await p.embed(texts, 'document');
    env.localModelPath = penv.modelRoot;
    const tokenizer = await AutoTokenizer.from_pretrained('all-MiniLM-L6-v2-int8', { local_files_only: true });
    const rows = texts.map((t) => tokenizer.encode(t));
    const ref = referenceVectors(join(penv.modelRoot, 'all-MiniLM-L6-v2-int8', 'onnx', 'model_quantized.onnx'), rows);
    vectors.forEach((v, i) => assert.ok(maxAbsDiff(v, ref[i]) <= 1e-5, `text ${i}: max |Δ| = ${maxAbsDiff(v, ref[i])}`));
    // FACTS.md (the same graph run by onnxruntime in Python): 0.6684 / 0.1055 / 0.1404, printed to 4 places (ours: 0.66836 / 0.10550 / 0.14040).
    for (const [i, j, want] of [[0, 1, 0.6684], [0, 2, 0.1055], [1, 2, 0.1404]] as const) {
      assert.ok(Math.abs(dot(vectors[i], vectors[j]) - want) <= 1e-4, `(${i + 1},${j + 1}) = ${dot(vectors[i], vectors[j])}`);
    }
    // Quantisation shows: the int8 vectors are close to fp32's, but not the same (the q8 file was the one loaded).
    const f = (await fp32.embed(texts, 'document')).vectors;
    const d = Math.max(...texts.map((_, i) => maxAbsDiff(vectors[i], f[i])));
    assert.ok(d > 1e-3 && d < 0.1, `int8 vs fp32 max |Δ| = ${d}`);
    assert.ok(Math.min(...texts.map((_, i) => dot(vectors[i], f[i]))) > 0.98);
  } finally {
    await p.close?.();
    await fp32.close?.();
  }
});

test('all-mpnet-base-v2 (exported without torch) matches an independent numpy forward pass to 1e-5 and the sentence-transformers similarities', async () => {
  const c = config('local-all-mpnet-base-v2');
  assert.equal(c.default_run, false, 'about 6x slower than MiniLM: not in the default run');
  const dir = join(penv.modelRoot, 'all-mpnet-base-v2');
  const long = 'def is_prime(n):\n    return all(n % d for d in range(2, n))  # slow but plain\n'.repeat(30);
  const texts = [...SENTENCES, 'def add(a, b):\n    return a + b', long];
  const p = await createLocalOnnxProvider(c, penv);
  try {
    // One padded batch of five lengths: pad positions (id 1) must neither shift positions nor enter the mean.
    const { vectors } = await p.embed(texts, 'document');
    assert.equal(vectors[0].length, 768);
    // Reference: sentence-transformers' model card example for all-mpnet-base-v2: 0.6817 / 0.0492 / 0.0421.
    for (const [i, j, want] of [[0, 1, 0.6817], [0, 2, 0.0492], [1, 2, 0.0421]] as const) {
      assert.ok(Math.abs(dot(vectors[i], vectors[j]) - want) <= 1e-4, `(${i + 1},${j + 1}) = ${dot(vectors[i], vectors[j])}`);
    }
    // The reference's rows: <s> content </s>, the long text cut to 384 as sentence-transformers cuts it (382 + 2).
    env.localModelPath = penv.modelRoot;
    const tokenizer = await AutoTokenizer.from_pretrained('all-mpnet-base-v2', { local_files_only: true });
    const rows = texts.map((t) => [0, ...tokenizer.encode(t, { add_special_tokens: false }).slice(0, 382), 2]);
    assert.equal(rows[4].length, 384);
    const r = spawnSync(join(projectRoot(), '.venv', 'bin', 'python'), [join(projectRoot(), 'test', 'embeddings', 'encoder_reference.py')], {
      input: JSON.stringify({ model_dir: dir, arch: 'mpnet', head: 'mean', rows }),
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    assert.equal(r.status, 0, r.stderr);
    const ref = (JSON.parse(r.stdout) as { vectors: number[][] }).vectors;
    vectors.forEach((v, i) => assert.ok(maxAbsDiff(v, ref[i]) <= 1e-5, `text ${i}: max |Δ| = ${maxAbsDiff(v, ref[i])}`));
  } finally {
    await p.close?.();
  }
});
