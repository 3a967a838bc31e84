/**
 * The run's own files are read against the hashes recorded when they were written (issue 37: one byte in 40
 * vectors of a corpus.arrow changed 183 values of summary.json; ten edited snippets in benchmark/corpus.jsonl
 * changed 500; exit 0 both times). Each damage stops `score` with one line naming the file and exit 5, writes
 * nothing, and once the file is written again the same command gives the undamaged run's files.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../activities/paths.ts';
import { readMatrix } from '../../activities/embeddings/matrix.ts';
import { loadBenchmark } from '../../activities/scoring/benchmark.ts';
import { DamagedRunFileError } from '../../activities/faults.ts';
import { TOY_WEIGHTS, writeConfig, writeTinyRun } from './fixtures/tinyBenchmark.ts';

const pexec = promisify(execFile);

async function score(runDir: string, stateDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = [join(projectRoot(), 'bin', 'execretrieval.js'), 'score', '--run', runDir, '--replicates', '200', '--configs', 'toy,canonical-first'];
  try {
    const r = await pexec(process.execPath, args, { cwd: projectRoot(), timeout: 180_000, env: { ...process.env, EXECRETRIEVAL_STATE_DIR: stateDir } });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code?: number; stdout: string; stderr: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

/**
 * What a score leaves that must not depend on anything but its inputs: per-query scores and rankings
 * (executions.parquet also says which verdicts came from the cache, which a rerun changes).
 */
function outputs(runDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const sub of ['scoring', 'rankings']) {
    for (const f of readdirSync(join(runDir, sub)).sort()) if ((f.endsWith('.jsonl') || f.endsWith('.parquet')) && f !== 'executions.parquet') out[`${sub}/${f}`] = sha(join(runDir, sub, f));
  }
  return out;
}

/** The benchmark manifest `build` writes: every file with its sha256. */
function writeBenchmarkManifest(runDir: string): void {
  const b = join(runDir, 'benchmark');
  const files = Object.fromEntries(['queries.jsonl', 'corpus.jsonl'].map((f) => [f, sha(join(b, f))]));
  writeFileSync(join(b, 'manifest.json'), JSON.stringify({ counts: {}, files }, null, 2));
}

/** Flips one bit of the first vector value equal to 1.0 in an Arrow matrix (the diagonal of the tiny corpus). */
function flipVectorBit(path: string): void {
  const buf = readFileSync(path);
  const one = Buffer.from(new Float32Array([1]).buffer);
  const at = buf.indexOf(one);
  assert.ok(at > 0);
  buf[at + 2] ^= 0x01; // 1.0 -> 1.0078125: still a plausible vector
  writeFileSync(path, buf);
}

const oneLine = (stderr: string) => stderr.trim().split('\n').filter((l) => !/^\s*at /.test(l));

describe('the run\'s own files are checked against their recorded hashes', () => {
  let dir: string;
  let runDir: string;
  let state: string;
  let clean: Record<string, string>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'er-runhash-'));
    runDir = join(dir, 'run');
    state = join(dir, 'state');
    writeTinyRun(runDir);
    writeBenchmarkManifest(runDir);
    const r = await score(runDir, state);
    assert.equal(r.code, 1, r.stderr); // the fixture's malformed query line is a rejected record
    clean = outputs(runDir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('one bit of a corpus.arrow vector: exit 5, one line naming the file, nothing written; re-written, the same files', async () => {
    const corpus = join(runDir, 'embeddings', 'toy', 'corpus.arrow');
    flipVectorBit(corpus);
    assert.throws(() => readMatrix(corpus), DamagedRunFileError);
    for (const d of ['scoring', 'rankings', 'report', 'export']) rmSync(join(runDir, d), { recursive: true });
    const r = await score(runDir, state);
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /toy\/corpus\.arrow: its content \(ids and vectors\) differs from the sha256 recorded when it was written/);
    assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
    assert.equal(oneLine(r.stderr).filter((l) => /^error:/.test(l)).length, 1);
    assert.deepEqual(readdirSync(runDir).sort(), ['benchmark', 'embeddings'], 'nothing scored, ranked or reported');

    writeConfig(runDir, 'toy', TOY_WEIGHTS); // what `embed` does again from the embedding cache
    const again = await score(runDir, state);
    assert.equal(again.code, 1, again.stderr);
    assert.deepEqual(outputs(runDir), clean);
  });

  test('an edited snippet in benchmark/corpus.jsonl: exit 5 naming the file; restored, the same files', async () => {
    const file = join(runDir, 'benchmark', 'corpus.jsonl');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('return a + b', 'return a - b'));
    assert.notEqual(readFileSync(file, 'utf8'), original);
    assert.throws(() => loadBenchmark(join(runDir, 'benchmark')), /corpus\.jsonl: corpus\.jsonl differs from the sha256 recorded/);
    const r = await score(runDir, state);
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /benchmark\/corpus\.jsonl: corpus\.jsonl differs from the sha256 recorded when it was written .*: restore it, or build the benchmark again/);

    writeFileSync(file, original);
    const again = await score(runDir, state);
    assert.equal(again.code, 1, again.stderr);
    assert.deepEqual(outputs(runDir), clean);
  });

  test('a matrix whose metadata lost its digest bytes is not readable: one DamagedRunFileError, not a TypeError', () => {
    const path = join(dir, 'garbage.arrow');
    writeFileSync(path, Buffer.alloc(512, 0x41));
    assert.throws(() => readMatrix(path), (e: unknown) => e instanceof DamagedRunFileError && /not readable as an Arrow matrix/.test((e as Error).message));
  });
});
