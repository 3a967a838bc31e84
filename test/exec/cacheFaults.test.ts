/**
 * Faults are never results, tested with really damaged SQLite files (pages of a real cache file overwritten,
 * a garbage file, a truncated one): the caches refuse them on open with one line naming the file and the repair
 * command, an unreadable row is an `infra_error` (never a verdict), consumers retry once then stop, `score`
 * stops instead of printing other numbers, and `cache verify` / `cache repair` find and fix the damage.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { ExecCache, execContentKey } from '../../activities/exec/cache.ts';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { runOrStop } from '../../activities/exec/faultStrict.ts';
import { EmbeddingCache } from '../../activities/embeddings/cache.ts';
import { DamagedCacheError, InfraFault } from '../../activities/faults.ts';
import { repairCache, verifyCache } from '../../activities/storage/cacheRepair.ts';
import { projectRoot } from '../../activities/paths.ts';
import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';
import { writeTinyRun } from '../scoring/fixtures/tinyBenchmark.ts';

const PAGE = 4096;
const pexec = promisify(execFile);

/** The CLI as a user runs it; resolves with the exit code instead of throwing on a non-zero one. */
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

/** Overwrites pages [from, to) of a SQLite file with a byte pattern (page 1, the header, is left alone). */
function overwritePages(path: string, from: number, to: number): void {
  const fd = openSync(path, 'r+');
  try {
    for (let p = from; p < to; p++) writeSync(fd, Buffer.alloc(PAGE, 0x5a), 0, PAGE, p * PAGE);
  } finally {
    closeSync(fd);
  }
}

/** The root page of exec_runs (1-based), from the sound file's schema. */
function rootPageOf(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'exec_runs'`).get() as { rootpage: number }).rootpage;
  } finally {
    db.close();
  }
}

const suiteN = (i: number) => ({ kind: 'asserts' as const, tests: [`assert f(${i}) == ${i}`] });
const cpuOf = new Map<string, number | undefined>();
/** n rows with known contents, written through the cache itself (the file is checkpointed on close). */
function fillExecCache(path: string, n: number): Map<string, string[]> {
  const c = new ExecCache(path);
  const expected = new Map<string, string[]>();
  for (let i = 0; i < n; i++) {
    const key = execContentKey('v-test', `def f(x):\n    return x  # ${i}\n`, suiteN(i));
    const outcomes = i % 3 ? ['pass', `FAIL: row ${i}`] : ['pass'];
    // Half the rows carry a CPU time (mutants' limits derive from it), half are rows from before the column.
    const cpu_ms = i % 2 ? i + 0.5 : undefined;
    c.put(key, 5, 'v-test', { outcomes, wall_ms: i, ...(cpu_ms === undefined ? {} : { cpu_ms }) });
    expected.set(key, outcomes);
    cpuOf.set(key, cpu_ms);
  }
  c.close();
  return expected;
}

const oneLine = (s: string) => s.trim().split('\n').filter(Boolean);

describe('damaged execution cache', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-cachefault-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('60 of ~280 pages overwritten: refused on open with the path and the repair command', async () => {
    const path = join(dir, 'pages.sqlite');
    fillExecCache(path, 3000);
    const pages = statSync(path).size / PAGE;
    assert.ok(pages > 200, `${pages} pages`);
    overwritePages(path, 10, 70);
    assert.throws(() => new ExecCache(path), (err: Error) => err instanceof DamagedCacheError && err.message.includes(path) && err.message.includes(`cache repair --path ${path}`));
    await assert.rejects(openOracle({ cachePath: path, concurrency: 1 }), DamagedCacheError);
  });

  test('damage not caught on open: an unreadable row is an infra_error result, and runOrStop stops on it', async () => {
    const path = join(dir, 'rows.sqlite');
    const expected = fillExecCache(path, 3000);
    overwritePages(path, 10, 70);
    // Opened without the check (as a handle opened before the damage would be): rows on the bad pages throw.
    const c = new ExecCache(path, { check: false });
    let damaged = 0;
    let good = 0;
    for (const [key, outcomes] of expected) {
      try {
        assert.deepEqual(c.get(key, 5)?.outcomes, outcomes);
        good += 1;
      } catch (err) {
        assert.ok(err instanceof DamagedCacheError, String(err));
        damaged += 1;
      }
    }
    c.close();
    assert.ok(damaged > 100 && good > 100, `damaged ${damaged}, good ${good}`);

    // A row that reads back but is not a list of outcomes fails its checksum: a miss, executed again and
    // replaced (never a verdict); the next lookup is a hit on the new row.
    const rowPath = join(dir, 'badrow.sqlite');
    const code = 'def f(x):\n    return x\n';
    const suite = suiteN(7);
    const oracle = await openOracle({ cachePath: rowPath, concurrency: 1 });
    try {
      const first = await oracle.run({ code, suite });
      assert.deepEqual(first.outcomes, ['pass']);
      const raw = new Database(rowPath);
      raw.prepare(`UPDATE exec_runs SET outcomes = '{"not": "a list"'`).run();
      raw.close();
      const bad = await oracle.run({ code, suite });
      assert.equal(bad.infra_error, undefined);
      assert.deepEqual([bad.cached, bad.outcomes], [false, ['pass']], 'executed again');
      const again = await oracle.run({ code, suite });
      assert.deepEqual([again.cached, again.outcomes], [true, ['pass']], 'the damaged row was replaced');
    } finally {
      await oracle.close();
    }
  });

  test('a garbage file and a truncated file: one line naming the file, exit 5, no SqliteError stack', async () => {
    const garbage = join(dir, 'garbage.sqlite');
    writeFileSync(garbage, Buffer.from('this is not a database, it is a cache file that was overwritten '.repeat(200)));
    const r = await cli(['cache', 'stats', '--path', garbage], {});
    assert.equal(r.code, 5);
    assert.deepEqual(oneLine(r.stderr).length, 1, r.stderr);
    assert.match(r.stderr, /garbage\.sqlite: damaged cache \(SQLITE_NOTADB/);
    assert.match(r.stderr, /cache repair --path/);
    assert.doesNotMatch(r.stderr, /SqliteError|    at /);

    const cut = join(dir, 'cut.sqlite');
    fillExecCache(cut, 2000);
    truncateSync(cut, Math.floor(statSync(cut).size / 2 / PAGE) * PAGE + 100);
    assert.throws(() => new ExecCache(cut), (err: Error) => err instanceof DamagedCacheError && err.message.startsWith(`${cut}: damaged cache`));
  });

  test('cache verify finds the damage, cache repair keeps every readable row with its exact contents', async () => {
    const path = join(dir, 'repair.sqlite');
    const expected = fillExecCache(path, 3000);
    overwritePages(path, 100, 160);
    const before = verifyCache(path);
    assert.equal(before.ok, false);
    assert.equal(before.kind, 'exec');
    const v = await cli(['cache', 'verify', '--path', path], {});
    assert.equal(v.code, 5);
    assert.match(v.stdout, /repair\.sqlite: damaged \(.*run `execretrieval cache repair --path/);

    const r = repairCache(path);
    assert.equal(r.kind, 'exec');
    assert.ok(r.kept > 500 && r.kept < 3000, `kept ${r.kept}`);
    assert.ok(existsSync(`${path}.damaged`));
    const after = verifyCache(path);
    assert.equal(after.ok, true, JSON.stringify(after));
    assert.equal(after.rows_readable, r.kept);
    // Every kept row answers with exactly what was stored; the others are misses (recomputed), never wrong.
    const c = new ExecCache(path);
    let hits = 0;
    for (const [key, outcomes] of expected) {
      const got = c.get(key, 5);
      if (got) {
        hits += 1;
        assert.deepEqual(got.outcomes, outcomes);
        assert.equal(got.cpu_ms, cpuOf.get(key), 'the CPU time survives the repair');
      }
    }
    c.close();
    assert.equal(hits, r.kept);
    const v2 = await cli(['cache', 'verify', '--path', path], {});
    assert.equal(v2.code, 0, v2.stdout + v2.stderr);
    assert.match(v2.stdout, /: ok \(exec, \d+ rows\)/);
  });

  test('cache repair on a garbage file moves it aside; the next open starts an empty cache', async () => {
    const garbage = join(dir, 'garbage2.sqlite');
    writeFileSync(garbage, Buffer.alloc(50_000, 0x41));
    const r = await cli(['cache', 'repair', '--path', garbage], {});
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /not readable as a cache at all; moved to .*garbage2\.sqlite\.damaged/);
    const c = new ExecCache(garbage);
    assert.equal(c.count(), 0);
    c.close();
    assert.equal(readFileSync(`${garbage}.damaged`).length, 50_000);
  });
});

describe('score on a damaged cache stops with one line instead of printing different numbers', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-scorefault-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('score → damage 60 pages → score exits 5 with one line, files untouched → repair → same numbers', async () => {
    const runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    const state = join(dir, 'state');
    const cachePath = join(state, 'exec-cache.sqlite');
    fillExecCache(cachePath, 3000); // unrelated rows, so the file has pages to damage around the real ones
    const env = { EXECRETRIEVAL_STATE_DIR: state };
    const first = await cli(['score', '--run', runDir, '--replicates', '200'], env);
    assert.equal(first.code, 1, first.stderr); // the fixture has a rejected record and a broken config
    const summary = () => readFileSync(join(runDir, 'report', 'summary.json'), 'utf8');
    const manifest = () => readFileSync(join(runDir, 'scoring', 'manifest.json'), 'utf8');
    const [s1, m1] = [summary(), manifest()];

    // The table's root page too: SQLite reaches none of its leaves then; repair walks the pages for them.
    const root = rootPageOf(cachePath);
    overwritePages(cachePath, 20, 80);
    overwritePages(cachePath, root - 1, root);
    const broken = await cli(['score', '--run', runDir, '--replicates', '200'], env);
    assert.equal(broken.code, 5, broken.stderr);
    const lines = oneLine(broken.stderr);
    assert.equal(lines.length, 1, broken.stderr);
    assert.ok(lines[0].includes(cachePath) && lines[0].includes('cache repair --path'), lines[0]);
    assert.doesNotMatch(broken.stderr, /SqliteError|    at /);
    assert.equal(manifest(), m1, 'nothing was re-scored');

    const rep = await cli(['cache', 'repair', '--path', cachePath], env);
    assert.equal(rep.code, 0, rep.stderr);
    const again = await cli(['score', '--run', runDir, '--replicates', '200'], env);
    assert.equal(again.code, 1, again.stderr);
    // The same numbers as before the damage (the rows repair kept are served from the cache, the rest re-run).
    assert.ok(JSON.stringify(JSON.parse(summary()).estimates) === JSON.stringify(JSON.parse(s1).estimates), 'same estimates');
    assert.equal(JSON.parse(manifest()).executions.pairs, JSON.parse(m1).executions.pairs);
    assert.match(rep.stdout, /rebuilt with \d+ rows that verify \(\d+ of them recovered past damaged pages\); dropped \d+ rows that fail their checksum/);

    // Bit-rot inside the rows, invisible to SQLite: every "pass" in the file turned into "FAIL". Each rotted row
    // fails its checksum, is executed again (one line says so) and the numbers stay those before any damage.
    const buf = readFileSync(cachePath);
    let rotted = 0;
    for (let at = buf.indexOf('"pass"'); at >= 0; at = buf.indexOf('"pass"', at + 1), rotted++) buf.write('"FAIL"', at);
    writeFileSync(cachePath, buf);
    assert.ok(rotted > 100, `${rotted} outcomes rotted`);
    const rottedRun = await cli(['score', runDir, '--replicates', '200'], env);
    assert.equal(rottedRun.code, 1, rottedRun.stderr);
    assert.match(rottedRun.stderr, /exec-cache\.sqlite: a cached execution failed its checksum: it is executed again and replaced, never used/);
    assert.ok(JSON.stringify(JSON.parse(summary()).estimates) === JSON.stringify(JSON.parse(s1).estimates), 'same estimates after bit-rot');
  });
});

describe('runOrStop: a fault stops, a verdict (passing or failing) is returned', () => {
  const req: ExecRequest = { code: 'x = 1', suite: { kind: 'asserts', tests: ['assert x == 1'] } };
  const scripted = (answers: (ExecResult | Error)[]) => {
    let calls = 0;
    const oracle: Oracle = {
      run: async () => {
        const a = answers[Math.min(calls++, answers.length - 1)];
        if (a instanceof Error) throw a;
        return a;
      },
      runMany: async () => [],
      close: async () => {},
    };
    return { oracle, calls: () => calls };
  };
  const ok: ExecResult = { outcomes: ['pass'], wall_ms: 1, passed: true, cached: false };
  const fault: ExecResult = { outcomes: ['ERROR: Signal(SIGKILL)'], wall_ms: 1, passed: false, cached: false, infra_error: 'fork server died' };

  test('a result is returned as it is', async () => {
    const s = scripted([ok]);
    assert.deepEqual(await runOrStop(s.oracle, req), ok);
    assert.equal(s.calls(), 1);
  });
  test('an infra_error result (the oracle already ran it twice) stops at once, naming the fault', async () => {
    const s = scripted([fault, ok]);
    await assert.rejects(runOrStop(s.oracle, req), (err: Error) => err instanceof InfraFault && /^fork server died \(nothing was scored/.test(err.message));
    assert.equal(s.calls(), 1);
  });
  test('a result is returned at once; a failing verdict is a verdict', async () => {
    const failing: ExecResult = { outcomes: ['FAIL'], wall_ms: 1, passed: false, cached: false };
    const s = scripted([failing]);
    assert.deepEqual(await runOrStop(s.oracle, req), failing);
    assert.equal(s.calls(), 1);
  });
  test('an oracle call that throws: InfraFault with its first line', async () => {
    const s = scripted([new Error('pool closed\nstack')]);
    await assert.rejects(runOrStop(s.oracle, req), (err: Error) => err instanceof InfraFault && /^execution oracle failed: pool closed \(nothing was scored/.test(err.message));
    assert.equal(s.calls(), 1);
  });
});

describe('damaged embedding cache entries are re-embedded, never returned', () => {
  test('a vector of the wrong length or with NaN is a miss; putMany replaces it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'er-embfault-'));
    try {
      const path = join(dir, 'emb.sqlite');
      const c = new EmbeddingCache(path);
      const v = (x: number) => Float32Array.from([x, x + 1, x + 2, x + 3]);
      c.putMany('cfg', 'fp', [{ hash: 'a', vector: v(1) }, { hash: 'b', vector: v(2) }, { hash: 'c', vector: v(3) }]);
      const raw = new Database(path);
      raw.prepare(`UPDATE embeddings SET vector = substr(vector, 1, 10) WHERE text_sha256 = 'a'`).run();
      raw.prepare(`UPDATE embeddings SET vector = ? WHERE text_sha256 = 'b'`).run(Buffer.from(Float32Array.from([1, NaN, 2, 3]).buffer));
      raw.close();
      const got = c.getMany('cfg', 'fp', ['a', 'b', 'c']);
      assert.deepEqual([...got.keys()], ['c']);
      assert.deepEqual([...got.get('c')!], [...v(3)]);
      c.putMany('cfg', 'fp', [{ hash: 'a', vector: v(9) }]);
      assert.deepEqual([...c.getMany('cfg', 'fp', ['a']).get('a')!], [...v(9)]);
      c.close();
      const h = verifyCache(path);
      assert.equal(h.kind, 'embeddings');
      assert.equal(h.rows_invalid, 1); // b is still bad until re-embedded
      assert.equal(h.ok, false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('SQLite-level damage in the embedding cache: refused on open with the path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'er-embfault2-'));
    try {
      const path = join(dir, 'emb.sqlite');
      const c = new EmbeddingCache(path);
      c.putMany('cfg', 'fp', Array.from({ length: 3000 }, (_, i) => ({ hash: `h${i}`, vector: Float32Array.from({ length: 64 }, (_, j) => i + j) })));
      c.close();
      overwritePages(path, 20, 80);
      assert.throws(() => new EmbeddingCache(path), (err: Error) => err instanceof DamagedCacheError && err.message.includes(path));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
