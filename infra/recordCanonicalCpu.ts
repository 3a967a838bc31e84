/**
 * Records a source's canonical CPU times (activities/mutation/canonicalCpu.ts), the input that fixes its mutants'
 * limits: `node --import tsx infra/recordCanonicalCpu.ts mbpp|curated|PATH [--runs 3] [--out FILE]` (default out:
 * where the build looks for it). Each canonical runs `--runs` times exactly as verification runs it (same suite
 * after check-program splitting, same limit), uncached; the least CPU time is kept: load only ever adds to it.
 * Canonicals that fail or time out are left out (the build rejects them whatever their time).
 */
import { parseArgs } from 'node:util';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadSource, resolveSource } from '../activities/benchmark/sources.ts';
import { splitCheckSuites } from '../activities/benchmark/checkSuites.ts';
import { openOracle } from '../activities/exec/oracle.ts';
import { CANONICAL_CPU_FILE, canonicalSha256, writeCanonicalCpu, type CanonicalCpu } from '../activities/mutation/canonicalCpu.ts';
import { projectRoot } from '../activities/paths.ts';
import { CANONICAL_MAX_CPU_MS } from '../core/mutation/timeLimit.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string', default: '3' }, out: { type: 'string' } } });
const source = positionals[0];
if (!source) throw new Error('usage: recordCanonicalCpu.ts mbpp|curated|PATH [--runs N] [--out FILE]');
const src = resolveSource(source);
const out = values.out ?? (src.kind === 'mbpp' || src.kind === 'curated'
  ? join(projectRoot(), 'data', 'canonical-cpu', `${src.kind}.json`)
  : existsSync(src.path) && statSync(src.path).isDirectory() ? join(src.path, CANONICAL_CPU_FILE) : src.path.replace(/(\.jsonl)?$/, `.${CANONICAL_CPU_FILE}`));
const runs = Math.max(1, Number(values.runs));
const { tasks } = await splitCheckSuites((await loadSource(src)).tasks);
const oracle = await openOracle({ cachePath: null });
const times = new Map<string, CanonicalCpu>();
try {
  const best = new Map<string, number>();
  for (let r = 0; r < runs; r++) {
    const results = await oracle.runMany(tasks.map(({ task }) => ({ code: task.canonical, suite: task.tests, timeout_s: CANONICAL_MAX_CPU_MS / 1000 })));
    results.forEach((res, i) => {
      const id = tasks[i].task.task_id;
      if (!res.passed || res.cpu_ms === undefined) return void best.set(id, NaN);
      best.set(id, Math.min(best.get(id) ?? Infinity, res.cpu_ms));
    });
    process.stderr.write(`run ${r + 1}/${runs}: ${tasks.length} canonicals\n`);
  }
  for (const { task } of tasks) {
    const ms = best.get(task.task_id)!;
    if (Number.isFinite(ms)) times.set(task.task_id, { canonical_sha256: canonicalSha256(task.canonical, task.tests), cpu_ms: Math.round(ms * 1000) / 1000 });
  }
} finally {
  await oracle.close();
}
writeCanonicalCpu(out, times);
process.stderr.write(`${out}: ${times.size} of ${tasks.length} canonicals\n`);
