import type { Client } from '@temporalio/client';
import { embedProgressQuery } from '../workflows/embedSweep.ts';
import { counter } from './progress.ts';
import { pollQuery } from './queryPoll.ts';

/**
 * The embed sweep's progress in texts (workflows/embedSweep.ts embedProgressQuery), drawn by cli/progress.ts.
 * `stop` ends the polling and draws the final count, also of a sweep that ended within its first second (a
 * closed workflow still answers queries).
 */
export function watchEmbedProgress(client: Client, workflowId: string): { stop: () => Promise<void> } {
  const count = counter('   embedding: texts');
  const poll = pollQuery(client, workflowId, embedProgressQuery, (p) => {
    if (p.texts_total > 0) count(p.texts_done, p.texts_total);
  });
  return {
    stop: async () => {
      await poll.stop();
      await poll.ask();
      count.done();
    },
  };
}
