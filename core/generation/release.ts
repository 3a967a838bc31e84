/**
 * Maps accepted entries to the paper's release format (schemas/benchmark.ts): queries numbered q_0001.. in the
 * given order, corpus ids `<query_id>_canonical` and `<query_id>_d1`..`_dN`. Per-entry generation metadata
 * (model, endpoint, timestamp, token counts as `batch_usage`) travels in `metadata`, as in the paper's release.
 */
import type { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import type { Task } from '../../schemas/task.ts';
import type { AttemptSummary } from './types.ts';
import { releaseFromTasks } from '../release/fromTasks.ts';

export interface ReleaseInput {
  task: Task;
  entry_id: string;
  source: string;
  /** The accepted attempt and all attempts before it (for token totals). */
  attempts: readonly AttemptSummary[];
  generation: { model: string; endpoint: string; reasoning_effort: string | null; generated_at: string };
}

export function toRelease(items: readonly ReleaseInput[]): { queries: QueryRecord[]; corpus: CorpusRecord[] } {
  return releaseFromTasks(
    items.map((it) => {
      const usage = { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 };
      let cost = 0;
      for (const a of it.attempts) {
        usage.input_tokens += a.usage?.input_tokens ?? 0;
        usage.output_tokens += a.usage?.output_tokens ?? 0;
        usage.reasoning_tokens += a.usage?.reasoning_tokens ?? 0;
        cost += a.cost_usd ?? 0;
      }
      const metadata = { entry_id: it.entry_id, ...it.generation, attempts: it.attempts.length, batch_usage: usage, cost_usd: cost };
      return { task: it.task, source: it.source, metadata };
    }),
  );
}
