/**
 * The scale bench (issue 39): MBPP copied N times under new ids (test/pipeline/syntheticCopies.ts writeCopiedMbpp:
 * 974 records x N; the function renamed in each copy's canonical and tests) through build, embed (BM25 and the
 * static model, local-static-64), score and report with `execretrieval run --no-worker`, one stage per command
 * (`--until build`, `--from embed --until embed`, `--from score --until score`, `--from report`), on 2 worker
 * processes (bench/scale-worker.ts: every queue, each with a state directory of its own) that share only this
 * bench's dev server. The CLI is each stage's coordinator (run folder, authoritative caches: fresh per leg, so every
 * execution crosses the exec queue); the workers answer a copy's execution with its original's verdict from a cache
 * of the originals' verdicts that both use (the bench's stand-in for MBPP's programs run once, as
 * bench/history-bound.ts does; each worker's own exec cache and state stay its own). Mutant picks are seeded by task
 * id, so copy k picks other mutants than copy 0 and a larger leg has more distinct original programs: a warm-up
 * (the build of the largest leg, not in the table; `--cold` skips it) fills that cache first, so no leg pays for
 * the sandbox and the legs compare the pipeline's own cost.
 *
 * Prints per leg and stage: wall time, peak RSS of the CLI and of each worker (VmHWM from /proc, the workers' reset
 * before each stage through clear_refs), history (the workflow runs the stage started, children and continue-as-new
 * included: runs, events, bytes, the largest run), executions through the exec queue and those the sandbox ran,
 * and the ratio of each to the first leg's (linear: 5.00 at 5x, 20.00 at 20x). Also the score stage's own phases
 * (scoring/timings.json: rank, execute, score, report). `--json FILE` writes every figure.
 * `--originals-cache FILE` keeps that cache across invocations (default: a file removed at the end).
 * `--keep DIR` moves each leg's run folder to DIR/<leg> (replacing one there) instead of removing it, to profile a
 * stage on it again.
 * Run: node --import tsx bench/scale.ts [--legs 1,5] [--seed 0] [--cold] [--originals-cache FILE] [--keep DIR] [--json FILE]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestTemporal, waitForLine } from '../test/support/temporal.ts';
import { freshState, startCli } from '../test/temporal/pipelineSupport.ts';
import { writeCopiedMbpp } from '../test/pipeline/syntheticCopies.ts';
import { PROJECT_ROOT } from '../workers/registry.ts';

const STATIC = 'local-static-64';
const STAGES = [
  ['build', ['--until', 'build']],
  ['embed', ['--from', 'embed', '--until', 'embed']],
  ['score', ['--from', 'score', '--until', 'score']],
  ['report', ['--from', 'report']],
] as const;
type Stage = (typeof STAGES)[number][0];

const { values } = parseArgs({
  options: { legs: { type: 'string', default: '1,5' }, seed: { type: 'string', default: '0' }, cold: { type: 'boolean', default: false }, json: { type: 'string' }, 'originals-cache': { type: 'string' }, keep: { type: 'string' } },
});
const legs = values.legs!.split(',').map((s) => {
  const n = Number(s);
  if (!(Number.isInteger(n) && n >= 1 && n <= 99_999)) throw new Error(`--legs: expected integers >= 1, got "${s}"`);
  return n;
});
const seed = String(Number(values.seed));

interface StageFigures {
  wall_s: number;
  /** Peak RSS in MB: the CLI (the stage's coordinator), then each worker. */
  rss_mb: { cli: number; workers: number[] };
  history: { runs: number; events: number; bytes: number; largest_events: number; largest_bytes: number };
  /** Executions the stage asked the exec queue for (the manifest's), and those the workers' sandboxes ran. */
  executions: { requested: number; sandbox: number } | null;
  /** The score stage's phases (scoring/timings.json), seconds. */
  phases?: Record<string, number>;
}
interface Leg { copies: number; queries: number; snippets: number; load: string; stages: Partial<Record<Stage, StageFigures>> }

const mb = (kb: number) => Math.round(kb / 1024);
/** VmHWM (peak resident set) of a live process in kB; 0 once it has gone. */
function vmHwm(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
/** Resets a process's VmHWM to its current RSS (Linux: clear_refs 5), so the next reading is this stage's peak. */
let resetWorks = true;
function resetHwm(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    resetWorks = false;
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'scale-bench-'));
const t = await startTestTemporal();
const bundle = join(tmp, 'workflow-bundle.js');
writeFileSync(bundle, (await t.bundle()).code);
const workers: { child: ChildProcess; stats: string }[] = [];
/** Executions the workers' sandboxes ran so far (each worker's last count; a file caught mid-write keeps the count before). */
const lastMisses = new Map<string, number>();
const sandboxRuns = () => workers.reduce((s, w) => {
  try {
    if (existsSync(w.stats)) lastMisses.set(w.stats, (JSON.parse(readFileSync(w.stats, 'utf8')) as { misses: number }).misses);
  } catch {
    /* mid-write */
  }
  return s + (lastMisses.get(w.stats) ?? 0);
}, 0);
const seenRuns = new Set<string>();

/** The workflow runs started since the last call (every one closed by now), summed. */
async function newHistory(): Promise<StageFigures['history']> {
  const h = { runs: 0, events: 0, bytes: 0, largest_events: 0, largest_bytes: 0 };
  // Visibility may lag the CLI's exit by a moment: wait until no new run is still listed as running.
  for (let tries = 0; ; tries++) {
    const fresh = [];
    for await (const w of t.client.workflow.list()) if (!seenRuns.has(w.runId)) fresh.push(w);
    if (fresh.some((w) => w.status.name === 'RUNNING') && tries < 50) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    for (const w of fresh) {
      seenRuns.add(w.runId);
      h.runs++;
      h.events += w.historyLength;
      h.bytes += w.historySize ?? 0;
      h.largest_events = Math.max(h.largest_events, w.historyLength);
      h.largest_bytes = Math.max(h.largest_bytes, w.historySize ?? 0);
    }
    return h;
  }
}

async function runLeg(copies: number, label: string, stageList: readonly (typeof STAGES)[number][] = STAGES): Promise<Leg> {
  const dir = join(tmp, label);
  const { file, tasks } = await writeCopiedMbpp(join(dir, 'copies'), copies);
  const state = freshState(join(dir, 'cli-state'));
  const runDir = join(dir, 'run');
  const common = ['run', '--source', file, '--profile', 'mbpp', '--run', runDir, '--configs', STATIC, '--no-worker', '--seed', seed];
  process.stderr.write(`${label}: ${tasks} tasks (${copies} x MBPP)\n`);
  const load0 = loadavg()[0];
  const stages: Leg['stages'] = {};
  for (const [stage, args] of stageList) {
    for (const w of workers) resetHwm(w.child.pid!);
    const sandbox0 = sandboxRuns();
    const t0 = performance.now();
    const cli = startCli([...common, ...args], { EXECRETRIEVAL_STATE_DIR: state, TEMPORAL_ADDRESS: t.address, TEMPORAL_NAMESPACE: t.namespace });
    // The CLI's peak, read until it exits (VmHWM only grows; what it adds in its last 100 ms is missed).
    let cliHwm = 0;
    const sampler = setInterval(() => (cliHwm = Math.max(cliHwm, vmHwm(cli.child.pid!))), 100);
    const end = await cli.done;
    clearInterval(sampler);
    const wall = (performance.now() - t0) / 1000;
    const manifestFile = join(runDir, 'manifest.json');
    if (!existsSync(manifestFile)) throw new Error(`${label} ${stage}: exit ${end.code}, no ${manifestFile}\n${cli.stderr().slice(-3000)}`);
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { stages: Record<string, { status: string; executions?: { requested: number }; output?: { failed_configs?: unknown[]; missing_configs?: unknown[] } }> };
    // Exit 1 also says that the build rejected records (6 of MBPP's 974 have no usable mutant): every later stage
    // repeats it. Anything else, or a stage not done, or a configuration that failed, stops the bench.
    const s = manifest.stages[stage];
    const onlyRejected = end.code === 1 && /build rejected \d+ of \d+ records/.test(cli.stderr()) && s?.status === 'done' && !s.output?.failed_configs?.length && !s.output?.missing_configs?.length;
    if (end.code !== 0 && !onlyRejected) throw new Error(`${label} ${stage}: exit ${end.code}\n${cli.stderr().slice(-3000)}`);
    const requested = manifest.stages[stage]?.executions?.requested;
    stages[stage] = {
      wall_s: +wall.toFixed(2),
      rss_mb: { cli: mb(cliHwm), workers: workers.map((w) => mb(vmHwm(w.child.pid!))) },
      history: await newHistory(),
      executions: requested === undefined ? null : { requested, sandbox: sandboxRuns() - sandbox0 },
    };
    if (stage === 'score') {
      const timings = JSON.parse(readFileSync(join(runDir, 'scoring', 'timings.json'), 'utf8')) as { phases: [string, number][] };
      stages[stage].phases = Object.fromEntries(timings.phases.map(([k, v]) => [k, +v.toFixed(2)]));
    }
    // Each stage's figures as they come (a leg stopped half-way still leaves them).
    process.stderr.write(`  ${stage}: ${JSON.stringify(stages[stage])}\n`);
  }
  const counts = (JSON.parse(readFileSync(join(runDir, 'benchmark', 'manifest.json'), 'utf8')) as { counts: { queries: number; corpus: number } }).counts;
  if (values.keep) {
    const kept = join(values.keep, label);
    rmSync(kept, { recursive: true, force: true });
    mkdirSync(values.keep, { recursive: true });
    renameSync(runDir, kept);
  }
  rmSync(dir, { recursive: true, force: true });
  return { copies, queries: counts.queries, snippets: counts.corpus, load: `${load0.toFixed(1)}→${loadavg()[0].toFixed(1)}`, stages };
}

const rows: Leg[] = [];
let warmUp: Leg | null = null;
try {
  for (let i = 0; i < 2; i++) {
    const stats = join(tmp, `worker-${i}.json`);
    const child = spawn(
      process.execPath,
      [
        '--import', 'tsx', join(PROJECT_ROOT, 'bench', 'scale-worker.ts'), '--prefix', 'execretrieval', '--address', t.address, '--namespace', t.namespace,
        '--workflow-bundle', bundle, '--stats', stats, '--originals-cache', values['originals-cache'] ?? join(tmp, 'originals.sqlite'),
      ],
      { cwd: PROJECT_ROOT, env: { ...process.env, EXECRETRIEVAL_STATE_DIR: freshState(join(tmp, `worker-${i}`)) }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    workers.push({ child, stats });
    await waitForLine(child, /worker ready/, 120_000);
  }
  if (!values.cold) warmUp = await runLeg(Math.max(...legs), 'warm-up', STAGES.slice(0, 1));
  for (const n of legs) rows.push(await runLeg(n, `${n}x`));
} finally {
  await Promise.all(workers.map(({ child }) => child.exitCode === null ? new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) : null));
  await t.stop();
  rmSync(tmp, { recursive: true, force: true });
}

const base = rows[0];
const ratio = (v: number, b: number) => (b > 0 ? (v / b).toFixed(2) : '-');
const pad = (s: string | number, n: number) => String(s).padStart(n);
if (!resetWorks) console.log('note: clear_refs could not be written (not root?): worker peaks are since the worker started, not per stage');
if (warmUp) console.log(`warm-up (${warmUp.copies}x build, fills the originals' cache; not a leg): ${Object.entries(warmUp.stages).map(([s, f]) => `${s} ${f.wall_s} s, sandbox ${f.executions?.sandbox ?? '-'}`).join('; ')}`);
console.log(`legs ${legs.join(', ')} (ratios against ${base.copies}x; linear: the copies' ratio)`);
console.log('leg   queries  snippets  stage    wall_s   (ratio)  rss_cli_mb  rss_workers_mb  runs  events  (ratio)   bytes_mb  (ratio)  largest_run  executions  (ratio)  sandbox  load');
for (const r of rows) {
  for (const [stage] of STAGES) {
    // Every leg ran every stage (only the warm-up stops after the build).
    const f = r.stages[stage]!;
    const b = base.stages[stage]!;
    console.log([
      pad(`${r.copies}x`, 4), pad(r.queries, 8), pad(r.snippets, 9), ` ${stage.padEnd(6)}`, pad(f.wall_s.toFixed(1), 8), pad(`(${ratio(f.wall_s, b.wall_s)})`, 8),
      pad(f.rss_mb.cli, 11), pad(f.rss_mb.workers.join('/'), 15), pad(f.history.runs, 5), pad(f.history.events, 7), pad(`(${ratio(f.history.events, b.history.events)})`, 8),
      pad((f.history.bytes / 2 ** 20).toFixed(2), 10), pad(`(${ratio(f.history.bytes, b.history.bytes)})`, 8),
      pad(`${f.history.largest_events}/${(f.history.largest_bytes / 2 ** 20).toFixed(1)}MB`, 12),
      pad(f.executions?.requested ?? '-', 11), pad(f.executions ? `(${ratio(f.executions.requested, b.executions!.requested)})` : '', 8), pad(f.executions?.sandbox ?? '-', 8), ` ${r.load}`,
    ].join(' '));
  }
}
console.log('score phases (s, ratio):');
for (const r of rows) {
  const p = r.stages.score?.phases ?? {};
  console.log(`  ${r.copies}x  ${Object.entries(p).map(([k, v]) => `${k} ${v} (${ratio(v, base.stages.score?.phases?.[k] ?? 0)})`).join(', ')}`);
}
if (values.json) {
  mkdirSync(join(values.json, '..'), { recursive: true });
  writeFileSync(values.json, JSON.stringify({ legs: rows, warm_up: warmUp }, null, 2));
}
