import type { Command } from 'commander';
import { resolveRunDir } from '../../activities/paths.ts';
import { DEFAULT_SEED } from '../../schemas/runConfig.ts';
import { writeReport } from '../../activities/scoring/writeReport.ts';
import { headlineText } from '../../core/report/headline.ts';

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('Rebuild the report (summary.json, pairwise.parquet, report.md, report.html, BEIR/TREC exports) from a scored run; executes nothing')
    .argument('<run>', 'run id (under runs/) or run directory')
    .option('--replicates <n>', 'bootstrap replicates', (v) => Number(v), 5000)
    .option('--seed <n>', 'bootstrap seed (recorded in summary.json)', (v) => Number(v), DEFAULT_SEED)
    .option('--alpha <a>', 'interval and test level', (v) => Number(v), 0.05)
    .action(async (run: string, opts: { replicates: number; seed: number; alpha: number }) => {
      const r = await writeReport(resolveRunDir(run), opts);
      console.log(`${r.stats.configs.length} configurations × ${r.stats.n_queries} queries; wrote ${r.files.length} files under ${r.dir} and export/`);
      console.log('');
      console.log(headlineText(r.stats));
      console.log('');
      console.log(`report: ${r.dir}/report.md, ${r.dir}/report.html`);
    });
}
