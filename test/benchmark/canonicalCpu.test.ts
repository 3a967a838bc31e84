// Same seed, same benchmark whatever the load (issue 23): the canonicals' CPU times, from which the mutants'
// limits derive, are a recorded input of the build. The fault injected: a canonical measured 3.7 ms in one build
// and 26.5 ms in another (as one MBPP canonical was, quiet and loaded), which puts its mutants one tier up, and
// a mutant that needs more than the lower tier (here `n += 2`, the first one picked when it finishes) finishes
// under the higher one and times out under the lower. The real oracle and gate run everything else.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { runGate } from '../../activities/gate/gate.ts';
import { buildBenchmark } from '../../activities/benchmark/build.ts';
import { readCanonicalCpu } from '../../activities/mutation/canonicalCpu.ts';
import { mutantTimeLimitS } from '../../core/mutation/timeLimit.ts';
import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';

const dir = mkdtempSync(join(tmpdir(), 'canonical-cpu-'));
let real: Oracle;
before(async () => {
  real = await openOracle({ cachePath: join(dir, 'exec.sqlite'), concurrency: 2 });
});
after(async () => {
  await real.close();
});

const task = {
  task_id: 'clamp', query: 'Count how many values of a list fall inside the closed range [lo, hi]', function_name: 'count_in_range', domain: 'collections',
  canonical: 'def count_in_range(xs, lo, hi):\n    if lo > hi:\n        raise ValueError("empty range")\n    n = 0\n    for x in xs:\n        if x >= lo and x <= hi:\n            n += 1\n    return n\n',
  tests: { kind: 'asserts', tests: [
    'assert count_in_range([1, 2, 3], 1, 3) == 3', 'assert count_in_range([1, 2, 3], 2, 2) == 1', 'assert count_in_range([], 0, 5) == 0',
    'assert count_in_range([5, 6, 7], 6, 10) == 2', 'assert count_in_range([-1, 0, 1], 0, 0) == 1',
    'try:\n    count_in_range([1], 3, 2)\n    assert False, "no error"\nexcept ValueError:\n    pass', 'assert count_in_range([10, 20], 0, 9) == 0'] },
};

/** The machine as a build sees it: the canonical takes `canonicalMs` of CPU; the slow mutant times out under 0.1 s. */
function machine(canonicalMs: number): Oracle {
  const slow = (code: string) => code.includes('n += 2');
  const run = async (req: ExecRequest): Promise<ExecResult> => {
    const r = await real.run(req);
    if (req.code === task.canonical) return { ...r, cpu_ms: canonicalMs };
    if ((req.timeout_s ?? 5) < 0.2 && slow(req.code)) return { ...r, outcomes: r.outcomes.map(() => 'TIMEOUT'), passed: false };
    return r;
  };
  return { run, runMany: (reqs) => Promise.all(reqs.map(run)), layers: () => real.layers!(), close: async () => {} };
}

const RELEASE = ['queries.jsonl', 'corpus.jsonl', 'queries.parquet', 'corpus.parquet', 'report.json'];
const bytes = (out: string) => Object.fromEntries(RELEASE.map((f) => [f, readFileSync(join(out, f)).toString('base64')]));

test('the canonicals\' recorded CPU times make a build repeat whatever this machine measures; without them the fault shows', async () => {
  assert.equal(mutantTimeLimitS(3.7), 0.1);
  assert.equal(mutantTimeLimitS(26.5), 0.2, 'the two measurements are a tier apart');
  const src = join(dir, 'tasks.jsonl');
  writeFileSync(src, JSON.stringify(task) + '\n');
  const build = (out: string, canonicalMs: number, canonicalCpu: string | null | undefined) =>
    buildBenchmark({ source: src, out: join(dir, out), seed: 0, oracle: machine(canonicalMs), gate: runGate, mutator: { cachePath: join(dir, 'mut.sqlite') }, canonicalCpu });

  // Quiet, nothing recorded: measured, and written out as the recording for the next builds.
  const quiet = await build('quiet', 3.7, null);
  assert.deepEqual(quiet.manifest.mutation.canonical_cpu, { recorded: 0, measured: 1, recording_sha256: null });
  const recording = join(dir, 'quiet', 'canonical-cpu.json');
  assert.equal(readCanonicalCpu(recording).get('clamp')?.cpu_ms, 3.7);
  assert.equal(quiet.manifest.counts.queries, 1);

  // Control: loaded, nothing recorded: the limit follows the measurement and the distractors change.
  const loadedUnrecorded = await build('loaded-unrecorded', 26.5, null);
  assert.notEqual(bytes(join(dir, 'loaded-unrecorded'))['corpus.jsonl'], bytes(join(dir, 'quiet'))['corpus.jsonl'], 'the injected fault changes the selection when the time is measured');
  assert.deepEqual(loadedUnrecorded.report.mutant_timeout_s, { '0.2': 1 });

  // Loaded, with the recording beside the source (found by name) or given as a path: byte-identical release.
  writeFileSync(join(dir, 'tasks.canonical-cpu.json'), readFileSync(recording));
  const found = await build('loaded-recorded', 26.5, undefined);
  assert.deepEqual(found.manifest.mutation.canonical_cpu.recorded, 1);
  assert.deepEqual(bytes(join(dir, 'loaded-recorded')), bytes(join(dir, 'quiet')));
  await build('loaded-given', 26.5, recording);
  assert.deepEqual(bytes(join(dir, 'loaded-given')), bytes(join(dir, 'quiet')));

  // A recording of other code does not apply: the canonical is measured again (and the fault shows again).
  const other = JSON.parse(readFileSync(recording, 'utf8'));
  other.tasks.clamp.canonical_sha256 = '0'.repeat(64);
  writeFileSync(join(dir, 'stale.json'), JSON.stringify(other));
  const stale = await build('loaded-stale', 26.5, join(dir, 'stale.json'));
  assert.deepEqual(stale.manifest.mutation.canonical_cpu.recorded, 0);
  assert.equal(bytes(join(dir, 'loaded-stale'))['corpus.jsonl'], bytes(join(dir, 'loaded-unrecorded'))['corpus.jsonl']);

  // A malformed recording is an error naming the file and the field, never silently measured again.
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ format: 'execretrieval-canonical-cpu/1', tasks: { clamp: { canonical_sha256: other.tasks.clamp.canonical_sha256, cpu_ms: 'fast' } } }));
  await assert.rejects(build('bad', 3.7, join(dir, 'bad.json')), /bad\.json: tasks\.clamp\.cpu_ms must be a non-negative number/);
});
