/**
 * Large synthetic builds: curated tasks (the history bound, issue 23) or MBPP (the scale bench, issue 39) repeated
 * under new ids. A copy renames the task's function (`polygon_area` -> `polygon_area__c00042`) in its canonical
 * and tests, so every copy's canonical and mutants are programs of their own: their requests are not merged with
 * another copy's (the deferred oracle deduplicates by code), and each goes through the workflow and the exec queue
 * as a real task's would. The exec worker answers a copy's request with the original's verdict: `originalsOracle`
 * strips the suffix and asks the real oracle (sandbox and cache), so the original programs run once and every
 * other copy is a cache hit (the same program under another name has the same verdict).
 *
 * Shared by test/pipeline/historyBound.test.ts (small), bench/history-bound.ts (the 50k-snippet run) and
 * bench/scale.ts (MBPP 1x / 5x / 20x; its workers: bench/scale-worker.ts).
 */
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalSha256, CANONICAL_CPU_FILE, readCanonicalCpu, type RecordedCpu } from '../../activities/mutation/canonicalCpu.ts';
import { loadSource, resolveSource } from '../../activities/benchmark/sources.ts';
import type { Oracle } from '../../activities/exec/types.ts';
import type { ExecRequest } from '../../schemas/exec.ts';
import type { TestSuite } from '../../schemas/exec.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';

const CURATED = join(PROJECT_ROOT, 'data', 'tasks', 'curated');
const SUFFIX = /__c\d{5}\b/g;

const suffix = (k: number) => `__c${String(k).padStart(5, '0')}`;

interface TaskLine {
  task_id: string;
  function_name: string;
  canonical: string;
  tests: TestSuite;
  [field: string]: unknown;
}

/** `text` with every whole-word `name` renamed (code and tests alike, so calls, recursion and asserts agree). */
const rename = (text: string, name: string, to: string) => text.replace(new RegExp(`\\b${name}\\b`, 'g'), to);

/** The copy's program as the original's: every copy suffix removed. */
export const originalOf = (text: string): string => text.replace(SUFFIX, '');

/**
 * Writes `copies` copies of the first `originals` curated tasks (all 100 when absent; files in name order) into
 * `dir/tasks.jsonl` (writeCopies).
 */
export function writeCopiedCurated(dir: string, copies: number, originalCount?: number): { file: string; tasks: number } {
  const originals: TaskLine[] = readdirSync(CURATED).filter((f) => f.endsWith('.jsonl')).sort().flatMap((f) =>
    readFileSync(join(CURATED, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as TaskLine),
  ).slice(0, originalCount);
  return writeCopies(dir, originals, readCanonicalCpu(join(PROJECT_ROOT, 'data', 'canonical-cpu', 'curated.json')), copies);
}

/**
 * Writes `copies` copies of MBPP's tasks as imported (`--source mbpp`: 974 records, the 3 asserts each; records
 * the importer rejects are left out) into `dir/tasks.jsonl` (writeCopies). Build the copies with `--profile mbpp`,
 * as MBPP itself is built. Returns the task file and how many tasks it holds.
 */
export async function writeCopiedMbpp(dir: string, copies: number): Promise<{ file: string; tasks: number }> {
  const { tasks } = await loadSource(resolveSource('mbpp'));
  return writeCopies(dir, tasks.map(({ task }) => task as TaskLine), readCanonicalCpu(join(PROJECT_ROOT, 'data', 'canonical-cpu', 'mbpp.json')), copies);
}

/**
 * Writes `copies` copies of `originals` (copy k of every task, then copy k + 1) into `dir/tasks.jsonl`, with
 * `tasks.canonical-cpu.json` beside it: each copy's recorded canonical CPU time is its original's (from
 * `recorded`), so its time limits, and so its requests' timeouts, are the original's too. Returns the task file
 * and how many tasks it holds.
 */
export function writeCopies(dir: string, originals: readonly TaskLine[], recorded: RecordedCpu, copies: number): { file: string; tasks: number } {
  const lines: string[] = [];
  const cpu: Record<string, { canonical_sha256: string; cpu_ms: number }> = {};
  for (let k = 0; k < copies; k++) {
    for (const t of originals) {
      const to = t.function_name + suffix(k);
      const copy: TaskLine = {
        ...t,
        task_id: t.task_id + suffix(k),
        function_name: to,
        canonical: rename(t.canonical, t.function_name, to),
        tests: JSON.parse(rename(JSON.stringify(t.tests), t.function_name, to)) as TestSuite,
      };
      lines.push(JSON.stringify(copy));
      const r = recorded.get(t.task_id);
      if (r) cpu[copy.task_id] = { canonical_sha256: canonicalSha256(copy.canonical, copy.tests), cpu_ms: r.cpu_ms };
    }
  }
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'tasks.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  writeFileSync(file.replace(/\.jsonl$/, `.${CANONICAL_CPU_FILE}`), JSON.stringify({ format: 'execretrieval-canonical-cpu/1', tasks: cpu }, null, 2));
  return { file, tasks: lines.length };
}

/** A request for a copy's program as the request for its original (code and suite). */
function toOriginal<R extends Pick<ExecRequest, 'code' | 'suite'>>(req: R): R {
  return { ...req, code: originalOf(req.code), suite: JSON.parse(originalOf(JSON.stringify(req.suite))) as R['suite'] };
}

/**
 * The exec worker's oracle for copies: each request is run (or found in the cache) as its original. `misses`
 * counts the requests the inner oracle had to execute (not in its cache).
 */
export function originalsOracle(inner: Oracle): Oracle & { misses: () => number } {
  let misses = 0;
  const count = <T extends { cached?: boolean }>(r: T) => {
    if (!r.cached) misses++;
    return r;
  };
  return {
    run: async (req) => count(await inner.run(toOriginal(req))),
    runMany: async (reqs, o) => (await inner.runMany(reqs.map(toOriginal), o)).map(count),
    ...(inner.layers ? { layers: () => inner.layers!() } : {}),
    close: () => inner.close(),
    misses: () => misses,
  };
}
