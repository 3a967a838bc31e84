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
