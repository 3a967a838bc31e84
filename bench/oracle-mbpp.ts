/**
 * Oracle throughput on all 974 MBPP canonicals with their tests (issue 2):
 *   fork server  — SandboxPool + cache, cold cache, concurrency = cores
 *   warm rerun   — the same requests again, every one a cache hit
 *   baseline     — one `python -I sandbox.py once` per suite, same limits and layers (it builds its own
 *                  read-only view per suite), same concurrency
 * Prints the isolation layers in force and the load average, since the machine may be shared.
 * Run: node --import tsx bench/oracle-mbpp.ts [--limit N]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle } from '../activities/exec/oracle.ts';
import { SANDBOX_SCRIPT } from '../activities/exec/pool.ts';
import { resolveSource } from '../activities/benchmark/sources.ts';
import { importMbpp } from '../activities/importers/mbpp.ts';
import { pythonExecutable } from '../activities/python/interpreter.ts';
import { suiteSources, type ExecRequest } from '../schemas/exec.ts';

const limitArg = process.argv.indexOf('--limit');
const limit = limitArg > 0 ? Number(process.argv[limitArg + 1]) : Infinity;
// The tasks exactly as `build` imports them (newlines normalised in code, setup and tests alike).
const { tasks } = await importMbpp(resolveSource('mbpp').path);
const reqs: ExecRequest[] = tasks.slice(0, limit).map(({ task }) => ({ code: task.canonical, suite: task.tests }));
const cores = availableParallelism();

async function baseline(): Promise<{ seconds: number; passed: number }> {
  const python = pythonExecutable();
  const root = mkdtempSync(join(tmpdir(), 'er-bench-'));
  let next = 0;
  let passed = 0;
  const one = (req: ExecRequest) =>
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
        resolve();
      });
      child.stdin.end(JSON.stringify({ ...req, timeout_s: 5 }));
    });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: cores }, async () => {
    while (next < reqs.length) await one(reqs[next++]);
  }));
  const seconds = (performance.now() - t0) / 1000;
  rmSync(root, { recursive: true, force: true });
  return { seconds, passed };
}

async function forkServer(): Promise<{ cold: number; warm: number; passed: number; layers: unknown }> {
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
  return { cold, warm, passed: results.filter((r) => r.passed).length, layers };
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadBefore = load();
const fs = await forkServer();
const base = await baseline();
const rate = (s: number) => (reqs.length / s).toFixed(1);
console.log(`suites: ${reqs.length}, concurrency: ${cores}, load average before ${loadBefore}, after ${load()}`);
console.log(`layers: ${JSON.stringify(fs.layers)}`);
console.log(`baseline (python -I per suite): ${base.seconds.toFixed(2)} s, ${rate(base.seconds)} suites/s, ${base.passed} passed`);
console.log(`fork server, cold cache:        ${fs.cold.toFixed(2)} s, ${rate(fs.cold)} suites/s, ${fs.passed} passed`);
console.log(`fork server, warm cache:        ${fs.warm.toFixed(3)} s, ${rate(fs.warm)} suites/s`);
console.log(`ratio cold fork server / baseline: ${(base.seconds / fs.cold).toFixed(2)}x (target >= 10x)`);
