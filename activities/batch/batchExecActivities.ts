/**
 * The judging of a batched answer, on the `exec` queue (it needs the oracle): parse the answer the ledger holds,
 * run the five gates (the real-time path's gateEntry, unchanged), and write an accepted entry's file. Only the
 * outcome goes back to the workflow, never the task: a round of thousands of entries keeps the workflow's
 * history small (the real-time path gets the same from one child workflow per entry).
 */
import type { LlmSettings } from '../../core/generation/types.ts';
import type { EntrySource } from '../generation/defaultActivities.ts';
import { createExecActivities, type ExecActivityDeps } from '../generation/execActivities.ts';
import { toTemporalFailure } from '../generation/temporalErrors.ts';
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

export function createBatchExecActivities(deps: ExecActivityDeps) {
  const exec = createExecActivities(deps);
  return {
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
}
export type BatchExecActivities = ReturnType<typeof createBatchExecActivities>;
