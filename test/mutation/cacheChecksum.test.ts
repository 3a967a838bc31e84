/**
 * The mutation cache's rows are checksummed like the execution and embedding caches' (issue 37): a digit changed
 * inside cached candidates (the JSON still valid; SQLite sees nothing) is a miss, enumerated again and replaced,
 * never a candidate; JSON-breaking damage likewise (no raw parse error); `cache verify` counts the damaged rows and
 * `cache repair` keeps exactly the rows that verify. A row of the execution cache whose key lost a digit is
 * replaced, not left beside the new row.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { enumerateMutants, type MutateRequest, type MutateResponse } from '../../activities/mutation/mutator.ts';
import { MutationCache } from '../../activities/mutation/cache.ts';
import { ExecCache, execContentKey, execRunKey } from '../../activities/exec/cache.ts';
import { repairCache, verifyCache } from '../../activities/storage/cacheRepair.ts';
import { quickCheck } from '../../activities/storage/sqliteChecked.ts';
import { projectRoot } from '../../activities/paths.ts';

const pexec = promisify(execFile);

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await pexec(process.execPath, [join(projectRoot(), 'bin', 'execretrieval.js'), ...args], { cwd: projectRoot(), timeout: 120_000 });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code?: number; stdout: string; stderr: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** VACUUM with secure_delete (no stale copies of a row in free space), then the first `n` occurrences of `from` become `to`. */
function rot(path: string, from: Buffer, to: Buffer, n: number): number {
  assert.equal(from.length, to.length);
  const db = new Database(path);
  db.pragma('secure_delete = ON');
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const buf = readFileSync(path);
  let done = 0;
  for (let at = buf.indexOf(from); at >= 0 && done < n; at = buf.indexOf(from, at + 1)) {
    to.copy(buf, at);
    done += 1;
  }
  writeFileSync(path, buf);
  const check = new Database(path, { readonly: true });
  assert.deepEqual(quickCheck(check), [], 'SQLite itself sees nothing wrong');
  check.close();
  return done;
}

const rowCount = (path: string, table: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

// 40 small functions: each enumerates several candidates whose JSON holds `"line":2`.
const REQS: MutateRequest[] = Array.from({ length: 40 }, (_, i) => ({
  id: `t${i}`,
  code: `def f${i}(xs):\n    return [x + ${i} for x in xs if x > ${i % 7}]\n`,
  function_name: `f${i}`,
}));

describe('mutation cache checksum', () => {
  let dir: string;
  let fresh: MutateResponse[];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'er-mutcache-'));
    fresh = await enumerateMutants(REQS, { cachePath: null, workers: 1 });
    assert.ok(fresh.every((r) => r.ok && r.candidates.length > 0));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a digit changed in 20 cached enumerations: misses, re-enumerated and replaced; verify counts them, then passes', async () => {
    const path = join(dir, 'mut.sqlite');
    assert.deepEqual(await enumerateMutants(REQS, { cachePath: path, workers: 1 }), fresh);
    assert.equal(rot(path, Buffer.from('"line":2'), Buffer.from('"line":3'), 20), 20);

    const v = await cli(['cache', 'verify', '--path', path]);
    assert.equal(v.code, 5, v.stdout + v.stderr);
    assert.match(v.stdout, /mut\.sqlite: damaged \(\d+ rows fail their checksum; \d+ rows readable\): run `execretrieval cache repair --path/);
    const h = verifyCache(path);
    assert.equal(h.kind, 'mutation');
    assert.ok(h.rows_invalid >= 1 && h.rows_invalid <= 20, JSON.stringify(h));
    assert.equal(h.rows_invalid + h.rows_readable, 40);

    const c = new MutationCache(path);
    const misses = REQS.filter((r) => c.get(c.key(r.code, r.function_name)) === undefined).length;
    assert.equal(c.damagedRows, h.rows_invalid);
    assert.equal(misses, h.rows_invalid);
    c.close();

    // The next build's enumeration is exactly a fresh one, and the damaged rows were replaced, not appended.
    assert.deepEqual(await enumerateMutants(REQS, { cachePath: path, workers: 1 }), fresh);
    assert.equal(rowCount(path, 'mutants'), 40);
    const v2 = await cli(['cache', 'verify', '--path', path]);
    assert.equal(v2.code, 0, v2.stdout + v2.stderr);
    assert.match(v2.stdout, /ok \(mutation, 40 rows\)/);
  });

  test('JSON-breaking damage is a miss (no parse error); repair keeps exactly the rows that verify', async () => {
    const path = join(dir, 'mut2.sqlite');
    await enumerateMutants(REQS, { cachePath: path, workers: 1 });
    assert.equal(rot(path, Buffer.from('{"ok":true'), Buffer.from('{"ok":tRue'), 10), 10);
    const r = repairCache(path);
    assert.deepEqual([r.kind, r.kept, r.dropped_invalid], ['mutation', 30, 10]);
    assert.equal(verifyCache(path).ok, true);
    assert.deepEqual(await enumerateMutants(REQS, { cachePath: path, workers: 1 }), fresh);
    assert.equal(rowCount(path, 'mutants'), 40);
  });

  test('a file made before checksums: rows that read back are migrated and hit, the rest are misses', async () => {
    const path = join(dir, 'old.sqlite');
    const probe = new MutationCache(join(dir, 'probe.sqlite'));
    const keys = REQS.slice(0, 3).map((r) => probe.key(r.code, r.function_name));
    probe.close();
    const db = new Database(path);
    db.exec('CREATE TABLE mutants (key TEXT PRIMARY KEY, response TEXT NOT NULL)');
    db.prepare('INSERT INTO mutants VALUES (?, ?)').run(keys[0], JSON.stringify(fresh[0]));
    db.prepare('INSERT INTO mutants VALUES (?, ?)').run(keys[1], '{"ok":true,"candidates":[');
    db.close();
    const c = new MutationCache(path);
    const hit = c.get(keys[0]);
    assert.ok(hit && fresh[0].ok);
    assert.deepEqual(hit.candidates, fresh[0].ok ? fresh[0].candidates : null);
    assert.equal(c.get(keys[1]), undefined);
    c.close();
  });

  test('exec cache: a row whose key lost a digit is replaced by the re-run, not kept beside it', () => {
    const path = join(dir, 'exec.sqlite');
    const c = new ExecCache(path);
    const content = (i: number) => execContentKey('v-test', `def f(x):\n    return x  # ${i}\n`, { kind: 'asserts', tests: [`assert f(${i}) == ${i}`] });
    for (let i = 0; i < 50; i++) c.put(content(i), 5, 'v-test', { outcomes: ['pass'], wall_ms: i });
    c.close();
    // Every copy of row 7's key (table and index) gets another last digit: SQLite still finds the file sound.
    const key = execRunKey(content(7), 5);
    const damaged = key.slice(0, -1) + (key.endsWith('0') ? '1' : '0');
    assert.ok(rot(path, Buffer.from(key), Buffer.from(damaged), 10) >= 1);

    const d = new ExecCache(path);
    assert.equal(d.get(content(7), 5), undefined, 'the damaged row is a miss');
    assert.equal(d.damagedRows, 1);
    d.put(content(7), 5, 'v-test', { outcomes: ['pass'], wall_ms: 7 });
    assert.equal(d.count(), 50);
    d.close();
    assert.equal(verifyCache(path).ok, true);
  });
});
