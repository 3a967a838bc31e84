/**
 * Turns our error classes into Temporal failures with the right retry class, so the activity retry policy in
 * temporal.config.ts (PROVIDER_RETRY) backs off on 429/5xx and never retries a 4xx, a missing key or a budget stop.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { StopError } from '../faults.ts';
import { BudgetExceededError, InvalidInputError, ProviderError } from '../llm/errors.ts';

export function toTemporalFailure(err: unknown): unknown {
  if (err instanceof ProviderError) {
    return ApplicationFailure.create({
      type: err.name,
      message: err.message,
      nonRetryable: !err.retryable,
      details: [{ http_status: err.httpStatus }],
      ...(err.retryAfterMs !== null ? { nextRetryDelay: err.retryAfterMs } : {}),
    });
  }
  if (err instanceof BudgetExceededError || err instanceof InvalidInputError) {
    return ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
  }
  // An oracle/cache fault that persisted through its one retry (faultStrict): retrying the activity meets it again.
  if (err instanceof StopError) return ApplicationFailure.create({ type: 'InfraFault', message: err.message, nonRetryable: true });
  return err;
}

/**
 * Heartbeats every `everyMs` while `fn` runs: llm and exec activities have a heartbeat timeout (temporal.config.ts)
 * so a killed worker's activity is retried elsewhere quickly. The SDK throttles what it sends, so often is cheap.
 */
export async function withHeartbeat<T>(fn: () => Promise<T>, everyMs = 1_000): Promise<T> {
  let ctx: Context | null = null;
  try {
    ctx = Context.current();
  } catch {
    ctx = null; // called outside an activity (unit tests): nothing to heartbeat
  }
  const timer = ctx ? setInterval(() => ctx!.heartbeat(), everyMs) : null;
  try {
    return await fn();
  } finally {
    if (timer) clearInterval(timer);
  }
}
