/**
 * Full MBPP benchmark build (issue 3 targets: cold < 180 s, warm < 30 s; issue 18: cold ≤ 60 s, on the 2-core machine):
 *   cold      — `buildBenchmark` with an empty execution cache and an empty mutant cache
 *   warm      — the same build again into another directory: every execution and enumeration a cache hit
 *   baseline  — one oracle pass over the 974 canonicals with their tests, cold (measured in this run), so the
 *               ratios say how many "canonical passes" a build costs whatever the machine's load
 * Also checks that the warm output is byte-identical to the cold one (timings.json aside: where the time went),
 * and prints each build's one-line time breakdown with the machine's load.
 * Run: node --import tsx bench/build-mbpp.ts [--seed N]
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle } from '../activities/exec/oracle.ts';
import { runGate } from '../activities/gate/gate.ts';
import { buildBenchmark } from '../activities/benchmark/build.ts';
import { resolveSource } from '../activities/benchmark/sources.ts';
import { importMbpp } from '../activities/importers/mbpp.ts';
import { formatBreakdown } from '../core/timing/breakdown.ts';

const seedArg = process.argv.indexOf('--seed');
const seed = seedArg > 0 ? Number(process.argv[seedArg + 1]) : 0;
const dir = mkdtempSync(join(tmpdir(), 'er-build-bench-'));
const execCache = join(dir, 'exec.sqlite');
const mutCache = join(dir, 'mutants.sqlite');
const log = (m: string) => process.stderr.write(`${m}\n`);

async function baseline(): Promise<number> {
  const { tasks } = await importMbpp(resolveSource('mbpp').path);
  const oracle = await openOracle({ cachePath: join(dir, 'baseline.sqlite') });
  try {
    const t0 = performance.now();
    await oracle.runMany(tasks.map(({ task }) => ({ code: task.canonical, suite: task.tests })));
    return (performance.now() - t0) / 1000;
  } finally {
    await oracle.close();
  }
}

async function build(out: string): Promise<{ seconds: number; manifest: Awaited<ReturnType<typeof buildBenchmark>>['manifest'] }> {
  const oracle = await openOracle({ cachePath: execCache });
  try {
    const load = loadavg()[0];
    const t0 = performance.now();
    const { manifest, timings } = await buildBenchmark({ source: 'mbpp', out, seed, oracle, gate: runGate, mutator: { cachePath: mutCache }, onProgress: (m) => log(`  ${m}`) });
    log(`  load ${load.toFixed(1)} -> ${loadavg()[0].toFixed(1)}  ${formatBreakdown(timings)}`);
    return { seconds: (performance.now() - t0) / 1000, manifest };
  } finally {
    await oracle.close();
  }
}

const base = await baseline();
log(`baseline (974 canonicals, cold): ${base.toFixed(1)} s`);
const cold = await build(join(dir, 'cold'));
log(`cold build: ${cold.seconds.toFixed(1)} s`);
const warm = await build(join(dir, 'warm'));
log(`warm build: ${warm.seconds.toFixed(1)} s`);
const identical = readdirSync(join(dir, 'cold')).filter((f) => f !== 'timings.json').every((f) => readFileSync(join(dir, 'cold', f)).equals(readFileSync(join(dir, 'warm', f))));
const c = cold.manifest.counts;
const four = cold.manifest.distractors_per_task['4'] ?? 0;
console.log(JSON.stringify({
  seed,
  baseline_canonicals_s: +base.toFixed(2),
  cold_s: +cold.seconds.toFixed(2),
  warm_s: +warm.seconds.toFixed(2),
  cold_over_baseline: +(cold.seconds / base).toFixed(2),
  warm_over_baseline: +(warm.seconds / base).toFixed(2),
  targets: { cold_s: 60, warm_s: 30, cold_met: cold.seconds <= 60, warm_met: warm.seconds < 30 },
  load_1min_at_end: +loadavg()[0].toFixed(2),
  warm_output_identical: identical,
  queries: c.queries,
  tasks_with_4_of_974: `${four} (${((100 * four) / 974).toFixed(1)}%)`,
  distractors_per_task: cold.manifest.distractors_per_task,
  bug_types: cold.manifest.bug_types,
  counts: c,
}, null, 2));
