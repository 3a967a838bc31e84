/**
 * What splitting check(candidate) programs buys (issue 14): the 22-task check-program fixture built twice with
 * the `check` profile, cold caches each time —
 *   split     — as `build` does it: one test per top-level assert where safe (21 of 22 tasks);
 *   program   — baseline, measured in the same run: every program kept whole (a trailing `pass` after the
 *               asserts makes the planner refuse to split), one test per suite.
 * Each is built twice, alternating; prints candidates verified, tasks with four twins and the faster wall time
 * of each, and the ratios program / split.
 * Run: node --import tsx bench/check-split.ts
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle } from '../activities/exec/oracle.ts';
import { runGate } from '../activities/gate/gate.ts';
import { buildBenchmark } from '../activities/benchmark/build.ts';
import { importMappedJsonl } from '../activities/importers/mappedJsonl.ts';
import { PRESETS } from '../activities/importers/presets.ts';
import { projectRoot } from '../activities/paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'er-check-split-'));
const fixture = join(projectRoot(), 'test', 'fixtures', 'check-program', 'check-program.jsonl.gz');

async function build(name: string, tasks: object[]) {
  const src = join(dir, `${name}.jsonl`);
  writeFileSync(src, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
  const oracle = await openOracle({ cachePath: join(dir, `${name}-exec.sqlite`) });
  try {
    const t0 = performance.now();
    const r = await buildBenchmark({ source: src, out: join(dir, name), seed: 0, profile: 'check', oracle, gate: runGate, mutator: { cachePath: join(dir, `${name}-mut.sqlite`) } });
    const seconds = (performance.now() - t0) / 1000;
    // Tasks whose twins do not all fail the same tests: what one outcome per program cannot show.
    const diverse = r.accepted.filter((t) => new Set(t.distractors.map((d) => (d.failing_tests ?? []).join())).size >= 2).length;
    return { seconds, verified: r.report.yield.total.verified, four: r.manifest.distractors_per_task['4'] ?? 0, queries: r.manifest.counts.queries, kept: r.report.check_programs.kept.length, diverse };
  } finally {
    await oracle.close();
  }
}

const { tasks } = await importMappedJsonl(fixture, PRESETS['check-program'], 'check-program');
const plain = tasks.map((t) => t.task);
const whole = plain.map((t) => (t.tests.kind === 'check' ? { ...t, tests: { ...t.tests, program: t.tests.program.replace(/\n*$/, '\n    pass\n') } } : t));
// Each variant twice, alternating, so neither gains from running second (warm interpreter, page cache); the
// faster of its two runs is reported.
const runs: (readonly [string, Awaited<ReturnType<typeof build>>])[] = [];
for (const round of [1, 2]) runs.push(['split', await build(`split${round}`, plain)] as const, ['program', await build(`program${round}`, whole)] as const);
const best = (n: string) => runs.filter(([k]) => k === n).map(([, r]) => r).sort((a, b) => a.seconds - b.seconds)[0];
const split = best('split');
const program = best('program');
const row = (n: string, r: typeof split) => `${n.padEnd(8)} ${r.seconds.toFixed(1).padStart(6)} s  verified ${String(r.verified).padStart(4)}  four twins ${r.four}/${r.queries}  twins failing different tests ${r.diverse}/${r.queries}  kept whole ${r.kept}`;
console.log(row('split', split));
console.log(row('program', program));
console.log(`program / split: ${(program.seconds / split.seconds).toFixed(2)}x wall, ${(program.verified / split.verified).toFixed(2)}x candidates verified`);
