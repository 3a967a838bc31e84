import type { Client } from '@temporalio/client';
import { embedProgressQuery } from '../workflows/embedSweep.ts';
import { counter } from './progress.ts';

/**
 * The embed sweep's progress in texts (workflows/embedSweep.ts embedProgressQuery), asked every second of the
 * workflow itself (a sweep attached to, or run by workers elsewhere, shows the same), drawn by cli/progress.ts.
 * `stop` ends the polling, draws the last count and waits for a query still in flight.
 */
export function watchEmbedProgress(client: Client, workflowId: string): { stop: () => Promise<void> } {
  const count = counter('   embedding: texts');
  let inflight: Promise<void> | null = null;
  const ask = () =>
    (inflight ??= client.workflow
      .getHandle(workflowId)
      .query(embedProgressQuery)
      .then((p) => {
        if (p.texts_total > 0) count(p.texts_done, p.texts_total);
      }, () => undefined) // not started yet, or between continue-as-new runs: the next second asks again
      .finally(() => (inflight = null)));
  const poll = setInterval(() => void ask(), 1_000);
  return {
    stop: async () => {
      clearInterval(poll);
      await inflight;
      await ask(); // the final count, also of a sweep that ended within its first second (a closed workflow answers queries)
      count.done();
    },
  };
}
