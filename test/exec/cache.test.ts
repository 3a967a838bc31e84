import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle } from '../../activities/exec/oracle.ts';
import { ExecCache, execContentKey, execRunKey } from '../../activities/exec/cache.ts';
import Database from 'better-sqlite3';
import { readParquet } from '../../activities/storage/parquet.ts';
import type { TestSuite } from '../../schemas/exec.ts';

// The primary key of one stored run: what ran, under which timeout.
const execCacheKey = (v: string, c: string, s: TestSuite, t: number) => execRunKey(execContentKey(v, c, s), t);

const suite: TestSuite = { kind: 'asserts', tests: ['assert f(1) == 2', 'assert f(2) == 4'] };
const code = 'def f(x):\n    return x + 1\n';

test('cache key separates every part of the input', () => {
  const k = execCacheKey('v1', code, suite, 5);
  assert.match(k, /^[0-9a-f]{64}$/);
  assert.notEqual(k, execCacheKey('v2', code, suite, 5));
  assert.notEqual(k, execCacheKey('v1', code + ' ', suite, 5));
  assert.notEqual(k, execCacheKey('v1', code, { ...suite, setup: 'x = 1' }, 5));
  assert.notEqual(k, execCacheKey('v1', code, suite, 6));
  // Concatenation ambiguity: moving a boundary between parts must change the key.
  assert.notEqual(execCacheKey('ab', 'c', suite, 5), execCacheKey('a', 'bc', suite, 5));
});

test('a cache hit returns the stored result without executing; results survive reopening', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-cache-'));
  const cachePath = join(dir, 'exec.sqlite');
  try {
    const first = await openOracle({ cachePath, concurrency: 1 });
    const cold = await first.run({ code, suite });
    assert.deepEqual(cold.outcomes, ['pass', 'FAIL']);
    assert.equal(cold.cached, false);
    const warm = await first.run({ code, suite });
    assert.equal(warm.cached, true);
    assert.deepEqual(warm.outcomes, cold.outcomes);
    assert.equal(warm.wall_ms, cold.wall_ms);
    await first.close();

    const second = await openOracle({ cachePath, concurrency: 1 });
    const again = await second.run({ code, suite });
    assert.equal(again.cached, true);
    assert.equal((await second.run({ code, suite, timeout_s: 3 })).cached, false, 'another timeout is another key');
    await second.close();

    const cache = new ExecCache(cachePath);
    assert.equal(cache.count(), 2);
    const out = join(dir, 'cache.parquet');
    assert.deepEqual(cache.exportParquet(out), { written: 2, skipped: 0 });
    cache.close();
    const t = readParquet(out);
    assert.equal(t.numRows, 2);
    assert.deepEqual(JSON.parse(t.getChild('outcomes_json')!.get(0) as string), ['pass', 'FAIL']);
    // And with an independent reader (pyarrow, installed into .venv by bootstrap).
    const venvPython = new URL('../../.venv/bin/python', import.meta.url).pathname;
    const seen = execFileSync(venvPython, ['-c', 'import sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); print(t.num_rows, sorted(t.column("n_pass").to_pylist()))', out], { encoding: 'utf8' });
    assert.equal(seen.trim(), '2 [1, 1]');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('several processes write one cache at once (WAL)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-cache-'));
  const cachePath = join(dir, 'exec.sqlite');
  const cacheModule = new URL('../../activities/exec/cache.ts', import.meta.url).pathname;
  const script = `
    import { ExecCache } from ${JSON.stringify(cacheModule)};
    const c = new ExecCache(process.argv[1]);
    for (let i = 0; i < 300; i++) c.put(process.argv[2] + i, 5, 'v', { outcomes: ['pass'], wall_ms: i });
    c.close();`;
  const writer = (tag: string) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, cachePath, tag], { stdio: 'inherit' });
      child.on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`writer ${tag} exited ${c}`))));
    });
  try {
    await Promise.all([writer('a'), writer('b'), writer('c')]);
    const cache = new ExecCache(cachePath);
    assert.equal(cache.count(), 900);
    cache.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a run answers only its own timeout, whether it finished, timed out or failed (issue 36)', () => {
  const cache = new ExecCache(':memory:');
  try {
    const suite1: TestSuite = { kind: 'asserts', tests: ['assert f() == 1', 'assert f() == 2'] };
    const done = execContentKey('v', 'def f():\n    return 2\n', suite1);
    const loop = execContentKey('v', 'def f():\n    while True: pass\n', suite1);
    cache.put(done, 1, 'v', { outcomes: ['FAIL', 'pass'], wall_ms: 5 });
    cache.put(loop, 0.2, 'v', { outcomes: ['FAIL', 'TIMEOUT'], wall_ms: 200 });
    assert.deepEqual(cache.get(done, 1), { outcomes: ['FAIL', 'pass'], wall_ms: 5 });
    for (const t of [0.5, 2, 5]) assert.equal(cache.get(done, t), undefined, `a run under 1 s does not answer ${t} s`);
    assert.equal(cache.get(loop, 5), undefined);
    assert.deepEqual(cache.get(loop, 0.2)?.outcomes, ['FAIL', 'TIMEOUT']);
    // The same code under another suite is a different run.
    assert.equal(cache.get(execContentKey('v', 'def f():\n    return 2\n', { kind: 'asserts', tests: ['assert f() == 2'] }), 1), undefined);
  } finally {
    cache.close();
  }
});

test('a candidate that reads its own limit: accepted under --timeout 2, rejected under the default, from cache as fresh', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-cache-'));
  try {
    const oracle = await openOracle({ cachePath: join(dir, 'exec.sqlite'), concurrency: 1 });
    // Right only while its CPU limit is short: the limit is part of what decides the verdict, so it is in the key.
    const reader = 'import resource\ndef f(x):\n    return x + 1 if resource.getrlimit(resource.RLIMIT_CPU)[1] < 6 else 0\n';
    const good = 'def f(x):\n    return x + 1\n';
    const s: TestSuite = { kind: 'asserts', tests: ['assert f(1) == 2'] };
    const [short, goodShort] = await oracle.runMany([{ code: reader, suite: s, timeout_s: 2 }, { code: good, suite: s, timeout_s: 2 }]);
    assert.deepEqual([short.outcomes, goodShort.outcomes], [['pass'], ['pass']]);
    const [def, goodDef] = await oracle.runMany([{ code: reader, suite: s }, { code: good, suite: s }]);
    assert.equal(def.cached, false, 'not answered by the 2 s run');
    assert.deepEqual([def.outcomes, goodDef.outcomes], [['FAIL'], ['pass']]);
    const again = await oracle.run({ code: reader, suite: s });
    assert.deepEqual([again.cached, again.outcomes], [true, ['FAIL']], 'the default limit\'s own row');
    await oracle.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('code that raises its own SandboxDied is an ordinary outcome, and cached', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-cache-'));
  try {
    const oracle = await openOracle({ cachePath: join(dir, 'exec.sqlite'), concurrency: 1 });
    const own = { code: 'class SandboxDied(Exception):\n    pass\n\ndef f(x):\n    raise SandboxDied()\n', suite };
    const first = await oracle.run(own);
    assert.deepEqual(first.outcomes, ['ERROR: SandboxDied', 'ERROR: SandboxDied']);
    assert.equal(first.cached, false);
    assert.equal((await oracle.run(own)).cached, true);
    await oracle.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the child\'s CPU time is stored and read back (a warm rebuild derives the same mutant limits); files made before the cpu_ms column gain it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-cache-cpu-'));
  try {
    const path = join(dir, 'old.sqlite');
    // The table as files written before cpu_ms have it, with one row.
    const Database = (await import('better-sqlite3')).default;
    const old = new Database(path);
    old.exec(`CREATE TABLE exec_runs (key TEXT PRIMARY KEY, content_key TEXT NOT NULL, timeout_s REAL NOT NULL, runner_version TEXT NOT NULL,
      outcomes TEXT NOT NULL, n_pass INTEGER NOT NULL, timed_out INTEGER NOT NULL, wall_ms REAL NOT NULL,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`);
    old.prepare('INSERT INTO exec_runs (key, content_key, timeout_s, runner_version, outcomes, n_pass, timed_out, wall_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(execRunKey('c-old', 5), 'c-old', 5, 'v', '["pass"]', 1, 0, 12);
    old.close();
    const cache = new ExecCache(path);
    assert.deepEqual(cache.get('c-old', 5), { outcomes: ['pass'], wall_ms: 12 }, 'an old row reads back without cpu_ms');
    cache.put('c-new', 0.2, 'v', { outcomes: ['FAIL'], wall_ms: 40, cpu_ms: 7.5 });
    cache.close();
    const again = new ExecCache(path);
    assert.deepEqual(again.get('c-new', 0.2), { outcomes: ['FAIL'], wall_ms: 40, cpu_ms: 7.5 });
    again.close();
    // Through the oracle: a fresh run reports its CPU time, and the cached answer carries the same value.
    const oracle = await openOracle({ cachePath: join(dir, 'o.sqlite'), concurrency: 1 });
    try {
      const first = await oracle.run({ code, suite: { kind: 'asserts', tests: ['assert f(1) == 2'] } });
      assert.ok(typeof first.cpu_ms === 'number' && first.cpu_ms > 0 && first.cpu_ms <= first.wall_ms + 1, `cpu ${first.cpu_ms} ms, wall ${first.wall_ms} ms`);
      const hit = await oracle.run({ code, suite: { kind: 'asserts', tests: ['assert f(1) == 2'] } });
      assert.equal(hit.cached, true);
      assert.equal(hit.cpu_ms, first.cpu_ms);
    } finally {
      await oracle.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a payment is stored in its verdict\'s transaction: when it cannot be written, the verdict is not stored either', () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-cache-'));
  try {
    const path = join(dir, 'c.sqlite');
    const cache = new ExecCache(path);
    const run = { outcomes: ['pass', 'pass'], wall_ms: 3, cpu_ms: 2 };
    cache.put('content-a', 5, 'v1', run, 'runs/a');
    cache.put('content-b', 5, 'v1', run);
    assert.deepEqual(cache.payments('runs/a'), [{ key: execRunKey('content-a', 5), pid: process.pid }], 'a put without a payer pays nothing');
    // The payment's insert fails (a trigger standing in for a process that dies between the two writes).
    const raw = new Database(path);
    raw.exec(`CREATE TRIGGER no_pay BEFORE INSERT ON exec_payments BEGIN SELECT RAISE(ABORT, 'payment refused'); END`);
    raw.close();
    assert.throws(() => cache.put('content-c', 5, 'v1', run, 'runs/a'), /payment refused/);
    assert.equal(cache.get('content-c', 5), undefined, 'no verdict without its payment');
    assert.equal(cache.payments('runs/a').length, 1);
    cache.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
