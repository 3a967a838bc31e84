/**
 * A whole benchmark: `buildEntry` children over the registry with bounded concurrency and deterministic ids
 * (`<run>/entry/<entry_id>`), a page of `pageSize` entries per workflow run (continue-as-new keeps the history
 * bounded on large registries), then the corpus-integrity gate and sweeps over the accepted set and the
 * release files. Rerunning the same run id skips entries already accepted (and rejected, unless
 * `retryRejected`); a budget stop lets running children finish, starts no new ones, and still writes what
 * was accepted, so a rerun with a higher cap resumes.
 */
import { continueAsNew, executeChild, proxyActivities } from '@temporalio/workflow';
import type { DefaultActivities } from '../activities/generation/defaultActivities.ts';
import type { ExecActivities, FinalizeSummary } from '../activities/generation/execActivities.ts';
import type { EntryResult, RegistryEntry } from '../core/generation/types.ts';
import { activityOptions } from '../temporal.config.ts';
import { buildEntry } from './buildEntry.ts';
import { entryWorkflowId, type BenchmarkTally, type BuildBenchmarkInput } from './generationTypes.ts';

export interface BuildBenchmarkResult {
  tally: BenchmarkTally;
  finalize: FinalizeSummary;
}

export async function buildBenchmark(input: BuildBenchmarkInput): Promise<BuildBenchmarkResult> {
  const def = proxyActivities<DefaultActivities>(activityOptions('default', input.queues, input.activityOverrides?.default));
  const exec = proxyActivities<ExecActivities>(activityOptions('exec', input.queues, input.activityOverrides?.exec));
  const offset = input.offset ?? 0;
  const tally: BenchmarkTally = input.tally ?? {
    total: 0, skipped: 0, accepted: 0, rejected: 0, budget_exhausted: 0, provider_error: 0, bad_records: [], budget_stopped: false, pages: 0,
  };

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
      tally.provider_error += 1; // a child that failed outright (not a judged attempt); rerun redoes it
      return;
    }
    tally[r.status] += 1;
    if (r.status === 'budget_exhausted') tally.budget_stopped = true;
  };
  for (const entry of todo) {
    if (tally.budget_stopped) break;
    while (inflight.size >= input.concurrency) {
      const [id, r] = await Promise.race(inflight.values());
      settle(id, r);
    }
    if (tally.budget_stopped) break;
    const child = executeChild(buildEntry, {
      workflowId: entryWorkflowId(input.runId, entry.entry_id),
      taskQueue: input.queues.default,
      args: [{ runId: input.runId, runDir: input.runDir, entry, generator: input.generator, maxAttempts: input.maxAttempts, profile: input.profile, queues: input.queues, budget: input.budget, activityOverrides: input.activityOverrides }],
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
  if (next < page.total && !tally.budget_stopped) {
    return continueAsNew<typeof buildBenchmark>({ ...input, offset: next, tally });
  }

  // Query numbering follows registry order, so the whole registry's ids are needed (not just this page):
  // one activity call returning ids only, so full entries never land in this run's history.
  const order = await def.registryOrder({ source: input.source });
  const finalize = await exec.finalizeBenchmark({
    runId: input.runId,
    runDir: input.runDir,
    profile: input.profile,
    order,
    source: input.generator.kind === 'llm' ? `execretrieval-${input.generator.settings.provider}/${input.generator.settings.model}` : 'execretrieval-mechanical',
    manifest: { ...input.manifest, tally },
  });
  return { tally, finalize };
}
