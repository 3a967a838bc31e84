/**
 * Activities that run code through the execution oracle: the five-stage gate on one generated entry (the `exec`
 * queue: `gateTask` needs no run folder) and the finalisation of a benchmark (the gate over the whole accepted
 * set: cross-entry corpus integrity and the two integrity sweeps, then the release files; registered on the
 * `default` queue, the coordinator's, since it reads and writes the run folder: workers/registry.ts).
 */
import { runGate, type GateReport } from '../gate/gate.ts';
import { getProfile } from '../../core/gate/profiles.ts';
import { toRelease, type ReleaseInput } from '../../core/generation/release.ts';
import type { Oracle } from '../exec/types.ts';
import type { Task } from '../../schemas/task.ts';
import { ledgerAt } from '../ledger/ledger.ts';
import { writeJsonAtomic, writeJsonlAtomic } from '../storage/atomic.ts';
import { listEntryResults, runPaths } from './runFiles.ts';
import { toTemporalFailure, withHeartbeat } from './temporalErrors.ts';

export interface ExecActivityDeps {
  /** Opened once per worker on first use, closed with the worker. */
  oracle: () => Promise<Oracle>;
  now?: () => Date;
}

export interface GateEntryInput {
  runId: string;
  runDir: string;
  entryId: string;
  attemptNo: number;
  task: Task;
  profile: string;
}

export type GateEntryOutcome = { accepted: true; task: Task; reasons: [] } | { accepted: false; task: null; reasons: string[] };

export interface FinalizeInput {
  runId: string;
  runDir: string;
  profile: string;
  /** Registry order (entry ids) decides query numbering. */
  order: string[];
  source: string;
  manifest: Record<string, unknown>;
}

export interface FinalizeSummary {
  accepted_entries: number;
  released_queries: number;
  corpus_items: number;
  dropped_at_finalize: { task_id: string; reason: string }[];
  sweeps: GateReport['sweeps'];
  files: { queries: string; corpus: string; report: string; manifest: string };
}

export function formatRejection(r: { stage_name: string; code: string; field?: string; message: string }): string {
  return `${r.stage_name} ${r.code}${r.field ? ` ${r.field}` : ''}: ${r.message}`;
}

export function createExecActivities(deps: ExecActivityDeps) {
  const now = deps.now ?? (() => new Date());
  /** The five gates on one task: its verdict, no file written (the caller judges it in the ledger). */
  async function verdict(task: Task, profile: string): Promise<GateEntryOutcome> {
    const oracle = await deps.oracle();
    const report = await runGate([{ task }], oracle, getProfile(profile));
    if (report.accepted.length === 1) return { accepted: true, task: report.accepted[0], reasons: [] };
    return { accepted: false, task: null, reasons: report.rejections.map(formatRejection) };
  }

  return {
    /**
     * The real-time path's gate: the task in, the verdict out, no run folder needed, so an exec worker on any
     * machine serves it; the workflow has the coordinator judge the attempt (callReservations.ts judgeAttempt).
     */
    async gateTask(input: { task: Task; profile: string }): Promise<GateEntryOutcome> {
      try {
        return await withHeartbeat(() => verdict(input.task, input.profile));
      } catch (err) {
        // An InfraFault leaves the attempt unjudged: its stored response is gated again by the next run, not re-paid.
        throw toTemporalFailure(err);
      }
    },

    /** The gate and the judgement in the run's ledger by path (the batch path's exec step, beside the run folder). */
    async gateEntry(input: GateEntryInput): Promise<GateEntryOutcome> {
      try {
        return await withHeartbeat(async () => {
          const v = await verdict(input.task, input.profile);
          const key = { run_id: input.runId, phase: 'entry' as const, entry_id: input.entryId, attempt_no: input.attemptNo };
          ledgerAt(runPaths(input.runDir).ledger).judge(key, v.accepted ? 'accepted' : 'rejected', v.reasons);
          return v;
        });
      } catch (err) {
        // An InfraFault leaves the attempt unjudged: its stored response is gated again by the next run, not re-paid.
        throw toTemporalFailure(err);
      }
    },

    async finalizeBenchmark(input: FinalizeInput): Promise<FinalizeSummary> {
      try {
        return await finalize(input);
      } catch (err) {
        throw toTemporalFailure(err);
      }
    },
  };

  function finalize(input: FinalizeInput): Promise<FinalizeSummary> {
      return withHeartbeat(async () => {
        const paths = runPaths(input.runDir);
        const rank = new Map(input.order.map((id, i) => [id, i]));
        const accepted = listEntryResults(input.runDir)
          .filter((r) => r.status === 'accepted' && r.task && rank.has(r.entry_id))
          .sort((a, b) => rank.get(a.entry_id)! - rank.get(b.entry_id)!);
        const oracle = await deps.oracle();
        // The whole accepted set through the gate again: stage 5 now sees every entry at once (cross-entry
        // integrity), and the sweeps run over the final corpus. Execution results come from the oracle cache.
        const report = await runGate(accepted.map((r) => ({ task: r.task! })), oracle, getProfile(input.profile));
        const kept = new Set(report.accepted.map((t) => t.task_id));
        const dropped = accepted
          .filter((r) => !kept.has(r.task!.task_id))
          .map((r) => ({ task_id: r.task!.task_id, reason: report.rejections.filter((x) => x.task_id === r.task!.task_id).map(formatRejection).join('; ') }));
        const byTask = new Map(report.accepted.map((t) => [t.task_id, t]));
        const items: ReleaseInput[] = accepted
          .filter((r) => kept.has(r.task!.task_id))
          .map((r) => {
            const last = r.attempts.at(-1);
            return {
              task: byTask.get(r.task!.task_id)!,
              entry_id: r.entry_id,
              source: input.source,
              attempts: r.attempts,
              generation: {
                model: last?.model ?? 'unknown',
                endpoint: String((input.manifest.generator as { endpoint?: string } | undefined)?.endpoint ?? input.source),
                reasoning_effort: ((input.manifest.generator as { reasoning_effort?: string } | undefined)?.reasoning_effort ?? null) as string | null,
                generated_at: r.finished_at,
              },
            };
          });
        const { queries, corpus } = toRelease(items);
        writeJsonlAtomic(paths.queries, queries);
        writeJsonlAtomic(paths.corpus, corpus);
        const { accepted: _a, ...reportRest } = report;
        writeJsonAtomic(paths.report, { ...reportRest, dropped_at_finalize: dropped });
        writeJsonAtomic(paths.manifest, {
          run_id: input.runId,
          written_at: now().toISOString(),
          ...input.manifest,
          counts: { accepted_entries: accepted.length, queries: queries.length, corpus: corpus.length },
          files: { queries: 'queries.jsonl', corpus: 'corpus.jsonl', report: 'benchmark-report.json', ledger: 'ledger.sqlite' },
        });
        return {
          accepted_entries: accepted.length,
          released_queries: queries.length,
          corpus_items: corpus.length,
          dropped_at_finalize: dropped,
          sweeps: report.sweeps,
          files: { queries: paths.queries, corpus: paths.corpus, report: paths.report, manifest: paths.manifest },
        };
      });
  }
}
export type ExecActivities = ReturnType<typeof createExecActivities>;

