import { Option, type Command } from 'commander';
import { join, resolve } from 'node:path';
import { runsDir } from '../../activities/paths.ts';
import { listRuns } from '../../activities/runStatus.ts';
import { inFlight, readBatches } from './batchStatus.ts';

export function registerRuns(program: Command): void {
  program
    .command('runs')
    .description('List the runs under runs/: id, kind, status (complete, or the next stage to do), stages done, last change')
    .addOption(new Option('--dir <dir>', 'where runs live').default(runsDir(), 'runs/ of the checkout, or of the current folder for an installed CLI'))
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  $ execretrieval runs\n  default   benchmark   complete             build embed score report   2026-12-01T09:18:44Z\n\nExit codes: 0 (also when there are no runs).')
    .action((opts: { dir: string; json?: boolean }) => {
      // Provider batches still in flight (generate --batch): requests at the provider, not yet in the ledger.
      const runs = listRuns(opts.dir).map((r) => ({ ...r, batches_in_flight: inFlight(readBatches(join(opts.dir, r.run_id))).length }));
      if (opts.json) {
        console.log(JSON.stringify({ dir: resolve(opts.dir), runs }, null, 2));
        return;
      }
      if (!runs.length) {
        console.log(`no runs under ${opts.dir}`);
        return;
      }
      const w = Math.max(...runs.map((r) => r.run_id.length));
      for (const r of runs) {
        const done = r.stages.filter((s) => s.done).map((s) => s.stage).join(' ') || '-';
        const batches = r.batches_in_flight ? `  ${r.batches_in_flight} provider batch${r.batches_in_flight > 1 ? 'es' : ''} in flight` : '';
        console.log(`${r.run_id.padEnd(w)}  ${r.kind.padEnd(10)}  ${r.status.padEnd(20)}  ${done.padEnd(26)}  ${r.updated.replace(/\.\d+Z$/, 'Z')}${batches}`);
      }
    });
}
