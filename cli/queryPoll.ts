import type { Client } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';

/**
 * Asks a workflow's query every second and hands each answer to `on` (progress lines read the workflow's state,
 * not this process's, so a run attached to or carried by workers elsewhere shows the same). One query at a time;
 * a failed one (not started yet, between continue-as-new runs) is skipped. `stop` ends the polling and waits for
 * the query in flight: none may outlive the connection (grpc-js throws from a timer then).
 */
export function pollQuery<T>(client: Client, workflowId: string, query: QueryDefinition<T, []>, on: (value: T) => void): { ask: () => Promise<void>; stop: () => Promise<void> } {
  let inflight: Promise<void> | null = null;
  const ask = () => (inflight ??= client.workflow.getHandle(workflowId).query(query).then(on, () => undefined).finally(() => (inflight = null)));
  const timer = setInterval(() => void ask(), 1_000);
  return {
    ask,
    stop: async () => {
      clearInterval(timer);
      await inflight;
    },
  };
}
