/**
 * The judging of a batched answer, on the coordinator (the default queue, with an oracle of its own: it reads the
 * run's ledger and writes entry files, workers/registry.ts): parse the answer the ledger holds,
 * run the five gates (the real-time path's gateEntry, unchanged), and write an accepted entry's file. Only the
 * outcome goes back to the workflow, never the task: a round of thousands of entries keeps the workflow's
 * history small (the real-time path gets the same from one child workflow per entry).
 */
import type { LlmSettings } from '../../core/generation/types.ts';
import type { EntrySource } from '../generation/defaultActivities.ts';
import { createExecActivities, type ExecActivityDeps } from '../generation/execActivities.ts';
import { toTemporalFailure, withHeartbeat } from '../generation/temporalErrors.ts';
import { parseStoredEntry, writeBatchedEntry } from './batchActivities.ts';

export interface JudgeBatchedInput {
  runDir: string;
  runId: string;
  source: EntrySource;
  entryId: string;
  attemptNo: number;
  profile: string;
  settings: LlmSettings;
  /** Workflow time, recorded as the entry's finished_at when it is accepted. */
  finishedAt: string;
}

export type JudgeChunkInput = Omit<JudgeBatchedInput, 'entryId' | 'attemptNo'> & { items: { entry_id: string; attempt_no: number }[]; concurrency: number };

export function createBatchExecActivities(deps: ExecActivityDeps) {
  const exec = createExecActivities(deps);
  const acts = {
    /**
     * A chunk of answers judged in one activity, `concurrency` at a time: a round of thousands of answers costs the
     * workflow a few events per chunk instead of per entry (51,200 events bound one workflow history). Judging is
     * idempotent, so a retried chunk judges its answers again without paying anything.
     */
    async judgeBatchedChunk(input: JudgeChunkInput): Promise<Record<'accepted' | 'rejected' | 'parse_error', number>> {
      const counts = { accepted: 0, rejected: 0, parse_error: 0 };
      return withHeartbeat(async () => {
        for (let i = 0; i < input.items.length; i += Math.max(1, input.concurrency)) {
          const outs = await Promise.all(input.items.slice(i, i + Math.max(1, input.concurrency)).map((it) => acts.judgeBatchedEntry({ ...input, entryId: it.entry_id, attemptNo: it.attempt_no })));
          for (const o of outs) counts[o.outcome] += 1;
        }
        return counts;
      });
    },

    async judgeBatchedEntry(input: JudgeBatchedInput): Promise<{ outcome: 'accepted' | 'rejected' | 'parse_error' }> {
      let parsed: ReturnType<typeof parseStoredEntry>;
      try {
        parsed = parseStoredEntry(input);
      } catch (err) {
        throw toTemporalFailure(err);
      }
      if (!parsed.ok) return { outcome: 'parse_error' };
      // gateEntry judges the attempt in the ledger and turns an oracle fault into a non-retryable InfraFault.
      const gate = await exec.gateEntry({ runId: input.runId, runDir: input.runDir, entryId: input.entryId, attemptNo: input.attemptNo, task: parsed.task, profile: input.profile });
      if (!gate.accepted) return { outcome: 'rejected' };
      writeBatchedEntry({ runDir: input.runDir, runId: input.runId, entryId: input.entryId, status: 'accepted', task: gate.task, settings: input.settings, finishedAt: input.finishedAt });
      return { outcome: 'accepted' };
    },
  };
  return acts;
}
export type BatchExecActivities = ReturnType<typeof createBatchExecActivities>;
