/**
 * Cost of an LLM call from the price table (`data/prices.json`): USD per million tokens, keyed `provider/model`.
 * cost = input_tokens × input_price / 1e6 + output_tokens × output_price / 1e6, where output_tokens already
 * includes reasoning tokens (all three providers bill thinking as output; see `LlmUsage`).
 */
import { z } from 'zod';
import type { LlmUsage } from './types.ts';

export const PriceTable = z.object({
  version: z.string(),
  currency: z.literal('USD'),
  models: z.record(z.string(), z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() })),
});
export type PriceTable = z.infer<typeof PriceTable>;

export function priceKey(provider: string, model: string): string {
  return `${provider}/${model}`;
}

export function hasPrice(table: PriceTable, provider: string, model: string): boolean {
  return priceKey(provider, model) in table.models;
}

/**
 * A request's bounds before it is sent. `input_tokens_est` is the usual ~4 characters per token; the worst case
 * counts every UTF-8 byte of the prompt as a token (a byte-level BPE token covers at least one byte) plus
 * `outputAllowance`, the most output the request permits (reasoning included), so no bill can exceed it.
 */
export function callBound(
  table: PriceTable,
  provider: string,
  model: string,
  prompt: { chars: number; bytes: number },
  outputAllowance: number,
): { input_tokens_est: number; input_tokens_max: number; output_tokens_max: number; tokens_max: number; cost_usd_max: number } {
  const input_tokens_est = Math.ceil(prompt.chars / 4);
  const inputMax = prompt.bytes + PER_REQUEST_OVERHEAD_TOKENS;
  return {
    input_tokens_est,
    input_tokens_max: inputMax,
    output_tokens_max: outputAllowance,
    tokens_max: inputMax + outputAllowance,
    cost_usd_max: callCostUsd(table, provider, model, { input_tokens: inputMax, output_tokens: outputAllowance, reasoning_tokens: 0 }),
  };
}
/** Role markers and message framing the providers add around the prompt (tens of tokens; generous). */
const PER_REQUEST_OVERHEAD_TOKENS = 64;

/**
 * An embedding batch's bounds before it is sent, at the configuration's price (USD per million input tokens;
 * embedding APIs bill input only). `input_tokens_est` is characters / 4; the worst case counts every UTF-8 byte
 * of every text as a token plus `PER_TEXT_OVERHEAD_TOKENS` for the markers a tokenizer adds around each text.
 */
export function embeddingBatchBound(texts: readonly string[], pricePerMillion: number): { chars: number; input_tokens_est: number; tokens_max: number; cost_usd_max: number } {
  let chars = 0;
  let bytes = 0;
  for (const t of texts) {
    chars += t.length;
    bytes += Buffer.byteLength(t, 'utf8');
  }
  const tokens_max = bytes + PER_TEXT_OVERHEAD_TOKENS * texts.length;
  return { chars, input_tokens_est: Math.ceil(chars / 4), tokens_max, cost_usd_max: (tokens_max * pricePerMillion) / 1e6 };
}
/** [CLS]/[SEP], BOS/EOS and the like: a handful per text; generous. */
const PER_TEXT_OVERHEAD_TOKENS = 16;

/** Throws naming the missing key, so a run never spends money it cannot account for. */
export function callCostUsd(table: PriceTable, provider: string, model: string, usage: LlmUsage): number {
  const p = table.models[priceKey(provider, model)];
  if (!p) throw new Error(`data/prices.json: no price for "${priceKey(provider, model)}" (add it under "models")`);
  return (usage.input_tokens * p.input + usage.output_tokens * p.output) / 1e6;
}
