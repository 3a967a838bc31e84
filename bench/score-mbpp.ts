/**
 * MBPP scoring with BM25 only (issue 18 target: ≤ 10 s on the 2-core machine, from 42.7 s), cold caches:
 *   build     — the MBPP benchmark (once, its own cache; not timed here: bench/build-mbpp.ts times it)
 *   baseline  — `score --configs bm25` with an empty execution cache, every top-10 pair executed (the path
 *               before the not_defined rule), measured in this run
 *   new       — the same with another empty execution cache and the rule on
 * Checks that both give identical metrics (summary.json estimates) and that every pair the rule skipped failed
 * in the baseline.
 * Run: node --import tsx bench/score-mbpp.ts [--bench <dir with queries.jsonl + corpus.jsonl>]
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle } from '../activities/exec/oracle.ts';
import { runGate } from '../activities/gate/gate.ts';
import { buildBenchmark } from '../activities/benchmark/build.ts';
import { scoreRun } from '../activities/scoring/scoreRun.ts';
import { formatBreakdown } from '../core/timing/breakdown.ts';
import { projectRoot } from '../activities/paths.ts';

const log = (m: string) => process.stderr.write(`${m}\n`);
const dir = mkdtempSync(join(tmpdir(), 'er-score-bench-'));
const benchArg = process.argv.indexOf('--bench');
let benchDir = benchArg > 0 ? process.argv[benchArg + 1] : '';
if (!benchDir) {
  benchDir = join(dir, 'built');
  const oracle = await openOracle({ cachePath: join(dir, 'build.sqlite') });
  try {
    log('building the MBPP benchmark (not timed)');
    await buildBenchmark({ source: 'mbpp', out: benchDir, seed: 0, oracle, gate: runGate, mutator: { cachePath: join(dir, 'mut.sqlite') } });
  } finally {
    await oracle.close();
  }
}

async function score(name: string, runNotDefined: boolean) {
  const runDir = join(dir, name);
  cpSync(benchDir, join(runDir, 'benchmark'), { recursive: true });
  const oracle = await openOracle({ cachePath: join(dir, `${name}.sqlite`) });
  try {
    const load = loadavg()[0];
    const t0 = performance.now();
    const r = await scoreRun({ runDir, oracle, configs: ['bm25'], runNotDefined });
    const seconds = (performance.now() - t0) / 1000;
    log(`${name}: ${seconds.toFixed(1)} s (load ${load.toFixed(1)} -> ${loadavg()[0].toFixed(1)})  ${formatBreakdown(r.timings)}`);
    return { runDir, seconds, r };
  } finally {
    await oracle.close();
  }
}

const base = await score('baseline', true);
const next = await score('new', false);
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
  new_over_baseline: +(next.seconds / base.seconds).toFixed(3),
  target: { new_s: 10, met: next.seconds <= 10 },
  identical_estimates: same,
  pairs: next.r.manifest.executions.pairs,
  not_defined: next.r.manifest.executions.not_defined,
  ...JSON.parse(check),
  load_1min_at_end: +loadavg()[0].toFixed(2),
}, null, 2));
