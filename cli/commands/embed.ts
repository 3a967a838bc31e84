import type { Command } from 'commander';
import { basename, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { addRunOption, checkConfigIds, commaList, durationOption, existingRunDir } from '../options.ts';
import { CliError } from '../errors.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { rebuiltCaches } from '../rebuildCache.ts';
import type { TaskQueues } from '../../temporal.config.ts';

export function registerEmbed(program: Command): void {
  const cmd = program
    .command('embed')
    .description('Embed a built benchmark (queries + corpus) under each configuration: matrices in <run>/embeddings/<config_id>/{queries,corpus}.{arrow,parquet}, report in <run>/embeddings/report.json')
    .addHelpText('after', '\nExample:\n  $ execretrieval embed --run default --configs local-static-64   # cached texts are not embedded again')
    .argument('[run]', 'deprecated: use --run');
  addRunOption(cmd, 'run id or runs/<id> (its benchmark in <run>/ or <run>/benchmark/)')
    .option('--configs <ids>', 'comma-separated configuration ids (default: every configuration that can run here is tried; the rest are reported)')
    .option('--config-file <file...>', 'extra registry files')
    .option('--no-worker', 'do not run a worker in this process (workers elsewhere serve the queues; needs TEMPORAL_ADDRESS)')
    .option('--concurrency <n>', 'batches in flight per hosted configuration', (v) => Number(v), 4)
    .option('--batch', "hosted OpenAI configurations embed through OpenAI's Batch API at half price (minutes to 24 h; a killed sweep resumes its batches, never sends them twice; docs/batch.md); other configurations stay real time")
    .option('--retry-deadline <duration>', 'longest a hosted configuration keeps retrying a failing service (429, 5xx, connection errors), waits included, before it fails (e.g. 30s, 10m; default: 10 tries, about 4 min)', durationOption('--retry-deadline'))
    .option('--json', 'print the sweep summary (report path; ok, failed and unavailable configurations) as JSON')
    .action(async (run: string | undefined, opts: { configs?: string; configFile?: string[]; worker: boolean; concurrency: number; batch?: boolean; retryDeadline?: number; json?: boolean }) => {
      const runDir = existingRunDir(opts, run);
      const configIds = commaList(opts.configs) ?? null;
      // Before the sweep starts: an unknown name used to surface only as "Workflow execution failed".
      await checkConfigIds(configIds ?? undefined, opts.configFile);
      // Imported when the command runs, not when it is registered: `--help` and usage errors need none of it.
      const [{ ACTIVITY_PROVIDERS, EMBED_COORDINATOR }, { startOrAttach, temporalLogFile, withTemporal }, { embedSweep }, { coordinatorQueue }, { SWEEP_SEND_RETRY }] = await Promise.all([
        import('../../workers/registry.ts'),
        import('../temporalRun.ts'),
        import('../../workflows/embedSweep.ts'),
        import('../pipelineRun.ts'),
        import('../../workflows/embedChunk.ts'),
      ]);
      // This process owns the run folder, the cache and the ledger (the sweep's coordinator); with --no-worker it
      // serves them on a queue of the run's own, and embed workers anywhere only send (workflows/embedChunk.ts).
      const temporal = {
        worker: opts.worker, ui: false, keys: ['default', 'embed'] as const, providers: [...ACTIVITY_PROVIDERS.filter((p) => p.queue === 'embed'), EMBED_COORDINATOR], logFile: temporalLogFile(runDir),
        ...(opts.worker ? {} : { coordinator: { queue: (q: TaskQueues) => coordinatorQueue(q, runDir), providers: [EMBED_COORDINATOR] } }),
      };
      await withTemporal(temporal, async (client, queues) => {
        // Same run + same selection = same workflow id: a rerun after a crash attaches to the one in flight.
        // (--batch is part of the selection: a batch sweep never attaches to a real-time one, nor the reverse.)
        const key = createHash('sha256').update(JSON.stringify([runDir, configIds, opts.configFile ?? [], ...(opts.batch ? ['batch'] : [])])).digest('hex').slice(0, 12);
        const workflowId = `embed-${basename(runDir)}-${key}`;
        const args = [{ queues, ...(opts.worker ? {} : { coordinatorQueue: coordinatorQueue(queues, runDir) }), runDir, configIds, configFiles: (opts.configFile ?? []).map((f) => resolve(f)), hostedConcurrency: opts.concurrency, ...(opts.batch ? { batch: true } : {}), ...(opts.retryDeadline ? { retry: { ...SWEEP_SEND_RETRY, maxRetryMs: opts.retryDeadline } } : {}) }] as const;
        // A cache this command rebuilt (--rebuild-cache): a sweep still open ran on the old file; never attach to it.
        const fresh = rebuiltCaches.length ? `${rebuiltCaches.join(', ')} rebuilt (--rebuild-cache)` : undefined;
        let result;
        const { watchEmbedProgress } = await import('../embedProgress.ts');
        const progress = watchEmbedProgress(client, workflowId);
        try {
          result = await startOrAttach(client, embedSweep, { taskQueue: queues.default, workflowId, args: [...args] }, (id) => `attaching to the sweep already in flight (${id})`, { fresh });
          await progress.stop();
        } catch (err) {
          await progress.stop();
          // A damaged cache, a full disk: one line and the table's exit code (5), not "Workflow execution failed".
          const [{ WorkflowFailedError }, { exitCodeOf }] = await Promise.all([import('@temporalio/client'), import('../pipelineRun.ts')]);
          if (!(err instanceof WorkflowFailedError)) throw err;
          const { code, message } = exitCodeOf(err);
          throw new CliError(message, code);
        }
        // Configurations the user did not ask for and that cannot run here (no key, no server) are one line, not one each.
        const quiet = configIds ? [] : result.results.filter((r) => r.status === 'unavailable');
        for (const r of result.results) {
          if (quiet.includes(r)) continue;
          const s = r.stats;
          const acct = s ? ` embedded ${s.embedded}, cached ${s.cached}, tokens ${s.tokens_reported + s.tokens_estimated}${s.tokens_estimated ? ' (some estimated)' : ''}, $${s.cost_usd.toFixed(4)}` : '';
          process.stderr.write(`${r.status.padEnd(11)} ${r.config_id}${acct}${r.reason ? `: ${r.reason}` : ''}\n`);
        }
        if (quiet.length) process.stderr.write(`unavailable ${quiet.length} more configurations need an API key or a server (\`execretrieval configs\` says which)\n`);
        const ids = (status: string) => result.results.filter((r) => r.status === status).map((r) => r.config_id);
        const summary = { report: result.report, ok: ids('ok'), failed: ids('failed'), unavailable: ids('unavailable') };
        if (opts.json) console.log(JSON.stringify(summary, null, 2));
        else console.log(`embedded ${summary.ok.length} configuration(s)${summary.failed.length ? `, ${summary.failed.length} failed (${summary.failed.join(', ')})` : ''}; report: ${result.report}`);
        // The exit code says whether what was asked happened (issue 37: every configuration failed, exit 0): a
        // failed configuration, or one named with --configs that could not run here, is exit 1, as is a sweep
        // that embedded nothing at all (BM25 needs no matrices: it counts as done).
        const notRun = configIds ? summary.unavailable : [];
        const nothing = summary.ok.length === 0 && !result.results.some((r) => r.status === 'lexical');
        if (summary.failed.length || notRun.length || nothing) {
          process.exitCode = EXIT_CODES.failed;
          if (notRun.length) process.stderr.write(`not embedded (asked for, cannot run here): ${notRun.join(', ')}\n`);
          if (nothing && !summary.failed.length && !notRun.length) process.stderr.write('nothing was embedded: no configuration can run here (`execretrieval configs` says why)\n');
        }
      });
    });
}
