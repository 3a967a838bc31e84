/** One row of the attempt ledger: one generator call (an LLM request, or one mechanical generation). */
export type LedgerPhase = 'registry' | 'entry';
/** started: sent (or about to be); ok: response stored; error: the provider refused; lost: a worker died mid-call. */
export type CallStatus = 'started' | 'ok' | 'error' | 'lost';

export interface LedgerCall {
  run_id: string;
  phase: LedgerPhase;
  /** Registry entry id, or `registry:<domain>` for phase 1. */
  entry_id: string;
  attempt_no: number;
  /** Activity attempt (Temporal retry) within one generation attempt: 1, 2, ... */
  try_no: number;
  status: CallStatus;
  http_status: number | null;
  error: string | null;
  provider: string;
  model: string;
  endpoint: string;
  reasoning_effort: string | null;
  prompt_id: string;
  prompt_sha256: string;
  started_at: string;
  latency_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens: number | null;
  cost_usd: number | null;
  /**
   * Bounds recorded before the request is sent: input tokens estimated from the prompt (chars / 4), and the
   * worst-case cost (every prompt byte a token, plus the full output allowance). What the budget reserves while a
   * call is in flight, and what the audit shows for a `lost` call whose response never came back.
   */
  input_tokens_est: number | null;
  cost_usd_max: number | null;
  /** The two parts of that worst case: every prompt byte a token (+ framing), and the output cap the request stated. */
  input_tokens_max?: number | null;
  output_tokens_max?: number | null;
  /** Set once judged: accepted / rejected (gate) / parse_error; provider_error for refused calls. */
  outcome: string | null;
  reasons: string[];
}

/**
 * One embedding request that left the machine (a batch of texts, one try): recorded `started` before it is sent,
 * completed `ok` with what the provider reported, `error` when the provider refused it with an HTTP status (not
 * billed), or `lost` when no usable answer came back although it may have been billed (the worker died, the
 * connection broke, the answer was malformed).
 */
export interface EmbeddingBatchRow {
  run_id: string;
  /** The sweep that sent it: workflow id / run id of the embedding sweep (or `local` outside Temporal). */
  sweep_id: string;
  config_id: string;
  /** Invocation fingerprint of (configuration, side): with the text hash, the embedding cache's key. */
  fingerprint: string;
  side: string;
  /** sha256 of (config, fingerprint, the batch's sorted text hashes): the same texts are the same batch. */
  batch_id: string;
  /** 1, 2, ... per (run, batch_id): each retry is a request of its own. */
  try_no: number;
  status: CallStatus;
  provider: string;
  model: string;
  texts: number;
  chars: number;
  input_tokens_est: number;
  tokens_max: number;
  cost_usd_max: number;
  /** Provider-reported input tokens (null when the provider reports none: then `tokens_estimated`). */
  tokens_reported: number | null;
  tokens_estimated: number | null;
  cost_usd: number | null;
  http_status: number | null;
  error: string | null;
  started_at: string;
  latency_ms: number | null;
  /** `host:pid` of the worker that sent it. */
  worker: string;
}
