import { DEFAULT_SEED } from '../../schemas/runConfig.ts';
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { openOracle } from '../../activities/exec/oracle.ts';
import { runGate } from '../../activities/gate/gate.ts';
import { buildBenchmark, rejectionsByStage } from '../../activities/benchmark/build.ts';
import { CliError } from '../errors.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { formatBreakdown } from '../../core/timing/breakdown.ts';

export function registerBuild(program: Command): void {
  program
    .command('build')
    .description('Build an execution-verified benchmark with mechanical distractors: import, mutate + verify, gate, write the release format (queries.jsonl, corpus.jsonl, Parquet copies, report.json, manifest.json)')
    .requiredOption('--source <source>', 'mbpp | curated | a task .jsonl file or directory | a release directory (queries.jsonl + corpus.jsonl)')
    .requiredOption('--out <dir>', 'output directory, e.g. runs/<run-id>/benchmark')
    .option('--seed <n>', 'seed for the mutant verification order (recorded in the manifest)', (v) => Number(v), DEFAULT_SEED)
    .option('--profile <name>', 'gate profile: default (4 distractors, 7-10 tests), check (1-4 distractors, suites of any size), mbpp, canonical (default: mbpp for MBPP, default otherwise)')
    .option('--cap <n>', 'most candidates verified per task', (v) => Number(v), 40)
    .action(async (opts: { source: string; out: string; seed: number; profile?: string; cap: number }) => {
      if (!Number.isInteger(opts.seed) || opts.seed < 0 || opts.seed > 0xffffffff) throw new Error(`--seed must be an integer in [0, 2^32), got ${opts.seed}`);
      const t0 = Date.now();
      const say = (m: string) => process.stderr.write(`[build ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}\n`);
      const oracle = await openOracle();
      try {
        const { manifest, report, timings } = await buildBenchmark({
          source: opts.source, out: resolve(opts.out), seed: opts.seed, profile: opts.profile, cap: opts.cap, oracle, gate: runGate, onProgress: say,
        });
        const c = manifest.counts;
        say(`done: ${c.queries} queries, ${c.corpus} corpus items (${c.distractors} distractors); rejected: ${c.import_rejected} at import, ${c.precheck_rejected} at precheck, ${c.mutation_rejected} at mutation, ${c.gate_rejected} by the gate`);
        const kept = report.check_programs.kept;
        if (kept.length) say(`check programs kept whole (one test each): ${kept.map((k) => `${k.task_id} (${k.reason})`).join(', ')}`);
        console.log(JSON.stringify({ out: resolve(opts.out), counts: c, distractors_per_task: manifest.distractors_per_task, bug_types: manifest.bug_types, yield: report.yield.total }, null, 2));
        for (const r of report.rejections) process.stderr.write(`rejected ${r.file ? `${r.file}:${r.line} ` : ''}${r.task_id ?? ''} [${r.stage}] ${r.code}${r.field ? ` ${r.field}` : ''}: ${r.message}\n`);
        process.stderr.write(`${formatBreakdown(timings)}\n`);
        if (c.queries === 0) {
          throw new CliError(`build: no task accepted, ${c.input_records} of ${c.input_records} records rejected; ${rejectionsByStage(report.rejections) || 'no input records'} (details: ${resolve(opts.out, 'report.json')})`, EXIT_CODES.no_task_accepted);
        }
      } finally {
        await oracle.close();
      }
    });
}
