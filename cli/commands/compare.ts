import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CODES } from '../../activities/faults.ts';
import { CliError } from '../errors.ts';
import { addRunOption, checkNames, existingRunDir } from '../options.ts';
import { readPairwiseParquet } from '../../activities/scoring/pairwiseParquet.ts';
import { fmt, fmtP } from '../../core/report/format.ts';

export function registerCompare(program: Command): void {
  const cmd = program
    .command('compare')
    .description('Print the pairwise rows of two configurations (difference A − B with its paired-bootstrap interval; McNemar b, c, p and Holm p for exec@k)')
    .addHelpText('after', '\nExample:\n  $ execretrieval compare --run default bm25 local-static-64')
    .argument('<a>', 'configuration A')
    .argument('<b>', 'configuration B')
    .argument('[extra]', 'the old form <run> <a> <b> (deprecated: use --run)');
  addRunOption(cmd)
    .option('--json', 'print the rows as JSON')
    .action((first: string, second: string, extra: string | undefined, opts: { json?: boolean }) => {
      // Old form: `compare <run> <a> <b>`; now `compare --run <run> <a> <b>`.
      const [run, a, b] = extra === undefined ? [undefined, first, second] : [first, second, extra];
      const path = join(existingRunDir(opts, run), 'report', 'pairwise.parquet');
      if (!existsSync(path)) throw new CliError(`${path} not found: run \`execretrieval score\` or \`report\` first`, EXIT_CODES.usage);
      const all = readPairwiseParquet(path);
      const rows = all
        .filter((r) => (r.config_a === a && r.config_b === b) || (r.config_a === b && r.config_b === a))
        .map((r) =>
          r.config_a === a
            ? r
            : // Stored as (b, a): flip so the row reads A − B.
              { ...r, config_a: a, config_b: b, value_a: r.value_b, value_b: r.value_a, diff: -r.diff, ci_low: r.ci_high === null ? null : -r.ci_high, ci_high: r.ci_low === null ? null : -r.ci_low, b: r.c, c: r.b },
        );
      const known = [...new Set(all.flatMap((r) => [r.config_a, r.config_b]))].sort();
      checkNames('configuration', [a, b], known);
      if (!rows.length) {
        throw new CliError(`no pairwise rows for ${a} vs ${b}; configurations in this run: ${known.join(', ')}`, EXIT_CODES.usage);
      }
      if (opts.json) {
        console.log(JSON.stringify(rows, null, 2));
        return;
      }
      console.log(`${a} (A) vs ${b} (B)`);
      for (const r of rows) {
        const mc = r.p_value !== null ? `  b=${r.b} c=${r.c} p=${fmtP(r.p_value)} holm=${fmtP(r.p_holm)}` : '';
        console.log(`${r.metric.padEnd(16)} A=${fmt(r.value_a)} B=${fmt(r.value_b)} A−B=${fmt(r.diff)} [${fmt(r.ci_low)}, ${fmt(r.ci_high)}]${mc}`);
      }
    });
}
