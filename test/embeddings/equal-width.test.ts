import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { AutoModel, AutoTokenizer, env, mean_pooling, type Tensor } from '@huggingface/transformers';
import { equalWidthGroups } from '../../core/embeddings/equalWidth.ts';
import { createLocalOnnxProvider } from '../../activities/embeddings/providers/localOnnx.ts';
import { onnxSessionOptions } from '../../activities/embeddings/providers/localModel.ts';
import { tokenizeTruncated } from '../../activities/embeddings/providers/truncation.ts';
import { ProviderUnavailableError } from '../../activities/embeddings/types.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';

// Real weights installed by infra/bootstrap/20-models.mjs (npm test runs bootstrap first).
const penv = { env: {}, modelRoot: join(process.cwd(), '.execretrieval', 'models') };
const config = loadRegistry({ root: process.cwd(), env: {} }).entries.find((e) => e.config.config_id === 'local-all-minilm-l6-v2')!.config;
// Widths from 3 word pieces to the 256 cap, two pairs of equal width, in no order.
const TEXTS = [
  'export function writeFileAtomic(path: string, data: string): void {',
  'x',
  'def square(x):\n    return x ** 2\n'.repeat(60),
  'y',
  'core/bm25.ts\nbuildBm25Index\n/** Okapi BM25 over code tokens. */',
  'retry after a 429 with Retry-After honoured',
  'def cube(x):\n    return x ** 3\n'.repeat(70),
];

test('equalWidthGroups: one group per width in order of first appearance, each in input order, every index once', () => {
  assert.deepEqual(equalWidthGroups([5, 3, 5, 9, 3, 5]), [[0, 2, 5], [1, 4], [3]]);
  assert.deepEqual(equalWidthGroups([]), []);
  assert.deepEqual(equalWidthGroups([7]), [[0]]);
});

/** The whole batch in one padded forward pass, as the provider ran it before equal-width groups. */
async function paddedBatch(texts: string[]): Promise<Float32Array[]> {
  env.localModelPath = penv.modelRoot;
  const tokenizer = await AutoTokenizer.from_pretrained('all-MiniLM-L6-v2', { local_files_only: true });
  const model = await AutoModel.from_pretrained('all-MiniLM-L6-v2', { dtype: 'fp32', local_files_only: true });
  try {
    const inputs = tokenizeTruncated(tokenizer, texts, 256);
    assert.ok(((inputs.attention_mask as Tensor).data as BigInt64Array).some((m) => m === 0n), 'the reference batch is padded');
    const out = (await model(inputs)) as { last_hidden_state: Tensor };
    const pooled = mean_pooling(out.last_hidden_state, inputs.attention_mask as Tensor).normalize(2, -1);
    const data = pooled.data as Float32Array;
    return texts.map((_, i) => data.slice(i * 384, (i + 1) * 384));
  } finally {
    await model.dispose();
  }
}

test('local MiniLM runs a batch per token width, and every vector is bit for bit the padded batch\'s and the text\'s alone', async () => {
  const want = await paddedBatch(TEXTS);
  // In this thread: the pool's sessions are checked against this path in test/embeddings/onnx-pool.test.ts.
  const p = await createLocalOnnxProvider(config, { ...penv, env: { EXECRETRIEVAL_ONNX_WORKERS: '1' } });
  try {
    const got = await p.embed(TEXTS, 'document');
    const widths = p.countTokens!(TEXTS);
    assert.equal(new Set(widths).size, 5, `widths ${widths}`);
    assert.equal(got.tokens, widths.reduce((a, b) => a + b, 0), 'tokens fed: the unpadded widths');
    got.vectors.forEach((v, i) => assert.deepEqual([...v], [...want[i]], `text ${i}`));
    for (const i of [1, 2, 4]) assert.deepEqual([...(await p.embed([TEXTS[i]], 'document')).vectors[0]], [...want[i]], `text ${i} alone`);
  } finally {
    await p.close?.();
  }
});

test("EXECRETRIEVAL_ONNX_THREADS: one in-process session on 1 and 2 threads gives the same vectors bit for bit; unset is onnxruntime's own count; a bad value is refused, naming the variable", async () => {
  assert.equal(onnxSessionOptions(penv).intraOpNumThreads, undefined);
  assert.equal(onnxSessionOptions({ ...penv, env: { EXECRETRIEVAL_ONNX_THREADS: '3' } }).intraOpNumThreads, 3);
  const one = await createLocalOnnxProvider(config, { ...penv, env: { EXECRETRIEVAL_ONNX_WORKERS: '1', EXECRETRIEVAL_ONNX_THREADS: '1' } });
  const two = await createLocalOnnxProvider(config, { ...penv, env: { EXECRETRIEVAL_ONNX_WORKERS: '1', EXECRETRIEVAL_ONNX_THREADS: '2' } });
  assert.equal(one.pool, null);
  try {
    const [a, b] = [await one.embed(TEXTS, 'document'), await two.embed(TEXTS, 'document')];
    a.vectors.forEach((v, i) => assert.deepEqual([...v], [...b.vectors[i]], `text ${i}`));
  } finally {
    await one.close?.();
    await two.close?.();
  }
  for (const bad of ['0', 'two', '1.5']) {
    assert.throws(() => onnxSessionOptions({ ...penv, env: { EXECRETRIEVAL_ONNX_THREADS: bad } }), (e: unknown) => e instanceof ProviderUnavailableError && /EXECRETRIEVAL_ONNX_THREADS=".*": want a whole number/.test(e.message));
  }
});
