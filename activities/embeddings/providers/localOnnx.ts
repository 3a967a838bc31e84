import { join } from 'node:path';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { equalWidthGroups, equalWidthTasks } from '../../../core/embeddings/equalWidth.ts';
import { requireLocalModel, paddedWidths, onnxSessionOptions, onnxWorkerCount } from './localModel.ts';
import { localModelFiles } from '../availability.ts';
import type { EmbeddingProvider, ProviderEnv } from '../types.ts';
import { loadOnnxEncoder, type OnnxEncoder } from './onnxEncoder.ts';
import { OnnxWorkerPool } from './onnxPool.ts';

/** Positions per pool task: a few whole-width rows, so both sessions stay busy to the end of a batch (core/embeddings/equalWidth.ts). */
const TOKENS_PER_TASK = 2048;

/**
 * A call feeding fewer positions runs in this process even when there is a pool to use: starting the worker
 * processes takes ~2 s (Node, tsx, transformers.js and the model in each) against ~0.3 s for one session here,
 * so a few queries would wait longer for the pool than for the model. 8,192 positions are about a second of
 * single-session work; an index's batches of 256 chunks are 4-30x that.
 */
const POOL_MIN_POSITIONS = 8192;

/**
 * In-process transformer through @huggingface/transformers (tokenizer, ONNX session on onnxruntime-node,
 * pooling, normalisation; onnxEncoder.ts), from a model folder that bootstrap installed. A batch runs as one
 * pass per token width: padding costs the model as much as text, and even a length-ordered batch of index
 * heads had 13% padded positions (core/embeddings/equalWidth.ts).
 *
 * With several sessions (onnxWorkerCount: one per CPU by default, EXECRETRIEVAL_ONNX_WORKERS) a call of at least
 * POOL_MIN_POSITIONS has its passes cut into tasks of at most TOKENS_PER_TASK positions, spread over a pool of
 * single-threaded sessions in worker processes (onnxPool.ts), started at the first such call. Smaller calls, and
 * every call with one session, run here, one pass after another, on a session loaded at the first such call.
 * Same vectors bit for bit either way.
 */
export async function createLocalOnnxProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider & { readonly pool: OnnxWorkerPool | null; close(): Promise<void> }> {
  const dir = requireLocalModel(config, penv);
  const workers = onnxWorkerCount(penv, join(dir, localModelFiles(config).find((f) => f.endsWith('.onnx'))!));
  const maxLength = config.max_input_tokens ?? undefined;
  // This process always has the tokenizer (for the widths); each session is loaded when first needed.
  const tokenizer = (await loadOnnxEncoder(config, penv.modelRoot, {}, { tokenizerOnly: true })).tokenizer;
  let here: Promise<OnnxEncoder> | null = null;
  let pooled: Promise<OnnxWorkerPool> | null = null;
  let pool: OnnxWorkerPool | null = null;
  const startPool = async () => (pool = await OnnxWorkerPool.start({ size: workers, config, modelRoot: penv.modelRoot, sessionOptions: onnxSessionOptions(penv, workers) }));

  return {
    async embed(texts) {
      // A dead worker spends the provider, small calls included: one error from then on, not a mix of answers.
      if (pool?.failed) throw pool.failed;
      const vectors: Float32Array[] = new Array(texts.length);
      const widths = paddedWidths(tokenizer, texts, maxLength);
      let tokens = 0;
      const place = (group: number[], out: { vectors: Float32Array[]; tokens: number }) => {
        group.forEach((i, j) => (vectors[i] = out.vectors[j]));
        tokens += out.tokens;
      };
      if (workers > 1 && widths.reduce((a, b) => a + b, 0) >= POOL_MIN_POSITIONS) {
        // No await once the pool is up: the tasks are sent before embed() first yields.
        const p = pool ?? (await (pooled ??= startPool()));
        const tasks = equalWidthTasks(widths, TOKENS_PER_TASK);
        const outs = await Promise.all(tasks.map((group) => p.run(group.map((i) => texts[i]))));
        tasks.forEach((group, k) => place(group, outs[k]));
      } else {
        const encoder = await (here ??= loadOnnxEncoder(config, penv.modelRoot, onnxSessionOptions(penv, 1), { tokenizer }));
        for (const group of equalWidthGroups(widths)) place(group, await encoder.encode(group.map((i) => texts[i])));
      }
      return { vectors, tokens };
    },
    countTokens(texts) {
      return paddedWidths(tokenizer, texts, maxLength);
    },
    /** The worker pool once a call has started it (null before, and with one session). */
    get pool() {
      return pool;
    },
    async close() {
      const [h, p] = [here, pooled];
      here = pooled = null;
      await Promise.all([h?.then((e) => e.dispose(), () => {}), p?.then((x) => x.close(), () => {})]);
    },
  };
}
