/**
 * Oracle throughput on all 974 MBPP canonicals with their tests (issue 2):
 *   fork server  — SandboxPool + cache, cold cache, concurrency = cores
 *   warm rerun   — the same requests again, every one a cache hit
 *   baseline     — one `python -I sandbox.py once` per suite, same limits and layers (it builds its own
 *                  read-only view per suite), same concurrency
 *   EvalPlus     — the same suites through EvalPlus's `untrusted_check` (PyPI `evalplus`, pinned below) in its
 *                  own venv under .scratch/ (created on first use), same number of workers: bench/evalplus-leg.py
 *   layers       — with --layers, bench/sandbox-layers.py: the cost of each isolation layer per suite
 * Prints the isolation layers in force, the per-suite cost of ours, the ratios, and the load average, since the
 * machine may be shared.
 * Run: node --import tsx bench/oracle-mbpp.ts [--limit N] [--workers N] [--exclude ID,..] [--no-evalplus] [--layers]
 * (MBPP is found as `build` finds it: $EXECRETRIEVAL_MBPP first.)
 */
import { spawn } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openOracle } from '../activities/exec/oracle.ts';
import { SANDBOX_SCRIPT } from '../activities/exec/pool.ts';
import { resolveSource } from '../activities/benchmark/sources.ts';
import { importMbpp } from '../activities/importers/mbpp.ts';
import { pythonExecutable } from '../activities/python/interpreter.ts';
import { suiteSources, type ExecRequest } from '../schemas/exec.ts';

const argValue = (name: string) => { const i = process.argv.indexOf(name); return i > 0 ? Number(process.argv[i + 1]) : undefined; };
const limit = argValue('--limit') ?? Infinity;
// The tasks exactly as `build` imports them (newlines normalised in code, setup and tests alike).
const { tasks } = await importMbpp(resolveSource('mbpp').path);
// --exclude ID[,ID]: leave suites out of every leg alike (e.g. mbpp_123, whose seconds of CPU hold a worker).
const excludeArg = process.argv.indexOf('--exclude');
const excluded = new Set(excludeArg > 0 ? process.argv[excludeArg + 1].split(',') : []);
const picked = tasks.filter(({ task }) => !excluded.has(task.task_id)).slice(0, limit);
const reqs: ExecRequest[] = picked.map(({ task }) => ({ code: task.canonical, suite: task.tests }));
const cores = argValue('--workers') ?? availableParallelism();
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
// Pinned so that runs compare like with like; 0.3.1 is the newest the registry served on 2026-12-02.
const EVALPLUS = 'evalplus==0.3.1';
const EVALPLUS_VENV = join(ROOT, '.scratch', 'evalplus-venv');

async function baseline(): Promise<{ seconds: number; passed: number; failed: string[] }> {
  const python = pythonExecutable();
  const root = mkdtempSync(join(tmpdir(), 'er-bench-'));
  let next = 0;
  let passed = 0;
  const failed: string[] = [];
  const one = (req: ExecRequest, id: string) =>
    new Promise<void>((resolve) => {
      const child = spawn(python, ['-I', SANDBOX_SCRIPT, 'once', root], { stdio: ['pipe', 'pipe', 'ignore'], detached: true, env: { PATH: '/usr/bin:/bin' } });
      let out = '';
      child.stdout.on('data', (b) => (out += b));
      const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 5000);
      // 'close', not 'exit': stdout may still hold unread outcomes when the process exits.
      child.on('close', () => {
        clearTimeout(timer);
        const outcomes = out.split('\n').filter((l) => l.startsWith('{"i"')).map((l) => JSON.parse(l).o);
        const n = suiteSources(req.suite).length;
        if (outcomes.length === n && outcomes.every((o: string) => o === 'pass')) passed++;
        else failed.push(id);
        resolve();
      });
      child.stdin.end(JSON.stringify({ ...req, timeout_s: 5 }));
    });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: cores }, async () => {
    while (next < reqs.length) { const i = next++; await one(reqs[i], picked[i].task.task_id); }
  }));
  const seconds = (performance.now() - t0) / 1000;
  rmSync(root, { recursive: true, force: true });
  return { seconds, passed, failed };
}

/** The EvalPlus venv's python, created and filled on first use; a one-line reason instead when it cannot be. */
function evalplusPython(): { python: string } | { why: string } {
  const python = join(EVALPLUS_VENV, 'bin', 'python');
  if (existsSync(python) && spawnSync(python, ['-I', '-c', 'import evalplus.eval'], { stdio: 'ignore' }).status === 0) return { python };
  mkdirSync(dirname(EVALPLUS_VENV), { recursive: true });
  const steps: [string, string[]][] = [['python3', ['-m', 'venv', EVALPLUS_VENV]], [join(EVALPLUS_VENV, 'bin', 'pip'), ['install', '--disable-pip-version-check', '-q', EVALPLUS]]];
  for (const [cmd, args] of steps) {
    console.log(`evalplus leg: ${cmd} ${args.join(' ')}`);
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) return { why: `${cmd} ${args.join(' ')} failed: ${(r.stderr || r.error?.message || '').trim().split('\n').slice(-2).join(' / ')}` };
  }
  return { python };
}

async function evalplus(): Promise<{ seconds: number; passed: number; failed: string[]; version: string } | { why: string }> {
  const venv = evalplusPython();
  if ('why' in venv) return venv;
  const dir = mkdtempSync(join(tmpdir(), 'er-bench-evalplus-'));
  const file = join(dir, 'suites.jsonl');
  writeFileSync(file, reqs.map((r, i) => {
    if (r.suite.kind !== 'asserts') throw new Error('MBPP suites are assert lists');
    return JSON.stringify({ id: picked[i].task.task_id, code: r.code, setup: r.suite.setup ?? '', tests: r.suite.tests });
  }).join('\n') + '\n');
  const r = spawnSync(venv.python, ['-I', join(HERE, 'evalplus-leg.py'), file, '--workers', String(cores)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  rmSync(dir, { recursive: true, force: true });
  if (r.status !== 0) return { why: `evalplus-leg.py exited ${r.status}: ${r.stderr.trim().split('\n').slice(-1)[0]}` };
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

async function forkServer(): Promise<{ cold: number; warm: number; passed: number; failed: string[]; layers: unknown; wallMs: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'er-bench-cache-'));
  const oracle = await openOracle({ cachePath: join(dir, 'exec.sqlite'), concurrency: cores });
  await oracle.runMany(Array.from({ length: cores }, (_, i) => ({ code: `x = ${i}`, suite: { kind: 'asserts' as const, tests: ['assert True'] } }))); // start the servers
  const layers = await oracle.layers?.();
  let t0 = performance.now();
  const results = await oracle.runMany(reqs);
  const cold = (performance.now() - t0) / 1000;
  t0 = performance.now();
  const again = await oracle.runMany(reqs);
  const warm = (performance.now() - t0) / 1000;
  if (!again.every((r) => r.cached)) throw new Error('warm rerun executed something');
  await oracle.close();
  rmSync(dir, { recursive: true, force: true });
  const failed = results.flatMap((r, i) => (r.passed ? [] : [picked[i].task.task_id]));
  return { cold, warm, passed: results.filter((r) => r.passed).length, failed, layers, wallMs: results.map((r) => r.wall_ms) };
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadBefore = load();
const fs = await forkServer();
const base = await baseline();
const ep = process.argv.includes('--no-evalplus') ? { why: 'skipped (--no-evalplus)' } : await evalplus();
const rate = (s: number) => (reqs.length / s).toFixed(1);
// Wall time one worker spends per suite: the run's seconds x workers / suites.
const failedNote = (ids: string[]) => (ids.length ? ` (failed: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''})` : '');
const perSuite = (s: number) => `${((s * cores * 1000) / reqs.length).toFixed(2)} ms/suite/worker`;
console.log(`suites: ${reqs.length}${excluded.size ? ` (excluded ${[...excluded].join(',')})` : ''}, workers: ${cores}, load average before ${loadBefore}, after ${load()}`);
console.log(`layers: ${JSON.stringify(fs.layers)}`);
console.log(`baseline (python -I per suite): ${base.seconds.toFixed(2)} s, ${rate(base.seconds)} suites/s, ${base.passed} passed, ${perSuite(base.seconds)}${failedNote(base.failed)}`);
if ('why' in ep) console.log(`EvalPlus untrusted_check:       not run: ${ep.why}`);
else console.log(`EvalPlus ${ep.version} untrusted_check: ${ep.seconds.toFixed(2)} s, ${rate(ep.seconds)} suites/s, ${ep.passed} passed, ${perSuite(ep.seconds)}${failedNote(ep.failed)}`);
console.log(`fork server, cold cache:        ${fs.cold.toFixed(2)} s, ${rate(fs.cold)} suites/s, ${fs.passed} passed, ${perSuite(fs.cold)}${failedNote(fs.failed)}`);
console.log(`fork server, warm cache:        ${fs.warm.toFixed(3)} s, ${rate(fs.warm)} suites/s`);
// Per suite (ours): the oracle's own wall time per suite, and the suites that dominate the total.
const sorted = [...fs.wallMs].sort((a, b) => a - b);
const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(1);
const slowest = fs.wallMs.map((ms, i) => ({ ms, id: picked[i].task.task_id })).sort((a, b) => b.ms - a.ms).slice(0, 3);
console.log(`ours per suite (wall in the child): median ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms; slowest ${slowest.map((s) => `${s.id} ${s.ms.toFixed(0)} ms`).join(', ')}`);
console.log(`ratio ours (cold) / naive python -I: ${(base.seconds / fs.cold).toFixed(2)}x (target >= 10x)`);
if (!('why' in ep)) {
  console.log(`ratio ours (cold) / EvalPlus:       ${(ep.seconds / fs.cold).toFixed(2)}x (target >= 1.5x)`);
}
if (process.argv.includes('--layers')) {
  const r = spawnSync(pythonExecutable(), ['-I', join(HERE, 'sandbox-layers.py'), '--suites', '200', '--rounds', '3'], { encoding: 'utf8' });
  console.log(`layers (bench/sandbox-layers.py --suites 200 --rounds 3):\n${r.status === 0 ? r.stdout.trimEnd() : `failed: ${r.stderr.trim().split('\n').slice(-1)[0]}`}`);
}
