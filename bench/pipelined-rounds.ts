/**
 * The build's barrier rounds and wall time (issue 39 item 3): `execretrieval build` of one source and seed, cold
 * (a fresh state directory and run directory each), by this checkout and, with --baseline, by another checkout
 * of the code (e.g. main's commit, extracted with `git archive <commit> | tar -x -C DIR` and node_modules, .venv
 * and .execretrieval/models linked in), legs alternating, against one dev server. Prints per leg the wall time,
 * the build's rounds (attempts that waited for every batch: the run manifest's stages.build.rounds), its
 * executions, and the load; then every file under each build's output folder with its sha256, and exits 1 when
 * any differs between the legs. Two files are measurements, not results, and are shown but not judged: timings.json
 * (where the time went) and canonical-cpu.json where the build measured a CPU time the recording lacked (the
 * manifest's mutation.canonical_cpu.measured; two builds of the same code differ there too).
 * Run: node --import tsx bench/pipelined-rounds.ts [--source mbpp|curated|PATH] [--seed 0] [--baseline DIR] [--repeat 1]
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestTemporal } from '../test/support/temporal.ts';
import { freshState } from '../test/temporal/pipelineSupport.ts';
import { PROJECT_ROOT } from '../workers/registry.ts';

const { values } = parseArgs({
  options: { source: { type: 'string', default: 'mbpp' }, seed: { type: 'string', default: '0' }, baseline: { type: 'string' }, repeat: { type: 'string', default: '1' } },
});
const repeat = Number(values.repeat);
if (!(Number.isInteger(repeat) && repeat >= 1)) throw new Error(`--repeat: expected an integer >= 1, got ${values.repeat}`);
const checkouts: [string, string][] = [...(values.baseline ? [['baseline', resolve(values.baseline)] as [string, string]] : []), ['this', PROJECT_ROOT]];
const tmp = mkdtempSync(join(tmpdir(), 'pipelined-rounds-'));
const t = await startTestTemporal();

interface Leg { name: string; wall_s: number; rounds: number; resumed: number; executions: unknown; load: string; files: Map<string, string> }

function filesUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out.set(relative(dir, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
  }
  return out;
}

async function build(name: string, root: string, k: number): Promise<Leg> {
  const dir = join(tmp, `${name}-${k}`);
  const state = freshState(join(dir, 'state'));
  const runDir = join(dir, 'run');
  const load0 = loadavg()[0];
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(root, 'bin', 'execretrieval.js'), 'build', '--source', values.source!, '--seed', values.seed!, '--out', join(runDir, 'benchmark')], {
    cwd: root, env: { ...process.env, EXECRETRIEVAL_STATE_DIR: state, TEMPORAL_ADDRESS: t.address }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const code = await new Promise<number | null>((res) => child.once('exit', res));
  const wall_s = (performance.now() - t0) / 1000;
  // 1: built, with records rejected (MBPP has some): a result, not a failure.
  if (code !== 0 && code !== 1) throw new Error(`${name} build: exit ${code}\n${err.slice(-3000)}`);
  const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as { stages: { build: { rounds: number; resumed: number; executions: unknown } } };
  const b = manifest.stages.build;
  const leg = { name, wall_s, rounds: b.rounds, resumed: b.resumed, executions: b.executions, load: `${load0.toFixed(1)}→${loadavg()[0].toFixed(1)}`, files: filesUnder(join(runDir, 'benchmark')) };
  process.stderr.write(`${name} #${k}: ${wall_s.toFixed(1)} s, ${b.rounds} rounds, load ${leg.load}\n`);
  return leg;
}

const legs: Leg[] = [];
try {
  for (let k = 1; k <= repeat; k++) for (const [name, root] of checkouts) legs.push(await build(name, root, k));
} finally {
  await t.stop();
  rmSync(tmp, { recursive: true, force: true });
}

console.log(`source ${values.source}, seed ${values.seed}`);
for (const l of legs) console.log(`${l.name.padEnd(9)} wall ${l.wall_s.toFixed(1)} s  rounds ${l.rounds} (resumed ${l.resumed})  executions ${JSON.stringify(l.executions)}  load ${l.load}`);
for (const [name] of checkouts) {
  const mine = legs.filter((l) => l.name === name).map((l) => l.wall_s);
  console.log(`${name}: mean wall ${(mine.reduce((s, x) => s + x, 0) / mine.length).toFixed(1)} s over ${mine.length}`);
}
if (checkouts.length === 2) {
  const base = legs.filter((l) => l.name === 'baseline').map((l) => l.wall_s);
  const mine = legs.filter((l) => l.name === 'this').map((l) => l.wall_s);
  console.log(`wall this / baseline: ${(mine.reduce((s, x) => s + x, 0) / base.reduce((s, x) => s + x, 0)).toFixed(2)}`);
}
const a = legs[0];
const MEASURED = ['timings.json', 'canonical-cpu.json'];
const names = [...new Set(legs.flatMap((l) => [...l.files.keys()]))].sort();
const differ = names.filter((f) => legs.some((l) => l.files.get(f) !== a.files.get(f)));
for (const f of names) console.log(`${differ.includes(f) ? (MEASURED.includes(f) ? 'diff (measured) ' : 'DIFF ') : 'same '} ${f}  ${legs.map((l) => (l.files.get(f) ?? '-').slice(0, 12)).join('  ')}`);
const judged = differ.filter((f) => !MEASURED.includes(f));
console.log(judged.length ? `${judged.length} file(s) differ: ${judged.join(', ')}` : `every file under the output folder byte-identical across ${legs.length} builds (${MEASURED.join(', ')} aside)`);
process.exitCode = judged.length ? 1 : 0;
