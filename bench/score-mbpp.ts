/**
 * MBPP scoring with BM25 only (issue 18 target: ≤ 10 s on the 2-core machine, from 42.7 s), cold caches:
 *   build     — the MBPP benchmark (once, its own cache; not timed here: bench/build-mbpp.ts times it)
 *   new       — `score --configs bm25` with an empty execution cache and the not_defined rule on
 *   baseline  — the same with another empty execution cache, every top-10 pair executed (the path before the
 *               not_defined rule), measured in this run
 * Each leg runs in its own Node process, one after the other, the new one first: neither inherits the other's
 * heap, garbage collection, warm JIT or fork servers, and the new leg is not charged for what the baseline's
 * 10,470 sandbox children leave behind (the run-queue load it builds up, the kernel's tear-down of their mount
 * namespaces). `new_s` is scoreRun's own time, as the `score` command's breakdown counts it; `new_process_s`
 * is its whole process (Node start-up and module loading included).
 * Checks that both give identical metrics (summary.json estimates) and that every pair the rule skipped failed
 * in the baseline.
 * Run: node --import tsx bench/score-mbpp.ts [--bench <dir with queries.jsonl + corpus.jsonl>]
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../activities/paths.ts';

const log = (m: string) => process.stderr.write(`${m}\n`);
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : '';
};

interface LegResult {
  seconds: number;
  load: [number, number];
  breakdown: string;
  pairs: number;
  not_defined: number;
  runDir: string;
}

/** One leg, in this process (the driver below starts it as a child): scoreRun on a copy of the benchmark. */
async function leg(name: string, benchDir: string, dir: string): Promise<LegResult> {
  const { openOracle } = await import('../activities/exec/oracle.ts');
  const { scoreRun } = await import('../activities/scoring/scoreRun.ts');
  const { formatBreakdown } = await import('../core/timing/breakdown.ts');
  const runDir = join(dir, name);
  cpSync(benchDir, join(runDir, 'benchmark'), { recursive: true });
  const oracle = await openOracle({ cachePath: join(dir, `${name}.sqlite`) });
  try {
    const load = loadavg()[0];
    const t0 = performance.now();
    const r = await scoreRun({ runDir, oracle, configs: ['bm25'], runNotDefined: name === 'baseline' });
    const seconds = (performance.now() - t0) / 1000;
    return { seconds, load: [load, loadavg()[0]], breakdown: formatBreakdown(r.timings), pairs: r.manifest.executions.pairs, not_defined: r.manifest.executions.not_defined, runDir };
  } finally {
    await oracle.close();
  }
}

const legName = arg('--leg');
if (legName) {
  const r = await leg(legName, arg('--bench'), arg('--dir'));
  process.stdout.write(JSON.stringify(r));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'er-score-bench-'));
  let benchDir = arg('--bench');
  if (!benchDir) {
    const { openOracle } = await import('../activities/exec/oracle.ts');
    const { runGate } = await import('../activities/gate/gate.ts');
    const { buildBenchmark } = await import('../activities/benchmark/build.ts');
    benchDir = join(dir, 'built');
    const oracle = await openOracle({ cachePath: join(dir, 'build.sqlite') });
    try {
      log('building the MBPP benchmark (not timed)');
      await buildBenchmark({ source: 'mbpp', out: benchDir, seed: 0, oracle, gate: runGate, mutator: { cachePath: join(dir, 'mut.sqlite') } });
    } finally {
      await oracle.close();
    }
  }
  const self = fileURLToPath(import.meta.url);
  const run = (name: string): LegResult & { process_s: number } => {
    const t0 = performance.now();
    // Synchronous: the child and everything it started have exited before the next leg begins.
    const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--leg', name, '--bench', benchDir, '--dir', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
    const process_s = (performance.now() - t0) / 1000;
    const r = JSON.parse(out) as LegResult;
    log(`${name}: ${r.seconds.toFixed(1)} s in scoreRun, ${process_s.toFixed(1)} s for the process (load ${r.load[0].toFixed(1)} -> ${r.load[1].toFixed(1)})  ${r.breakdown}`);
    return { ...r, process_s };
  };
  const next = run('new');
  const base = run('baseline');
  const summary = (d: string) => JSON.parse(readFileSync(join(d, 'report', 'summary.json'), 'utf8'));
  const same = JSON.stringify(summary(base.runDir).estimates) === JSON.stringify(summary(next.runDir).estimates);
  // Independent check with pyarrow: every pair the rule skipped failed when the baseline ran it.
  const py = join(projectRoot(), '.venv', 'bin', 'python');
  const check = execFileSync(py, ['-c', `
import json, sys, pyarrow.parquet as pq
b = {(r['query_id'], r['corpus_id']): r for r in pq.read_table(sys.argv[1]).to_pylist()}
n = [r for r in pq.read_table(sys.argv[2]).to_pylist() if json.loads(r['outcomes'])[:1] == ['not_defined']]
print(json.dumps({'skipped': len(n), 'skipped_that_passed': sum(b[(r['query_id'], r['corpus_id'])]['passed'] for r in n)}))
`, join(base.runDir, 'scoring', 'executions.parquet'), join(next.runDir, 'scoring', 'executions.parquet')], { encoding: 'utf8' });
  console.log(JSON.stringify({
    baseline_s: +base.seconds.toFixed(2),
    new_s: +next.seconds.toFixed(2),
    new_process_s: +next.process_s.toFixed(2),
    new_over_baseline: +(next.seconds / base.seconds).toFixed(3),
    target: { new_s: 10, met: next.seconds <= 10 },
    identical_estimates: same,
    pairs: next.pairs,
    not_defined: next.not_defined,
    ...JSON.parse(check),
    load_1min: { new: next.load, baseline: base.load },
    runs: dir,
  }, null, 2));
}
