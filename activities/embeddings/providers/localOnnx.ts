import { join } from 'node:path';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { equalWidthGroups, equalWidthTasks } from '../../../core/embeddings/equalWidth.ts';
import { requireLocalModel, paddedWidths, onnxSessionOptions, onnxWorkerCount } from './localModel.ts';
import { localModelFiles } from '../availability.ts';
import type { EmbeddingProvider, ProviderEnv } from '../types.ts';
import { loadOnnxEncoder } from './onnxEncoder.ts';
import { OnnxWorkerPool } from './onnxPool.ts';

/** Positions per pool task: a few whole-width rows, so both sessions stay busy to the end of a batch (core/embeddings/equalWidth.ts). */
const TOKENS_PER_TASK = 2048;

/**
 * In-process transformer through @huggingface/transformers (tokenizer, ONNX session on onnxruntime-node,
 * pooling, normalisation; onnxEncoder.ts), from a model folder that bootstrap installed. A batch runs as one
 * pass per token width: padding costs the model as much as text, and even a length-ordered batch of index
 * heads had 13% padded positions (core/embeddings/equalWidth.ts).
 *
 * With several sessions (onnxWorkerCount: one per CPU by default, EXECRETRIEVAL_ONNX_WORKERS) the passes are
 * cut into tasks of at most TOKENS_PER_TASK positions and spread over a pool of single-threaded sessions in
 * worker threads (onnxPool.ts); with one, they run here, one after another. Same vectors bit for bit either way.
 */
export async function createLocalOnnxProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider & { readonly pool: OnnxWorkerPool | null; close(): Promise<void> }> {
  const dir = requireLocalModel(config, penv);
  const workers = onnxWorkerCount(penv, join(dir, localModelFiles(config).find((f) => f.endsWith('.onnx'))!));
  const sessionOptions = onnxSessionOptions(penv, workers);
  const maxLength = config.max_input_tokens ?? undefined;
  // The pool's workers each load their own session; this thread keeps a session only when it runs the passes
  // itself, and otherwise a tokenizer alone (for the widths).
  const pool = workers > 1 ? await OnnxWorkerPool.start({ size: workers, config, modelRoot: penv.modelRoot, sessionOptions }) : null;
  const encoder = await loadOnnxEncoder(config, penv.modelRoot, sessionOptions, { tokenizerOnly: pool !== null });
  const tokenizer = encoder.tokenizer;

  return {
    async embed(texts) {
      const vectors: Float32Array[] = new Array(texts.length);
      const widths = paddedWidths(tokenizer, texts, maxLength);
      let tokens = 0;
      const place = (group: number[], out: { vectors: Float32Array[]; tokens: number }) => {
        group.forEach((i, j) => (vectors[i] = out.vectors[j]));
        tokens += out.tokens;
      };
      if (pool) {
        const tasks = equalWidthTasks(widths, TOKENS_PER_TASK);
        const outs = await Promise.all(tasks.map((group) => pool.run(group.map((i) => texts[i]))));
        tasks.forEach((group, k) => place(group, outs[k]));
      } else {
        for (const group of equalWidthGroups(widths)) place(group, await encoder.encode(group.map((i) => texts[i])));
      }
      return { vectors, tokens };
    },
    countTokens(texts) {
      return paddedWidths(tokenizer, texts, maxLength);
    },
    get pool() {
      return pool;
    },
    async close() {
      await Promise.all([pool?.close(), encoder.dispose()]);
    },
  };
}
