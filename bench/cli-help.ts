/**
 * Benchmark: how long the CLI takes to answer `--help` and a usage error, against `node -e 0` (Node's own
 * start-up) measured in the same run, alternately, so machine load hits every leg alike. Each figure is the
 * median wall time of --reps spawns; the ratio to `node -e 0` is what this code controls.
 *
 *   node --import tsx bench/cli-help.ts [--reps 9]
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../activities/paths.ts';

const i = process.argv.indexOf('--reps');
const REPS = i >= 0 ? Number(process.argv[i + 1]) : 9;
const bin = join(projectRoot(), 'bin', 'execretrieval.js');

const LEGS: { name: string; args: string[]; code: number }[] = [
  { name: 'node -e 0', args: ['-e', '0'], code: 0 },
  { name: 'execretrieval --help', args: [bin, '--help'], code: 0 },
  { name: 'execretrieval nosuch (unknown command)', args: [bin, 'nosuch'], code: 2 },
  { name: 'execretrieval runs --help', args: [bin, 'runs', '--help'], code: 0 },
  { name: 'execretrieval score (missing run)', args: [bin, 'score'], code: 2 },
  { name: 'execretrieval run --help', args: [bin, 'run', '--help'], code: 0 },
  // The slowest pages when each loaded its command's module (generate's LLM SDKs: ~6 s); now from cli/helpPages.json.
  { name: 'execretrieval generate benchmark --help', args: [bin, 'generate', 'benchmark', '--help'], code: 0 },
  { name: 'execretrieval repo index --help', args: [bin, 'repo', 'index', '--help'], code: 0 },
];

const times = new Map(LEGS.map((l) => [l.name, [] as number[]]));
const load0 = loadavg()[0];
for (let r = 0; r < REPS; r++) {
  for (const leg of LEGS) {
    const t = performance.now();
    const p = spawnSync(process.execPath, leg.args, { encoding: 'utf8' });
    const ms = performance.now() - t;
    if (p.status !== leg.code) throw new Error(`${leg.name}: exit ${p.status}, expected ${leg.code}\n${p.stderr}`);
    times.get(leg.name)!.push(ms);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(times.get('node -e 0')!);
console.log(`${REPS} spawns per leg, alternating; 1-min load ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}`);
for (const leg of LEGS) {
  const m = median(times.get(leg.name)!);
  console.log(`${leg.name.padEnd(42)} median ${m.toFixed(0).padStart(5)} ms  ${(m / base).toFixed(1).padStart(5)}x node -e 0`);
}
