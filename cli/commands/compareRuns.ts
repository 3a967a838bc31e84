import type { Command } from 'commander';
import { parseAlpha, parseReplicates, parseSeed, runDirOf } from '../options.ts';
import { compareRuns } from '../../activities/scoring/compareRuns.ts';
import { DEFAULT_SEED } from '../../schemas/runConfig.ts';
import { fmt, fmtP } from '../../core/report/format.ts';

export function registerCompareRuns(program: Command): void {
  program
    .command('compare-runs')
    .addHelpText('after', '\nExample:\n  $ execretrieval compare-runs default after   # two scored runs, e.g. before and after a change')
    .description('Compare two scored runs: on the same benchmark, paired tests per shared configuration (paired-bootstrap A − B; exact McNemar, Holm across configurations, for exec@k); on different benchmarks, the headlines side by side with no test')
    .argument('<runA>', 'run id (under runs/) or run directory')
    .argument('<runB>', 'run id (under runs/) or run directory')
    .option('--json', 'print the comparison as JSON')
    .option('--replicates <n>', 'bootstrap replicates', parseReplicates, 5000)
    .option('--seed <n>', 'bootstrap seed', parseSeed, DEFAULT_SEED)
    .option('--alpha <a>', 'interval and test level', parseAlpha, 0.05)
    .action((runA: string, runB: string, opts: { json?: boolean; replicates: number; seed: number; alpha: number }) => {
      const r = compareRuns(runDirOf(runA), runDirOf(runB), { replicates: opts.replicates, seed: opts.seed, alpha: opts.alpha });
      if (opts.json) {
        console.log(JSON.stringify(r, null, 2));
        return;
      }
      console.log(`A = ${runA}, B = ${runB}: ${r.same_benchmark ? 'same benchmark, paired over its queries' : 'different benchmarks, side by side (no test)'}`);
      if (r.only_a.length) console.log(`only in A: ${r.only_a.join(', ')}`);
      if (r.only_b.length) console.log(`only in B: ${r.only_b.join(', ')}`);
      let last = '';
      for (const row of r.rows) {
        if (row.config_id !== last) console.log(`\n${(last = row.config_id)}`);
        const base = `  ${row.metric.padEnd(16)} A=${fmt(row.value_a)} B=${fmt(row.value_b)}`;
        if (!r.same_benchmark) {
          console.log(base);
          continue;
        }
        const mc = row.p_value !== null ? `  b=${row.b} c=${row.c} p=${fmtP(row.p_value)} holm=${fmtP(row.p_holm)}` : '';
        console.log(`${base} A−B=${fmt(row.diff)} [${fmt(row.ci_low)}, ${fmt(row.ci_high)}]${mc}`);
      }
    });
}
