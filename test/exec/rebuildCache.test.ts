/**
 * `--rebuild-cache`, with really damaged files: `score` on an execution cache with 60 pages overwritten moves it
 * aside as `<file>.damaged` (byte for byte the damaged file), says so in one line, re-executes everything into a
 * fresh cache and prints the numbers it printed before the damage; on a sound cache the flag changes nothing. A
 * garbage embedding cache goes aside, and the next open starts empty. The flag is on every
 * command that reads the caches (one flag path).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ExecCache, execContentKey } from '../../activities/exec/cache.ts';
import { EmbeddingCache } from '../../activities/embeddings/cache.ts';
import { rebuildIfDamaged, verifyCache } from '../../activities/storage/cacheRepair.ts';
import { projectRoot } from '../../activities/paths.ts';
import { buildProgram } from '../../cli/main.ts';
import { REBUILD_CACHE_COMMANDS } from '../../cli/rebuildCache.ts';
import { writeTinyRun } from '../scoring/fixtures/tinyBenchmark.ts';

const PAGE = 4096;
const pexec = promisify(execFile);
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await pexec(process.execPath, [join(projectRoot(), 'bin', 'execretrieval.js'), ...args], { cwd: projectRoot(), env: { ...process.env, ...env }, timeout: 180_000 });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code?: number; stdout: string; stderr: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function overwritePages(path: string, from: number, to: number): void {
  const fd = openSync(path, 'r+');
  try {
    for (let p = from; p < to; p++) writeSync(fd, Buffer.alloc(PAGE, 0x5a), 0, PAGE, p * PAGE);
  } finally {
    closeSync(fd);
  }
}

/** Unrelated rows, so the file has pages to damage around the real ones (checkpointed on close). */
function fillExecCache(path: string, n: number): void {
  const c = new ExecCache(path);
  for (let i = 0; i < n; i++) c.put(execContentKey('v-test', `def f(x):\n    return x  # ${i}\n`, { kind: 'asserts', tests: [`assert f(${i}) == ${i}`] }), 5, 'v-test', { outcomes: ['pass'], wall_ms: i });
  c.close();
}

describe('--rebuild-cache', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-rebuild-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('score on a cache with 60 pages overwritten: moved aside (one line), rebuilt from scratch, the same numbers as before the damage', async () => {
    const runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    const state = join(dir, 'state');
    const cachePath = join(state, 'exec-cache.sqlite');
    fillExecCache(cachePath, 3000);
    const env = { EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_EMBED_CACHE: join(state, 'embedding-cache.sqlite') };
    const first = await cli(['score', '--run', runDir, '--replicates', '200'], env);
    assert.equal(first.code, 1, first.stderr); // the fixture has a rejected record and a broken config
    const summary = () => JSON.parse(readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'));
    const manifest = () => JSON.parse(readFileSync(join(runDir, 'scoring', 'manifest.json'), 'utf8'));
    const [s1, m1] = [summary(), manifest()];

    // On a sound cache the flag does nothing: no line, the file's rows serve the run.
    const noop = await cli(['score', '--run', runDir, '--replicates', '200', '--rebuild-cache'], env);
    assert.equal(noop.code, 1, noop.stderr);
    assert.doesNotMatch(noop.stderr, /damaged/);
    assert.ok(!existsSync(`${cachePath}.damaged`));
    assert.equal(manifest().executions.cached, m1.executions.pairs - m1.executions.not_defined, 'every execution served from the sound cache');

    overwritePages(cachePath, 20, 80);
    const damagedSha = sha(cachePath);
    const r = await cli(['score', '--run', runDir, '--replicates', '200', '--rebuild-cache'], env);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => /damaged/.test(l));
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(lines[0].startsWith(`${cachePath}: damaged cache (`) && lines[0].includes(`moved aside to ${cachePath}.damaged; rebuilding it from scratch`), lines[0]);
    assert.doesNotMatch(r.stderr, /SqliteError|    at /);
    assert.equal(sha(`${cachePath}.damaged`), damagedSha, 'the damaged file is kept as it was');
    // Rebuilt from scratch: nothing came from a cache, the new file is sound, the numbers are the ones before.
    assert.equal(manifest().executions.cached, 0);
    assert.ok(verifyCache(cachePath).ok, 'the rebuilt cache passes integrity_check');
    assert.deepEqual(summary().estimates, s1.estimates);
  });

  test('a garbage embedding cache goes aside and the next open starts empty; a sound one is left untouched', () => {
    const path = join(dir, 'emb.sqlite');
    writeFileSync(path, Buffer.from('not a database at all '.repeat(500)));
    assert.throws(() => new EmbeddingCache(path), /damaged cache/);
    const r = rebuildIfDamaged(path)!;
    assert.match(r.detail, /SQLITE_NOTADB/);
    assert.equal(r.damaged_copy, `${path}.damaged`);
    assert.deepEqual([existsSync(path), existsSync(`${path}.damaged`)], [false, true]);
    const fresh = new EmbeddingCache(path);
    assert.equal(fresh.count(), 0);
    fresh.putMany('c', 'fp', [{ hash: 'h', vector: new Float32Array([1, 2]) }]);
    fresh.close();
    const before = sha(path);
    assert.equal(rebuildIfDamaged(path), null);
    assert.equal(sha(path), before);
    assert.equal(rebuildIfDamaged(join(dir, 'absent.sqlite')), null);
  });

  test('the flag is on every command that reads the caches', () => {
    const program = buildProgram();
    for (const path of REBUILD_CACHE_COMMANDS) {
      let cmd = program;
      for (const name of path.split(' ')) cmd = cmd.commands.find((c) => c.name() === name)!;
      assert.ok(cmd, path);
      assert.ok(cmd.options.some((o) => o.long === '--rebuild-cache'), `${path} has --rebuild-cache`);
    }
  });
});
