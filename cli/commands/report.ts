import type { Command } from 'commander';
import { DEFAULT_SEED } from '../../schemas/runConfig.ts';
import { writeReport } from '../../activities/scoring/writeReport.ts';
import { headlineText } from '../../core/report/headline.ts';
import { buildLeaderboard } from '../../core/report/leaderboard.ts';
import { resolve } from 'node:path';
import { addRunOption, checkedRegistry, existingRunDir, parseAlpha, parseReplicates, parseSeed } from '../options.ts';

export function registerReport(program: Command): void {
  const cmd = program
    .command('report')
    .description('Rebuild the report (summary.json, pairwise.parquet, report.md, report.html, BEIR/TREC exports) from a scored run; executes nothing')
    .addHelpText('after', '\nExample:\n  $ execretrieval report --run default --replicates 1000   # runs/default/report/ again, executing nothing')
    .argument('[run]', 'deprecated: use --run');
  addRunOption(cmd)
    .option('--replicates <n>', 'bootstrap replicates', parseReplicates, 5000)
    .option('--seed <n>', 'bootstrap seed (recorded in summary.json)', parseSeed, DEFAULT_SEED)
    .option('--alpha <a>', 'interval and test level', parseAlpha, 0.05)
    .option('--config-file <file...>', 'extra embedding-registry files: the report describes their configurations like ours')
    .option('--json', 'print the leaderboard (sorted by exec@1, numbers with intervals) and the report paths as JSON')
    .action(async (run: string | undefined, opts: { replicates: number; seed: number; alpha: number; configFile?: string[]; json?: boolean }) => {
      const runDir = existingRunDir(opts, run);
      // A missing or malformed registry file: exit 2 before anything is written.
      const configFiles = opts.configFile?.map((f) => resolve(f));
      if (configFiles) await checkedRegistry(configFiles);
      const r = await writeReport(runDir, { replicates: opts.replicates, seed: opts.seed, alpha: opts.alpha, ...(configFiles ? { configFiles } : {}) });
      if (opts.json) {
        console.log(JSON.stringify({ leaderboard: buildLeaderboard(r.stats), report: { md: `${r.dir}/report.md`, html: `${r.dir}/report.html` }, files: r.files }, null, 2));
        return;
      }
      console.log(`${r.stats.configs.length} configurations × ${r.stats.n_queries} queries; wrote ${r.files.length} files under ${r.dir} and export/`);
      console.log('');
      console.log(headlineText(r.stats));
      console.log('');
      console.log(`report: ${r.dir}/report.md, ${r.dir}/report.html`);
    });
}
