/**
 * Same seed, same benchmark (issue 23): two cold builds of one source with one seed, the second under extra CPU
 * load (a busy-loop process per core), must write byte-identical release files. Each build is `execretrieval
 * build` as a user runs it (its own in-process worker), with a fresh state directory (empty execution cache) and
 * a fresh run directory, against one dev server. Prints each build's wall time and load, and every file of the
 * build manifest with its sha256 in both builds; exits 1 when any differs.
 * Run: node --import tsx bench/build-under-load.ts [--source mbpp|curated|PATH] [--seed 0] [--busy N (default: cores)] [--keep DIR]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestTemporal } from '../test/support/temporal.ts';
import { freshState, startCli } from '../test/temporal/pipelineSupport.ts';

const { values } = parseArgs({
  options: { source: { type: 'string', default: 'mbpp' }, seed: { type: 'string', default: '0' }, busy: { type: 'string' }, keep: { type: 'string' } },
});
const busy = values.busy === undefined ? availableParallelism() : Number(values.busy);
if (!(Number.isInteger(busy) && busy >= 0)) throw new Error(`--busy: expected an integer >= 0, got ${values.busy}`);
const tmp = values.keep ?? mkdtempSync(join(tmpdir(), 'build-under-load-'));
const t = await startTestTemporal();

interface Leg { name: string; wall_s: number; load: string; files: Record<string, string> }

/** One cold build: a state directory and a run id of its own; its manifest's file hashes. */
async function build(name: string): Promise<Leg> {
  const dir = join(tmp, `${name}-${Date.now().toString(36)}`);
  const state = freshState(join(dir, 'state'));
  const load0 = loadavg()[0];
  const t0 = performance.now();
  const cli = startCli(['build', '--source', values.source!, '--seed', values.seed!, '--out', join(dir, 'run', 'benchmark')], { EXECRETRIEVAL_STATE_DIR: state, TEMPORAL_ADDRESS: t.address });
  const end = await cli.done;
  const wall_s = (performance.now() - t0) / 1000;
  // 1: built, with records rejected (MBPP has some): a result, not a failure.
  if (end.code !== 0 && end.code !== 1) throw new Error(`${name} build: exit ${end.code ?? end.signal}\n${cli.stderr().slice(-3000)}`);
  const manifest = JSON.parse(readFileSync(join(dir, 'run', 'benchmark', 'manifest.json'), 'utf8')) as { files: Record<string, string> };
  process.stderr.write(`${name}: ${wall_s.toFixed(1)} s\n${cli.stderr().split('\n').filter((l) => l.includes('mutant round')).join('\n')}\n`);
  return { name, wall_s, load: `${load0.toFixed(1)}→${loadavg()[0].toFixed(1)}`, files: manifest.files };
}

const legs: Leg[] = [];
let loops: ChildProcess[] = [];
try {
  legs.push(await build('quiet'));
  // A busy loop per core for the whole second build: every measured time (CPU included) stretches.
  loops = Array.from({ length: busy }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  legs.push(await build(`loaded+${busy}`));
} finally {
  for (const p of loops) p.kill('SIGKILL');
  await t.stop();
  if (!values.keep) rmSync(tmp, { recursive: true, force: true });
}

const [a, b] = legs;
const names = [...new Set([...Object.keys(a.files), ...Object.keys(b.files)])].sort();
const differ = names.filter((f) => a.files[f] !== b.files[f]);
console.log(`source ${values.source}, seed ${values.seed}`);
for (const l of legs) console.log(`${l.name.padEnd(10)} wall ${l.wall_s.toFixed(1)} s  load ${l.load}`);
for (const f of names) console.log(`${a.files[f] === b.files[f] ? 'same ' : 'DIFF '} ${f}  ${(a.files[f] ?? '-').slice(0, 12)}  ${(b.files[f] ?? '-').slice(0, 12)}`);
console.log(differ.length ? `${differ.length} file(s) differ: ${differ.join(', ')}` : 'every release file byte-identical');
process.exitCode = differ.length ? 1 : 0;
