/**
 * Faults that retrying cannot fix end the activity for good (issue 26): a damaged cache, a full disk, a bad
 * configuration. Every worker installs this interceptor (workers/run.ts), so whichever activity meets one of them
 * — the embedding sweep's batches, the pipeline's stages, the oracle's batches — fails at once with a
 * non-retryable `InfraFault` (or the StopError's own type) carrying the one-line message, instead of Temporal
 * retrying it for minutes (a damaged embedding cache: 776 s of retries, then "3 failed", exit 0).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import { EXIT_CODES, fatalFault } from './faults.ts';

/** The failure type Temporal sees: `InfraFault` for exit 5 (cache, disk, sandbox), `InvalidInputError` for a usage error. */
export function fatalFailure(err: unknown): ApplicationFailure | null {
  if (err instanceof ApplicationFailure) return null; // already classified by the activity
  const stop = fatalFault(err);
  if (!stop) return null;
  const type = stop.exitCode === EXIT_CODES.usage ? 'InvalidInputError' : stop.exitCode === EXIT_CODES.infra ? 'InfraFault' : stop.name;
  return ApplicationFailure.create({ type, message: stop.message, nonRetryable: true });
}

class FatalFaults implements ActivityInboundCallsInterceptor {
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    try {
      return await next(input);
    } catch (err) {
      throw fatalFailure(err) ?? err;
    }
  }
}

export const fatalFaultInterceptor: ActivityInterceptorsFactory = () => ({ inbound: new FatalFaults() });
