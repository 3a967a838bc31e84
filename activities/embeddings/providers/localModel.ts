import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { localModelDir, localModelFiles } from '../availability.ts';
import { ProviderUnavailableError, type ProviderEnv } from '../types.ts';

/** What every in-process model shares: its folder, checked file by file before anything loads, with the fix. */
export function requireLocalModel(config: EmbeddingConfig, penv: ProviderEnv): string {
  const dir = localModelDir(config, penv);
  for (const f of localModelFiles(config)) {
    if (!existsSync(join(dir, f))) {
      throw new ProviderUnavailableError(config.config_id, `local model file ${join(dir, f)} is missing (run: node infra/bootstrap.mjs --all-models)`);
    }
  }
  return dir;
}

/** Tokens actually fed to the model (attention-mask ones): what a hosted provider would bill. */
export function fedTokens(attentionMask: Tensor): number {
  let tokens = 0;
  for (const m of attentionMask.data as BigInt64Array) tokens += Number(m);
  return tokens;
}

/** Specials included, capped at the truncation length: the row width each text adds to a padded batch (the sweep orders by it). */
export function paddedWidths(tokenizer: PreTrainedTokenizer, texts: readonly string[], maxLength: number | undefined): number[] {
  return texts.map((t) => Math.min(tokenizer.encode(t).length, maxLength ?? Infinity));
}

/**
 * ONNX session options of every in-process model: intra-op threads that sleep when idle instead of spinning.
 * A spinning thread burns a core between the graph's parallel sections, which on a shared machine is CPU the
 * other thread (and the rest of the run) needs. bench/embed-local.ts, 300 curated texts at load 10-14: MiniLM
 * 8.5 s of CPU instead of 11.0 s (wall 0.77x), SPLADE-tiny 4.1 s instead of 5.2 s (wall 0.82x), outputs
 * bit-identical.
 */
export const IN_PROCESS_SESSION_OPTIONS = { extra: { session: { intra_op: { allow_spinning: '0' } } } } as const;

/**
 * The dense encoders' session options: IN_PROCESS_SESSION_OPTIONS, on EXECRETRIEVAL_ONNX_THREADS intra-op threads
 * when it is set, else onnxruntime's own count (one per physical core). On a quiet 2-core machine two sleeping
 * threads index 1.4-1.9x faster than one for about the same CPU (bench/repo-dense-index.ts, load 1.3-2.1); on a
 * machine other processes keep busy, one thread does the same work per wall second for up to 1.6x less CPU, so
 * a shared machine sets EXECRETRIEVAL_ONNX_THREADS=1 (figures in docs/dense-indexing.md).
 * The thread count does not change the vectors (onnxruntime splits a matrix product by output rows and columns,
 * never along the sum; tested at 1 and 2).
 */
export function onnxSessionOptions(penv: ProviderEnv): typeof IN_PROCESS_SESSION_OPTIONS & { intraOpNumThreads?: number } {
  const raw = penv.env.EXECRETRIEVAL_ONNX_THREADS;
  if (raw === undefined || raw === '') return IN_PROCESS_SESSION_OPTIONS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ProviderUnavailableError('local-onnx', `EXECRETRIEVAL_ONNX_THREADS=${JSON.stringify(raw)}: want a whole number of threads, at least 1`);
  return { ...IN_PROCESS_SESSION_OPTIONS, intraOpNumThreads: n };
}
