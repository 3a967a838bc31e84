/**
 * Damaged state is never a result (issue 26), with the damage done to the file's bytes as bit-rot does it: a
 * FAIL turned into pass inside exec-cache rows, one byte flipped in embedding vectors (SQLite's own checks pass:
 * the pages are structurally sound), vectors of random bytes that decode as finite floats, an overwritten root
 * page. Each damaged row is a miss (counted, recomputed), `cache verify` names them, `cache repair` keeps exactly
 * the rows that verify and recovers rows SQLite can no longer reach.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { ExecCache, execContentKey, execRunKey } from '../../activities/exec/cache.ts';
import { readParquet } from '../../activities/storage/parquet.ts';
import { EmbeddingCache } from '../../activities/embeddings/cache.ts';
import { repairCache, verifyCache } from '../../activities/storage/cacheRepair.ts';
import { quickCheck } from '../../activities/storage/sqliteChecked.ts';
import { projectRoot } from '../../activities/paths.ts';

const PAGE = 4096;
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

/**
 * Rewrites the file (VACUUM) with secure_delete on: page splits leave stale copies of cells in free space, and
 * bit-rot there would change no row; after this every occurrence of a row's bytes is the live one.
 */
function compact(path: string): void {
  const db = new Database(path);
  db.pragma('secure_delete = ON');
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Replaces the first `n` occurrences of `from` in the file's bytes with `to` (same length): bit-rot in place. */
function rot(path: string, from: Buffer, to: Buffer, n: number): number {
  assert.equal(from.length, to.length);
  compact(path);
  const buf = readFileSync(path);
  let done = 0;
  for (let at = buf.indexOf(from); at >= 0 && done < n; at = buf.indexOf(from, at + 1)) {
    to.copy(buf, at);
    done += 1;
  }
  writeFileSync(path, buf);
  return done;
}

function quickOk(path: string): boolean {
  const db = new Database(path, { readonly: true });
  try {
    return quickCheck(db).length === 0;
  } finally {
    db.close();
  }
}

function rootPage(path: string, table: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table) as { rootpage: number }).rootpage;
  } finally {
    db.close();
  }
}

function overwritePage(path: string, page: number): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.alloc(PAGE, 0x5a), 0, PAGE, (page - 1) * PAGE);
  } finally {
    closeSync(fd);
  }
}

const keyOf = (i: number) => execContentKey('v-test', `def f(x):\n    return x  # ${i}\n`, { kind: 'asserts', tests: [`assert f(${i}) == ${i}`] });
/** n rows; every third one failed its second test with a bare FAIL. Checkpointed on close. */
function fillExec(path: string, n: number): Map<string, string[]> {
  const c = new ExecCache(path);
  const expected = new Map<string, string[]>();
  for (let i = 0; i < n; i++) {
    const outcomes = i % 3 === 0 ? ['pass', 'FAIL'] : ['pass', 'pass'];
    c.put(keyOf(i), 5, 'v-test', { outcomes, wall_ms: i });
    expected.set(keyOf(i), outcomes);
  }
  c.close();
  return expected;
}

describe('bit-rot inside cache rows', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-checksum-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('exec cache: 30 rows with FAIL turned into pass are misses, verify names them, repair drops exactly them', async () => {
    const path = join(dir, 'exec.sqlite');
    const expected = fillExec(path, 600);
    assert.equal(rot(path, Buffer.from('"FAIL"'), Buffer.from('"pass"'), 30), 30);
    assert.ok(quickOk(path), 'SQLite itself sees nothing wrong');

    const c = new ExecCache(path);
    let hits = 0;
    let misses = 0;
    for (const [key, outcomes] of expected) {
      const got = c.get(key, 5);
      if (got) {
        hits += 1;
        assert.deepEqual(got.outcomes, outcomes, 'a hit is exactly what was stored');
      } else misses += 1;
    }
    assert.deepEqual([hits, misses, c.damagedRows], [570, 30, 30]);
    c.close();

    const v = await cli(['cache', 'verify', '--path', path]);
    assert.equal(v.code, 5, v.stdout + v.stderr);
    assert.match(v.stdout, /exec\.sqlite: damaged \(30 rows fail their checksum; 570 rows readable\): run `execretrieval cache repair --path/);

    // Export writes only the rows that verify, says how many it skipped, and exits as verify does.
    const out = join(dir, 'exec.parquet');
    const x = await cli(['cache', 'export', out, '--path', path]);
    assert.equal(x.code, 5, x.stdout + x.stderr);
    assert.match(x.stdout, /wrote 570 rows to /);
    assert.match(x.stderr, /exec\.sqlite: skipped 30 rows that fail their checksum \(not results\): run `execretrieval cache repair --path/);
    const t = readParquet(out);
    assert.equal(t.numRows, 570);
    const byRunKey = new Map([...expected].map(([k, o]) => [execRunKey(k, 5), o]));
    for (let i = 0; i < t.numRows; i++) {
      assert.deepEqual(JSON.parse(t.getChild('outcomes_json')!.get(i) as string), byRunKey.get(t.getChild('key')!.get(i) as string), 'every exported verdict is the stored one');
    }

    const r = repairCache(path);
    assert.deepEqual([r.kind, r.kept, r.dropped_invalid, r.recovered], ['exec', 570, 30, 0]);
    const after = verifyCache(path);
    assert.equal(after.ok, true, JSON.stringify(after));
    const again = new ExecCache(path);
    // A re-run stores the verdict again under the dropped key.
    const [k0, o0] = [...expected].find(([k]) => !again.get(k, 5))!;
    again.put(k0, 5, 'v-test', { outcomes: o0, wall_ms: 1 });
    assert.deepEqual(again.get(k0, 5)?.outcomes, o0);
    again.close();
  });

  test('a damaged exec row is replaced by the next put; a sound one is never overwritten', () => {
    const path = join(dir, 'replace.sqlite');
    fillExec(path, 3);
    rot(path, Buffer.from('"FAIL"'), Buffer.from('"pass"'), 1);
    const c = new ExecCache(path);
    assert.equal(c.get(keyOf(0), 5), undefined);
    c.put(keyOf(0), 5, 'v-test', { outcomes: ['pass', 'FAIL'], wall_ms: 7 });
    c.put(keyOf(1), 5, 'v-test', { outcomes: ['FAIL', 'FAIL'], wall_ms: 7 });
    assert.deepEqual(c.get(keyOf(0), 5), { outcomes: ['pass', 'FAIL'], wall_ms: 7 });
    assert.deepEqual(c.get(keyOf(1), 5), { outcomes: ['pass', 'pass'], wall_ms: 1 }, 'the first verdict stays');
    c.close();
  });

  test('embedding cache: one byte flipped in 40 vectors: misses, re-embedded and replaced; repair drops exactly them', () => {
    const path = join(dir, 'emb.sqlite');
    const c = new EmbeddingCache(path);
    const vec = (i: number) => Float32Array.from({ length: 64 }, (_, j) => Math.sin(i * 64 + j) / 8);
    const hashes = Array.from({ length: 300 }, (_, i) => `h${i}`);
    c.putMany('cfg', 'fp', hashes.map((hash, i) => ({ hash, vector: vec(i) })));
    c.close();
    // Flip the low byte of the 10th component of vectors 0..39: a small, finite, plausible change.
    compact(path);
    const buf = readFileSync(path);
    for (let i = 0; i < 40; i++) {
      const bytes = Buffer.from(vec(i).buffer);
      const at = buf.indexOf(bytes);
      assert.ok(at >= 0, `vector ${i} is stored inline`);
      buf[at + 40] ^= 0x01;
    }
    writeFileSync(path, buf);
    assert.ok(quickOk(path));

    const d = new EmbeddingCache(path);
    const got = d.getMany('cfg', 'fp', hashes);
    assert.equal(got.size, 260);
    for (const [h, v] of got) assert.deepEqual([...v], [...vec(Number(h.slice(1)))]);
    assert.equal(d.damagedRows, 40);
    d.putMany('cfg', 'fp', [{ hash: 'h0', vector: vec(0) }]);
    assert.deepEqual([...d.getMany('cfg', 'fp', ['h0']).get('h0')!], [...vec(0)], 're-embedded and replaced');
    d.close();

    const h = verifyCache(path);
    assert.deepEqual([h.ok, h.rows_readable, h.rows_invalid], [false, 261, 39]);
    const r = repairCache(path);
    assert.deepEqual([r.kept, r.dropped_invalid], [261, 39]);
    assert.equal(verifyCache(path).ok, true);
  });

  test('files made before checksums: valid rows are migrated, random-bytes vectors (finite, norms ~1e38) and bad outcomes are misses', () => {
    // An embedding cache as the previous version wrote it.
    const path = join(dir, 'old-emb.sqlite');
    const old = new Database(path);
    old.exec(`CREATE TABLE embeddings (config_id TEXT NOT NULL, fingerprint TEXT NOT NULL, text_sha256 TEXT NOT NULL,
      dims INTEGER NOT NULL, vector BLOB NOT NULL, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
      PRIMARY KEY (config_id, fingerprint, text_sha256)) WITHOUT ROWID`);
    const ins = old.prepare('INSERT INTO embeddings (config_id, fingerprint, text_sha256, dims, vector) VALUES (?, ?, ?, ?, ?)');
    const good = Float32Array.from({ length: 64 }, (_, j) => (j % 7) / 10);
    ins.run('cfg', 'fp', 'good', 64, Buffer.from(good.buffer));
    // Random bytes whose floats are all finite (exponent byte below 0xff): what a garbage page decodes as.
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    const garbage: number[] = [];
    for (let g = 0; g < 3; g++) {
      const b = Buffer.from(Array.from({ length: 256 }, rnd));
      for (let j = 3; j < 256; j += 4) b[j] &= 0x7e; // sign + exponent high bits: never Inf/NaN
      const v = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
      assert.ok(v.every(Number.isFinite));
      const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      assert.ok(norm > 1e30, `norm ${norm}`);
      garbage.push(norm);
      ins.run('cfg', 'fp', `garbage${g}`, 64, b);
    }
    old.close();
    const c = new EmbeddingCache(path);
    const got = c.getMany('cfg', 'fp', ['good', 'garbage0', 'garbage1', 'garbage2']);
    assert.deepEqual([...got.keys()], ['good']);
    assert.deepEqual([...got.get('good')!], [...good]);
    c.close();
    const h = verifyCache(path);
    assert.deepEqual([h.rows_readable, h.rows_invalid, h.ok], [1, 3, false]);
    const r = repairCache(path);
    assert.deepEqual([r.kept, r.dropped_invalid], [1, 3]);
    assert.equal(verifyCache(path).ok, true);

    // An execution cache as the previous version wrote it: a row that does not parse stays a miss.
    const epath = join(dir, 'old-exec.sqlite');
    const e = new Database(epath);
    e.exec(`CREATE TABLE exec_runs (key TEXT PRIMARY KEY, content_key TEXT NOT NULL, timeout_s REAL NOT NULL, runner_version TEXT NOT NULL,
      outcomes TEXT NOT NULL, n_pass INTEGER NOT NULL, timed_out INTEGER NOT NULL, wall_ms REAL NOT NULL,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), cpu_ms REAL)`);
    const eins = e.prepare('INSERT INTO exec_runs (key, content_key, timeout_s, runner_version, outcomes, n_pass, timed_out, wall_ms) VALUES (?, ?, 5, ?, ?, 1, 0, 3)');
    eins.run('k-good', 'c-good', 'v', '["pass"]');
    eins.run('k-bad', 'c-bad', 'v', '["pa');
    e.close();
    const ec = new ExecCache(epath);
    assert.deepEqual(ec.get('c-good', 5), { outcomes: ['pass'], wall_ms: 3 });
    assert.equal(ec.get('c-bad', 5), undefined);
    ec.close();
    assert.deepEqual(verifyCache(epath).rows_invalid, 1);
  });
});

describe('cache repair past damaged pages', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-recover-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('exec cache with its root page overwritten: every row is recovered from the intact leaves, exactly', async () => {
    const path = join(dir, 'root.sqlite');
    const expected = fillExec(path, 3000);
    overwritePage(path, rootPage(path, 'exec_runs'));
    assert.equal(verifyCache(path).ok, false);
    const r = await cli(['cache', 'repair', '--path', path]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /rebuilt with 3000 rows that verify \(\d+ of them recovered past damaged pages\); dropped 0 rows that fail their checksum and 0 rows on pages that could not be read/);
    const c = new ExecCache(path);
    for (const [key, outcomes] of expected) assert.deepEqual(c.get(key, 5)?.outcomes, outcomes);
    c.close();
    assert.equal(verifyCache(path).ok, true);
  });

  test('exec cache with the root and 39 other pages overwritten: kept rows are exact; the rest are counted as dropped', () => {
    const path = join(dir, 'many.sqlite');
    const expected = fillExec(path, 3000);
    const root = rootPage(path, 'exec_runs');
    overwritePage(path, root);
    // Pages 40..78: table leaves among index pages; at most ~20 rows fit a leaf here (rows of ~200 bytes).
    for (let p = 40; p < 79; p++) overwritePage(path, p);
    const r = repairCache(path);
    assert.equal(r.kind, 'exec');
    assert.ok(r.kept >= 3000 - 39 * 25 && r.kept < 3000, `kept ${r.kept}`);
    assert.ok(r.recovered > 0);
    assert.equal(r.rows_before === null || r.rows_before === 3000, true, `rows_before ${r.rows_before}`);
    const c = new ExecCache(path);
    let hits = 0;
    for (const [key, outcomes] of expected) {
      const got = c.get(key, 5);
      if (got) {
        hits += 1;
        assert.deepEqual(got.outcomes, outcomes);
      }
    }
    c.close();
    assert.equal(hits, r.kept);
  });

  test('embedding cache (WITHOUT ROWID, vectors past one page) with its root page overwritten: rows recovered, exactly', () => {
    const path = join(dir, 'emb-root.sqlite');
    const c = new EmbeddingCache(path);
    // 384 dims: 1,536 bytes, more than an index page holds in-cell, so every row has an overflow page.
    const vec = (i: number) => Float32Array.from({ length: 384 }, (_, j) => Math.cos(i + j / 384));
    c.putMany('cfg', 'fp', Array.from({ length: 400 }, (_, i) => ({ hash: `h${i}`, vector: vec(i) })));
    c.close();
    overwritePage(path, rootPage(path, 'embeddings'));
    assert.equal(verifyCache(path).ok, false);
    const r = repairCache(path);
    assert.equal(r.kind, 'embeddings');
    // The root of an index b-tree holds rows of its own (WITHOUT ROWID): those went with it.
    assert.ok(r.kept >= 380 && r.kept <= 400, `kept ${r.kept}`);
    const d = new EmbeddingCache(path);
    const got = d.getMany('cfg', 'fp', Array.from({ length: 400 }, (_, i) => `h${i}`));
    assert.equal(got.size, r.kept);
    for (const [h, v] of got) assert.deepEqual([...v], [...vec(Number(h.slice(1)))]);
    d.close();
    assert.equal(verifyCache(path).ok, true);
  });
});
