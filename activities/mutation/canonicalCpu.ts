/**
 * The canonicals' measured CPU times as a recorded input of the build (`canonical-cpu.json`).
 *
 * A task's mutants run under a limit derived from its canonical's CPU time (core/mutation/timeLimit.ts), and the
 * limit decides some verdicts: a mutant that needs 0.15 s (an exponential recursion, say) is a TIMEOUT under
 * 0.1 s and finishes under 0.2 s, and one such verdict changes every later round's picks. CPU time is steadier
 * than wall time but not fixed: one MBPP canonical measured 3.7 ms quiet and 26.5 ms under load, one tier up,
 * and two cold MBPP builds with seed 0 picked different distractors. So a build takes the CPU times from a file
 * when it has one: same file, same limits, same verdicts, whatever the load or the machine. It measures only
 * the tasks the file lacks (or whose canonical or tests changed since), and writes every time it used, recorded
 * or measured, to `<out>/canonical-cpu.json`: the file to keep beside the source to make its builds repeat.
 *
 * Where the build looks (recordedCpuPath): `data/canonical-cpu/<mbpp|curated>.json` for the shipped sources,
 * `<dir>/canonical-cpu.json` for a directory of task files or a release, `<name>.canonical-cpu.json` beside a
 * single task file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TestSuite } from '../../schemas/exec.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';

export const CANONICAL_CPU_FORMAT = 'execretrieval-canonical-cpu/1';
export const CANONICAL_CPU_FILE = 'canonical-cpu.json';

export interface CanonicalCpu {
  /** sha256 of the canonical and its tests: a recording made for other code or tests does not apply. */
  canonical_sha256: string;
  cpu_ms: number;
}

export interface CanonicalCpuFile {
  format: typeof CANONICAL_CPU_FORMAT;
  tasks: Record<string, CanonicalCpu>;
}

export type RecordedCpu = ReadonlyMap<string, CanonicalCpu>;

export const canonicalSha256 = (canonical: string, suite: TestSuite): string =>
  createHash('sha256').update(JSON.stringify([canonical, suite])).digest('hex');

/** The recorded time of this task's canonical, if the recording is of this very canonical and suite. */
export function recordedCpuMs(recorded: RecordedCpu | undefined, taskId: string, canonical: string, suite: TestSuite): number | undefined {
  const r = recorded?.get(taskId);
  return r && r.canonical_sha256 === canonicalSha256(canonical, suite) ? r.cpu_ms : undefined;
}

/** Reads a recording; a malformed one is an error that names the file and the task (never silently measured again). */
export function readCanonicalCpu(path: string): Map<string, CanonicalCpu> {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: not JSON (${(err as Error).message})`);
  }
  const d = doc as Partial<CanonicalCpuFile>;
  if (!d || d.format !== CANONICAL_CPU_FORMAT || typeof d.tasks !== 'object' || d.tasks === null) {
    throw new Error(`${path}: format must be "${CANONICAL_CPU_FORMAT}" with a "tasks" object`);
  }
  const out = new Map<string, CanonicalCpu>();
  for (const [id, t] of Object.entries(d.tasks)) {
    if (!t || typeof t.canonical_sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(t.canonical_sha256)) throw new Error(`${path}: tasks.${id}.canonical_sha256 must be a sha256 hex string`);
    if (typeof t.cpu_ms !== 'number' || !Number.isFinite(t.cpu_ms) || t.cpu_ms < 0) throw new Error(`${path}: tasks.${id}.cpu_ms must be a non-negative number`);
    out.set(id, { canonical_sha256: t.canonical_sha256, cpu_ms: t.cpu_ms });
  }
  return out;
}

/** Task ids in sorted order, so the same times give the same bytes. */
export function writeCanonicalCpu(path: string, times: ReadonlyMap<string, CanonicalCpu>): void {
  const tasks = Object.fromEntries([...times].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeJsonAtomic(path, { format: CANONICAL_CPU_FORMAT, tasks } satisfies CanonicalCpuFile);
}

/** Where a source's recording is looked for (see the module comment); null when there is none. */
export function recordedCpuPath(src: { kind: string; path: string }, root: string): string | null {
  const candidate = src.kind === 'mbpp' || src.kind === 'curated'
    ? join(root, 'data', 'canonical-cpu', `${src.kind}.json`)
    : existsSync(src.path) && statSync(src.path).isDirectory()
      ? join(src.path, CANONICAL_CPU_FILE)
      : src.path.replace(/(\.jsonl)?$/, `.${CANONICAL_CPU_FILE}`);
  return existsSync(candidate) ? candidate : null;
}
