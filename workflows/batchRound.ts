/**
 * One round of a batch run, shared by batchBenchmark and batchRegistry: submit the round's batch (kill-safe in the
 * activity), wait for it on a durable timer with doubling backoff, ingest its output and error files. Returns the
 * submit outcome (batch_id null: nothing was sent this round).
 */
import { sleep } from '@temporalio/workflow';
import type { BatchActivities, RoundInput, SubmitOutcome } from '../activities/batch/batchActivities.ts';

export const POLL_FIRST_MS = 30_000;
export const POLL_MAX_MS = 30 * 60_000;

export async function runBatchRound(
  batch: Pick<BatchActivities, 'submitRound' | 'pollRound' | 'ingestRound'>,
  input: RoundInput,
  poll: { firstMs?: number; maxMs?: number },
): Promise<SubmitOutcome> {
  const sub = await batch.submitRound(input);
  if (!sub.batch_id) return sub;
  let wait = poll.firstMs ?? POLL_FIRST_MS;
  while (!(await batch.pollRound(input)).ended) {
    await sleep(wait);
    wait = Math.min(wait * 2, poll.maxMs ?? POLL_MAX_MS);
  }
  await batch.ingestRound(input);
  return sub;
}
