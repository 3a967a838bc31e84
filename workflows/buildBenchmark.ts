/**
 * A whole benchmark: `buildEntry` children over the registry with bounded concurrency and deterministic ids
 * (`<run>/entry/<entry_id>`), a page of `pageSize` entries per workflow run (continue-as-new keeps the history
 * bounded on large registries), then the corpus-integrity gate and sweeps over the accepted set and the
 * release files. Rerunning the same run id skips entries already accepted (and rejected, unless
 * `retryRejected`); a budget stop lets running children finish, starts no new ones, and still writes what
 * was accepted, so a rerun with a higher cap resumes. An infrastructure fault (the gate's oracle or cache failed
 * twice) also starts no new children and skips finalisation (it would meet the same fault): `finalize` is null and
 * `tally.infra_fault` says what to fix before the rerun.
 */
import { ActivityFailure, ApplicationFailure, continueAsNew, executeChild, proxyActivities } from '@temporalio/workflow';
import type { DefaultActivities } from '../activities/generation/defaultActivities.ts';
import type { ExecActivities, FinalizeSummary } from '../activities/generation/execActivities.ts';
import type { EntryResult, RegistryEntry } from '../core/generation/types.ts';
import { ACTIVITY_CLASSES, activityOptions } from '../temporal.config.ts';
import { buildEntry } from './buildEntry.ts';
import { entryWorkflowId, type BenchmarkTally, type BuildBenchmarkInput } from './generationTypes.ts';

export interface BuildBenchmarkResult {
  tally: BenchmarkTally;
  /** null when an infrastructure fault stopped the run before the release files could be written. */
  finalize: FinalizeSummary | null;
}

export async function buildBenchmark(input: BuildBenchmarkInput): Promise<BuildBenchmarkResult> {
  const def = proxyActivities<DefaultActivities>(activityOptions('default', input.queues, input.activityOverrides?.default));
  const exec = proxyActivities<ExecActivities>(activityOptions('exec', input.queues, input.activityOverrides?.exec));
  // The release is written where the run folder is: on the coordinator (the default queue), with the exec class's
  // timeouts; its gate over the whole set runs on the coordinator's own oracle (verdicts from its cache where it has them).
  const finalizer = proxyActivities<Pick<ExecActivities, 'finalizeBenchmark'>>(activityOptions('default', input.queues, { ...ACTIVITY_CLASSES.exec, ...input.activityOverrides?.exec }));
  const offset = input.offset ?? 0;
  // Defaults first: a tally carried over by continue-as-new from an older version may lack newer counters.
  const tally: BenchmarkTally = {
    total: 0, skipped: 0, accepted: 0, rejected: 0, budget_exhausted: 0, provider_error: 0, infra_error: 0, infra_fault: null, bad_records: [], budget_stopped: false, pages: 0,
    ...input.tally,
  };
  const stopped = () => tally.budget_stopped || tally.infra_fault !== null;

  const page = await def.loadRegistryPage({ source: input.source, offset, limit: input.pageSize });
  tally.total = page.total;
  tally.pages += 1;
  for (const p of page.problems) tally.bad_records.push(`${p.file}:${p.line}${p.field ? ` ${p.field}` : ''}: ${p.message}`);

  const statuses = await def.entryStatuses({ runDir: input.runDir, ids: page.entries.map((e) => e.entry_id) });
  const todo: RegistryEntry[] = [];
  for (const e of page.entries) {
    const s = statuses[e.entry_id];
    const done = s === 'accepted' || (s === 'rejected' && !input.retryRejected);
    if (done) {
      tally.skipped += 1;
      if (s) tally[s] += 1;
    } else todo.push(e);
  }

  // Sliding window of children (bounded fan-out): start the next as soon as one finishes.
  const inflight = new Map<string, Promise<[string, EntryResult | Error]>>();
  const settle = (id: string, r: EntryResult | Error) => {
    inflight.delete(id);
    if (r instanceof Error) {
      // A child that failed outright: not a judged attempt and not the provider's doing; a rerun redoes it.
      tally.infra_error += 1;
      tally.infra_fault ??= `entry ${id}: ${r.message}`;
      return;
    }
    tally[r.status] += 1;
    if (r.status === 'budget_exhausted') tally.budget_stopped = true;
    if (r.status === 'infra_error') tally.infra_fault ??= r.attempts.at(-1)?.reasons[0] ?? `entry ${id}: infrastructure fault`;
  };
  for (const entry of todo) {
    if (stopped()) break;
    while (inflight.size >= input.concurrency) {
      const [id, r] = await Promise.race(inflight.values());
      settle(id, r);
    }
    if (stopped()) break;
    const child = executeChild(buildEntry, {
      workflowId: entryWorkflowId(input.runId, entry.entry_id),
      taskQueue: input.queues.default,
      args: [{ runId: input.runId, runDir: input.runDir, entry, generator: input.generator, maxAttempts: input.maxAttempts, profile: input.profile, queues: input.queues, budget: input.budget, providerPatienceMs: input.providerPatienceMs, activityOverrides: input.activityOverrides }],
    }).then(
      (r): [string, EntryResult | Error] => [entry.entry_id, r],
      (e): [string, EntryResult | Error] => [entry.entry_id, e instanceof Error ? e : new Error(String(e))],
    );
    inflight.set(entry.entry_id, child);
  }
  while (inflight.size) {
    const [id, r] = await Promise.race(inflight.values());
    settle(id, r);
  }

  const next = offset + input.pageSize;
  if (next < page.total && !stopped()) {
    return continueAsNew<typeof buildBenchmark>({ ...input, offset: next, tally });
  }
  if (tally.infra_fault !== null) return { tally, finalize: null };

  // Query numbering follows registry order, so the whole registry's ids are needed (not just this page):
  // one activity call returning ids only, so full entries never land in this run's history.
  const order = await def.registryOrder({ source: input.source });
  try {
    const finalize = await finalizer.finalizeBenchmark({
      runId: input.runId,
      runDir: input.runDir,
      profile: input.profile,
      order,
      source: `execretrieval-${input.generator.settings.provider}/${input.generator.settings.model}`,
      manifest: { ...input.manifest, tally },
    });
    return { tally, finalize };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : null;
    if (!(cause instanceof ApplicationFailure && cause.type === 'InfraFault')) throw err;
    tally.infra_fault = cause.message;
    return { tally, finalize: null };
  }
}
