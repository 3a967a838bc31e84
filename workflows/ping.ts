/** Health check: one `ping` activity on each requested task queue; proves a worker serves every queue. */
import { proxyActivities } from '@temporalio/workflow';
import type { HealthActivities, PingReply } from '../infra/temporal/healthActivities.ts';
import { activityOptions, TASK_QUEUE_KEYS, type TaskQueueKey, type TaskQueues } from '../temporal.config.ts';

export interface PingInput {
  queues: TaskQueues;
  message: string;
  /** Default: all four queues. */
  keys?: TaskQueueKey[];
}

export async function pingWorkflow(input: PingInput): Promise<PingReply[]> {
  const keys = input.keys ?? [...TASK_QUEUE_KEYS];
  return Promise.all(
    keys.map((key) => {
      const { ping } = proxyActivities<HealthActivities>(activityOptions(key, input.queues, { startToCloseTimeout: '30 seconds' }));
      return ping(input.message);
    }),
  );
}
