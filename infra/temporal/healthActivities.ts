/**
 * A `ping` activity registered on every task queue, so `pingWorkflow` can prove that a worker serves each queue
 * (and the tests can see which process answered: the pid changes when a worker is killed and replaced).
 */
import { hostname } from 'node:os';
import type { TaskQueueKey } from '../../temporal.config.ts';

export interface PingReply {
  queue: TaskQueueKey;
  message: string;
  pid: number;
  host: string;
}

export function createHealthActivities(queue: TaskQueueKey) {
  return {
    async ping(message: string): Promise<PingReply> {
      return { queue, message, pid: process.pid, host: hostname() };
    },
  };
}
export type HealthActivities = ReturnType<typeof createHealthActivities>;
