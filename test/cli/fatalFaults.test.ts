/**
 * Faults that retrying cannot fix end the command in seconds (issue 26): a damaged cache under `run` and under
 * `embed`, a full disk under `embed` (a real tmpfs of a few hundred kB; CI runs as root). Each ends by itself with
 * one line and the exit-code table's code (5), leaves no process behind (the dev server it started included), and
 * `embed --rebuild-cache` afterwards runs a fresh sweep instead of attaching to an old one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, writeSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { writeTinyRun } from '../scoring/fixtures/tinyBenchmark.ts';

/** Generous for a loaded 2-core machine: the point is seconds, not the minutes of retries before. */
const LIMIT_MS = 90_000;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  stdout: string;
  ms: number;
}

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<Ended> {
  const t0 = Date.now();
  const e = { ...process.env, ...env };
  delete e.TEMPORAL_ADDRESS;
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), ...args], { cwd: PROJECT_ROOT, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // SIGKILL: a hung CLI would take SIGTERM for a graceful shutdown that never ends.
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    }),
  );
}

/** Processes (other than this test's) whose command line names `dir`: a dev server or worker left behind. */
function leftBehind(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(dir) && !l.includes('ps -eo'));
}

/** A state directory of its own (the dev server's database) that sees this checkout's local models. */
function stateWithModels(path: string): string {
  mkdirSync(path);
  symlinkSync(join(PROJECT_ROOT, '.execretrieval', 'models'), join(path, 'models'));
  return path;
}

const errorLines = (s: string) => s.split('\n').filter((l) => l.startsWith('error: '));

describe('faults that retrying cannot fix end the command in seconds', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-fatal-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('run on a damaged execution cache: one line, exit 5, ends by itself, nothing left running', async () => {
    const state = join(dir, 'run-state');
    mkdirSync(state);
    writeFileSync(join(state, 'exec-cache.sqlite'), Buffer.from('not a database, an overwritten cache file '.repeat(400)));
    const r = await cli(['run', '--source', 'curated', '--id', join(dir, 'run'), '--configs', 'bm25', '--until', 'build'], { EXECRETRIEVAL_STATE_DIR: state });
    assert.equal(r.signal, null, `killed after ${LIMIT_MS} ms: ${r.stderr}`);
    assert.equal(r.code, 5, r.stderr);
    const lines = errorLines(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /exec-cache\.sqlite: damaged cache \(SQLITE_NOTADB.*cache repair --path/);
    assert.doesNotMatch(r.stderr, /    at /);
    assert.deepEqual(leftBehind(state), []);
  });

  test('embed on a damaged embedding cache: one line, exit 5, in seconds; --rebuild-cache then runs a fresh sweep', async () => {
    const state = stateWithModels(join(dir, 'embed-state'));
    const runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    const cache = join(state, 'embedding-cache.sqlite');
    writeFileSync(cache, Buffer.from('garbage where the embedding cache was '.repeat(400)));
    const env = { EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_EMBED_CACHE: cache };
    const r = await cli(['embed', runDir, '--configs', 'local-static-64'], env);
    assert.equal(r.signal, null, `killed after ${LIMIT_MS} ms: ${r.stderr}`);
    assert.equal(r.code, 5, r.stderr);
    const lines = errorLines(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /embedding-cache\.sqlite: damaged cache \(SQLITE_NOTADB/);
    assert.doesNotMatch(r.stdout, /embedded \d+ configuration/);
    assert.deepEqual(leftBehind(state), []);

    const again = await cli(['embed', runDir, '--configs', 'local-static-64', '--rebuild-cache'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /attaching to the sweep already in flight/);
    assert.match(again.stdout, /embedded 1 configuration\(s\); report:/);
    assert.deepEqual(leftBehind(state), []);
  });

  test('embed on a full disk (tmpfs): one line naming it, exit 5, in seconds, nothing left running', async (t) => {
    const mnt = join(dir, 'full');
    mkdirSync(mnt);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', mnt]);
    } catch (err) {
      // CI and the sessions run as root; elsewhere this fault cannot be made without privileges.
      t.diagnostic(`cannot mount a tmpfs here: ${(err as Error).message.split('\n')[0]}`);
      assert.fail('mounting a tmpfs needs root (CI runs as root)');
    }
    try {
      const runDir = join(mnt, 'tiny');
      writeTinyRun(runDir);
      const state = stateWithModels(join(dir, 'full-state')); // the dev server's database stays off the full disk
      // Fill what is left of the file system.
      const fd = openSync(join(mnt, 'filler'), 'w');
      try {
        for (;;) writeSync(fd, Buffer.alloc(4096, 1));
      } catch (err) {
        assert.equal((err as { code?: string }).code, 'ENOSPC');
      } finally {
        closeSync(fd);
      }
      const r = await cli(['embed', runDir, '--configs', 'local-static-64'], { EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_EMBED_CACHE: join(mnt, 'cache.sqlite') });
      assert.equal(r.signal, null, `killed after ${LIMIT_MS} ms: ${r.stderr}`);
      assert.equal(r.code, 5, r.stderr);
      const lines = errorLines(r.stderr);
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], /no space left on the device/);
      assert.doesNotMatch(r.stderr, /    at /);
      assert.deepEqual(leftBehind(state), []);
      t.diagnostic(`${r.ms} ms: ${lines[0]}`);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});
