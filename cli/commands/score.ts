import type { Command } from 'commander';
import { resolve } from 'node:path';
import { addRunOption, checkedRegistry, checkNames, commaList, existingRunDir, parseAlpha, parseReplicates, parseSeed, parseTimeout } from '../options.ts';
import { discoverConfigs } from '../../activities/scoring/configs.ts';
import { DEFAULT_SEED } from '../../schemas/runConfig.ts';
import { counter } from '../progress.ts';
import { headlineText } from '../../core/report/headline.ts';
import { buildLeaderboard } from '../../core/report/leaderboard.ts';
import { formatBreakdown } from '../../core/timing/breakdown.ts';

export function registerScore(program: Command): void {
  const cmd = program
    .command('score')
    .addHelpText('after', '\nExample:\n  $ execretrieval score --run default --replicates 1000   # every configuration of runs/default, BM25 included')
    .description('Rank every configuration of a run, execute every top-10 snippet against its query\'s tests, compute metrics, then write the report')
    .argument('[run]', 'deprecated: use --run');
  addRunOption(cmd, 'run id (under runs/) or run directory (with benchmark/ and embeddings/)')
    .option('--configs <ids>', 'comma-separated configuration ids to score, in this order (default: all, BM25 included)')
    .option('--no-bm25', 'leave out the BM25 baseline')
    .option('--config-file <file...>', 'extra embedding-registry files: the report describes their configurations like ours')
    .option('--replicates <n>', 'bootstrap replicates', parseReplicates, 5000)
    .option('--seed <n>', 'bootstrap seed (recorded in summary.json) and key of the ranking tie order (scoring/manifest.json tie_break)', parseSeed, DEFAULT_SEED)
    .option('--alpha <a>', 'interval and test level', parseAlpha, 0.05)
    .option('--timeout <seconds>', 'per-suite execution timeout', parseTimeout, 5)
    .option('--json', 'print the manifest, the leaderboard (sorted by the tie-aware exec@1_ta, numbers with intervals) and the report paths as JSON on stdout (progress and logs stay on stderr)')
    .addHelpText(
      'after',
      '\nWrites runs/<id>/rankings/<config>.parquet, runs/<id>/scoring/*, runs/<id>/report/* and runs/<id>/export/*.' +
        '\nExit code: 0 when everything was scored; 1 when a configuration failed or was missing, or a benchmark record was rejected (the rest is still scored and reported); 5 when an execution was an infrastructure fault (a damaged cache, a sandbox failure): one line names it and nothing is written.',
    )
    .action(async (run: string | undefined, opts: { configs?: string; configFile?: string[]; bm25: boolean; replicates: number; seed: number; alpha: number; timeout: number; json?: boolean }) => {
      const runDir = existingRunDir(opts, run);
      const configs = commaList(opts.configs);
      // A registry file that is missing or malformed: exit 2 before any execution (its configurations would be described as unknown).
      const configFiles = opts.configFile?.map((f) => resolve(f));
      if (configFiles) await checkedRegistry(configFiles);
      // A name that is neither embedded in this run nor BM25 is a typo: exit 2 before any execution.
      if (configs) checkNames('configuration', configs, [...new Set(['bm25', ...discoverConfigs(runDir).configs.map((c) => c.config_id)])]);
      // Imported when the command runs, not when it is registered: `--help` and usage errors need none of it.
      const [{ openOracle }, { scoreRun }] = await Promise.all([import('../../activities/exec/oracle.ts'), import('../../activities/scoring/scoreRun.ts')]);
      const oracle = await openOracle({ timeoutS: opts.timeout });
      const progress = counter('executing top-10 snippets');
      try {
        const { manifest, report, timings } = await scoreRun({
          runDir,
          oracle,
          configs,
          bm25: opts.bm25,
          replicates: opts.replicates,
          seed: opts.seed,
          alpha: opts.alpha,
          ...(configFiles ? { configFiles } : {}),
          log: (m) => console.error(m),
          onExecProgress: progress,
        });
        progress.done();
        if (manifest.failed_configs.length || manifest.rejections.length || manifest.missing_configs.length) process.exitCode = 1;
        if (opts.json) {
          console.log(JSON.stringify({ manifest, leaderboard: buildLeaderboard(report.stats), report: { md: `${report.dir}/report.md`, html: `${report.dir}/report.html` }, timings }, null, 2));
          return;
        }
        console.log(`scored ${manifest.configs.length} configurations on ${manifest.n_queries} queries (${manifest.executions.pairs} (query, snippet) pairs: ${manifest.executions.not_defined} not_defined without running, ${manifest.executions.cached} cached)`);
        if (manifest.failed_configs.length) console.log(`failed: ${manifest.failed_configs.map((f) => f.config_id).join(', ')}`);
        console.log('');
        console.log(headlineText(report.stats));
        console.log('');
        console.log(`report: ${report.dir}/report.md, ${report.dir}/report.html`);
        console.error(formatBreakdown(timings));
      } finally {
        await oracle.close();
      }
    });
}
