/**
 * Executions per second of JavaScript and Go `calls` suites (issue 35): ours (the sandbox: fork server, isolated
 * child exec'ing node / the compiled binary, judge outside) against a naive runner measured in the same run, on the
 * canonicals of test/fixtures/calls, each copied `--copies` times with a distinct comment (so no two snippets share
 * a cache entry: each Go copy is a fresh compile of its package):
 *   naive JS  — one `node file.js` per suite: the candidate and its expected values in one unsandboxed process
 *   naive Go  — one `go run .` per suite (the candidate + the same harness, judged afterwards, no sandbox)
 *   ours      — openOracle (no exec cache), concurrency = --workers; Go compiled once per snippet
 * Go is measured with a cold build cache (a fresh GOCACHE for each side: the standard library compiled once) and a
 * warm one (the same cache again, new snippets). Prints suites/s and ours/naive.
 * Run: node --import tsx bench/calls-runners.ts [--copies N] [--workers N] [--only js|go]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openOracle } from '../activities/exec/oracle.ts';
import { goExecutable, transpileTs } from '../activities/exec/callsBuild.ts';
import { projectRoot } from '../activities/paths.ts';
import { Task } from '../schemas/task.ts';
import type { CallsSuite, ExecRequest } from '../schemas/exec.ts';

const run = promisify(execFile);
const arg = (name: string, d: number) => { const i = process.argv.indexOf(name); return i > 0 ? Number(process.argv[i + 1]) : d; };
const copies = arg('--copies', 4);
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
const workers = arg('--workers', Math.min(2, availableParallelism()));
const fixture = join(projectRoot(), 'test', 'fixtures', 'calls');
const tasks = ['javascript.jsonl', 'go.jsonl'].flatMap((f) => readFileSync(join(fixture, f), 'utf8').trim().split('\n').map((l) => Task.parse(JSON.parse(l))));
const reqs = (langs: string[]): ExecRequest[] => tasks.filter((t) => t.tests.kind === 'calls' && langs.includes(t.tests.language))
  .flatMap((t) => Array.from({ length: copies }, (_, k) => ({ code: `${t.canonical}\n// copy ${k} ${process.pid}\n`, suite: t.tests })));

async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => { while (next < items.length) await f(items[next++]); }));
}

const JS_NAIVE = (code: string, suite: CallsSuite) => `${code}
const calls = ${JSON.stringify(suite.calls)};
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b) || (typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 1e-9);
let failed = 0;
for (const c of calls) {
  try { const r = ${suite.entry_point}(...c.args); if (c.throws || !same(r, c.expected)) failed++; }
  catch (e) { if (!c.throws || e.constructor.name !== c.throws) failed++; }
}
console.log(failed);
`;

async function naiveJs(rs: ExecRequest[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'naive-js-'));
  const t = performance.now();
  let i = 0;
  await pool(rs, workers, async (r) => {
    const ts = (r.suite as CallsSuite).language === 'typescript';
    const file = join(dir, `s${i++}.js`);
    // TypeScript for the naive side: the same in-process transpile ours uses, so only the execution differs.
    const code = ts ? transpileTs(r.code) : { code: r.code };
    writeFileSync(file, JS_NAIVE('code' in code ? code.code : '', r.suite as CallsSuite));
    // The child's environment as the sandbox gives it: an inherited NODE_EXTRA_CA_CERTS alone makes each start
    // load a CA bundle (4x the start-up CPU on a machine that sets it), which is no part of running a suite.
    await run(process.execPath, [file], { env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } });
  });
  rmSync(dir, { recursive: true, force: true });
  return (performance.now() - t) / 1000;
}

async function naiveGo(rs: ExecRequest[], gocache: string): Promise<number> {
  const harness = readFileSync(join(projectRoot(), 'infra', 'runner', 'calls_harness.go'), 'utf8');
  const t = performance.now();
  await pool(rs, workers, async (r) => {
    const s = r.suite as CallsSuite;
    const dir = mkdtempSync(join(tmpdir(), 'naive-go-'));
    writeFileSync(join(dir, 'go.mod'), 'module candidate\n\ngo 1.22\n');
    writeFileSync(join(dir, 'candidate.go'), `package main\n\n${r.code}`);
    writeFileSync(join(dir, 'xr_harness.go'), harness.replace('XR_ENTRY_POINT', s.entry_point).replace('xros.NewFile(3, "report")', 'xros.Stdout'));
    writeFileSync(join(dir, 'in.json'), JSON.stringify(s.calls.map((c) => ({ a: c.args, m: c.mutates ?? null }))));
    await run('/bin/sh', ['-c', `${goExecutable()} run . < in.json`], { cwd: dir, env: { ...process.env, GOCACHE: gocache, GOFLAGS: '-mod=mod', GOPROXY: 'off', CGO_ENABLED: '0', GOTOOLCHAIN: 'local' } });
    rmSync(dir, { recursive: true, force: true });
  });
  return (performance.now() - t) / 1000;
}

async function ours(rs: ExecRequest[]): Promise<number> {
  const oracle = await openOracle({ cachePath: null, concurrency: workers });
  await oracle.warm?.();
  const t = performance.now();
  const res = await oracle.runMany(rs);
  const s = (performance.now() - t) / 1000;
  await oracle.close();
  const bad = res.filter((r) => !r.passed);
  if (bad.length) throw new Error(`ours: ${bad.length} canonicals failed: ${bad[0].outcomes.join(', ')} ${bad[0].infra_error ?? ''}`);
  return s;
}

const line = (name: string, n: number, naive: number, mine: number) =>
  console.log(`${name.padEnd(22)} ${String(n).padStart(4)} suites  naive ${(n / naive).toFixed(1).padStart(6)}/s  ours ${(n / mine).toFixed(1).padStart(6)}/s  ours/naive ${(naive / mine).toFixed(2)}x`);

console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${workers} workers; ${copies} copies per canonical`);
transpileTs('const warm: number = 1;'); // the TypeScript compiler loaded before either side is timed
const js = reqs(['javascript', 'typescript']);
if (only !== 'go') line('JS/TS', js.length, await naiveJs(js), await ours(js));
for (const phase of only === 'js' ? [] : (['cold', 'warm'] as const)) {
  const oursCache = phase === 'cold' ? mkdtempSync(join(tmpdir(), 'gocache-ours-')) : process.env.EXECRETRIEVAL_GOCACHE!;
  const naiveCache = phase === 'cold' ? mkdtempSync(join(tmpdir(), 'gocache-naive-')) : process.env.BENCH_NAIVE_GOCACHE!;
  process.env.EXECRETRIEVAL_GOCACHE = oursCache;
  process.env.BENCH_NAIVE_GOCACHE = naiveCache;
  const go = reqs(['go']).map((r) => ({ ...r, code: `${r.code}// ${phase}\n` }));
  line(`Go, ${phase} build cache`, go.length, await naiveGo(go, naiveCache), await ours(go));
}
if (only !== 'js') {
  rmSync(process.env.EXECRETRIEVAL_GOCACHE!, { recursive: true, force: true });
  rmSync(process.env.BENCH_NAIVE_GOCACHE!, { recursive: true, force: true });
}
console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
