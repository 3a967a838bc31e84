import { existsSync, statSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
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
      throw new ProviderUnavailableError(config.config_id, `local model file ${join(dir, f)} is missing (run: execretrieval bootstrap --all-models)`);
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

/** A whole number at least 1 from an environment variable, undefined when unset; anything else is one line naming the variable. */
function countFromEnv(penv: ProviderEnv, name: string, what: string): number | undefined {
  const raw = penv.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ProviderUnavailableError('local-onnx', `${name}=${JSON.stringify(raw)}: want a whole number of ${what}, at least 1`);
  return n;
}

/** Resident memory of a worker process before its model: Node, tsx and @huggingface/transformers (~250 MB measured). */
const WORKER_BASE_BYTES = 256 * 2 ** 20;

/**
 * How many sessions a local-onnx model runs, each in its own worker process (onnxPool.ts):
 * EXECRETRIEVAL_ONNX_WORKERS when it is set (1: one session in this process, no workers), else one per CPU
 * (os.availableParallelism), at most as many as a quarter of the machine's memory holds at WORKER_BASE_BYTES plus
 * three times the model file each (weights, arena, activations). Measured after 64 texts up to 256 tokens:
 * all-MiniLM-L6-v2 (90 MB file) 520 MB per worker, all-mpnet-base-v2 (438 MB) 1.1-1.2 GB.
 */
export function onnxWorkerCount(penv: ProviderEnv, modelFile: string): number {
  const set = countFromEnv(penv, 'EXECRETRIEVAL_ONNX_WORKERS', 'sessions');
  if (set !== undefined) return set;
  const byMemory = Math.floor(totalmem() / 4 / (WORKER_BASE_BYTES + 3 * statSync(modelFile).size));
  return Math.max(1, Math.min(availableParallelism(), byMemory));
}

/**
 * The dense encoders' session options: IN_PROCESS_SESSION_OPTIONS, on EXECRETRIEVAL_ONNX_THREADS intra-op threads
 * when it is set; else one thread when there are several sessions (`workers`, onnxWorkerCount: each session is
 * a core's worth of work already), and onnxruntime's own count (one per physical core) for a single session.
 * The thread count does not change the vectors (onnxruntime splits a matrix product by output rows and columns,
 * never along the sum; tested at 1 and 2), nor does the number of sessions (tested at 1 and 2).
 */
export function onnxSessionOptions(penv: ProviderEnv, workers = 1): typeof IN_PROCESS_SESSION_OPTIONS & { intraOpNumThreads?: number } {
  const n = countFromEnv(penv, 'EXECRETRIEVAL_ONNX_THREADS', 'threads') ?? (workers > 1 ? 1 : undefined);
  return n === undefined ? IN_PROCESS_SESSION_OPTIONS : { ...IN_PROCESS_SESSION_OPTIONS, intraOpNumThreads: n };
}
