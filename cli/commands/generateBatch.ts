/**
 * `generate benchmark --batch`: starts (or attaches to) the batchBenchmark workflow and prints its tally. A run
 * killed while a batch is at the provider resumes with the same command: the workflow (or, if it is gone, a new
 * one) finds the round's batch in the run's ledger or in the provider's list, and never submits it twice.
 */
import { existsSync } from 'node:fs';
import { runPaths } from '../../activities/generation/runFiles.ts';
import { writeRunAudit } from '../../activities/generation/auditFiles.ts';
import type { BudgetCap } from '../../activities/ledger/ledger.ts';
import type { EntrySource } from '../../activities/generation/defaultActivities.ts';
import { EXIT_CODES, InfraFault } from '../../activities/faults.ts';
import { batchBenchmark } from '../../workflows/batchBenchmark.ts';
import { benchmarkWorkflowId, type GeneratorSpec } from '../../workflows/generationTypes.ts';
import { startOrAttach, withTemporal } from '../temporalRun.ts';
import { formatAudit } from './audit.ts';
import { formatBatches } from './batchStatus.ts';
import type { CommonOpts, temporalOpts } from './generate.ts';

export async function runBatchBenchmark(a: {
  o: CommonOpts & { profile: string; concurrency: string };
  runDir: string;
  runId: string;
  source: EntrySource;
  generator: GeneratorSpec;
  manifest: Record<string, unknown>;
  budget: BudgetCap | undefined;
  temporal: ReturnType<typeof temporalOpts>;
}): Promise<void> {
  const { o, runDir, runId } = a;
  const result = await withTemporal(a.temporal, (client, queues) =>
    startOrAttach(client, batchBenchmark, {
      taskQueue: queues.default,
      workflowId: benchmarkWorkflowId(runId),
      args: [{ runId, runDir, source: a.source, generator: a.generator, maxAttempts: Number(o.maxAttempts), profile: o.profile, queues, budget: a.budget, concurrency: Number(o.concurrency), manifest: { ...a.manifest, batch: true } }],
    }, (id) => `workflow ${id} is already running (a batch may be at the provider): attaching to it`),
  );
  const t = result.tally;
  console.log(`entries: ${t.total} in ${t.rounds} batch rounds; accepted ${t.accepted}, rejected ${t.rejected}, budget-stopped ${t.budget_exhausted}, provider errors ${t.provider_error}`);
  if (result.finalize) console.log(`released ${result.finalize.released_queries} queries, ${result.finalize.corpus_items} corpus items: ${result.finalize.files.queries}, ${result.finalize.files.corpus}`);
  if (existsSync(runPaths(runDir).ledger)) {
    console.log('\n' + formatBatches(runDir, runId));
    console.log('\n' + formatAudit(writeRunAudit(runDir).audit, { entries: false }));
  }
  const resume = `execretrieval ${process.argv.slice(2).join(' ')}`;
  const left = t.total - t.accepted - t.rejected;
  if (t.infra_fault !== null) throw new InfraFault(`${t.infra_fault} [${left} entries unfinished; after the fix resume with: ${resume}]`);
  if (left > 0) {
    console.error(`${left} entries unfinished (budget-stopped ${t.budget_exhausted}, provider errors ${t.provider_error}): resume with: ${resume}`);
    process.exitCode = EXIT_CODES.unfinished;
  }
}
