/**
 * A command whose dev server cannot start prints its one line and exits. It used to print the line and then hang
 * for ever: the SDK's native runtime, installed before the server was reached, kept the process alive without a
 * worker to shut it down (a test waiting on such a run waited until CI's own limit).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../workers/registry.ts';

test('run, when its dev server cannot start (the database is in use): one line, a non-zero exit, the process ends', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'devserver-fails-'));
  // A live process recorded as the server on the state's database, started by another live one (this test).
  const holder = spawn('sleep', ['600'], { stdio: 'ignore' });
  try {
    const state = join(tmp, 'state');
    mkdirSync(state);
    writeFileSync(join(state, 'temporal.db.server.json'), JSON.stringify({ pid: holder.pid, address: '127.0.0.1:1', owner_pid: process.pid }));
    const env: NodeJS.ProcessEnv = { ...process.env, EXECRETRIEVAL_STATE_DIR: state };
    delete env.TEMPORAL_ADDRESS;
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), 'run', '--source', 'curated', '--run', join(tmp, 'run'), '--configs', 'bm25'], {
      cwd: PROJECT_ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
      // SIGTERM would not do: the SDK's runtime takes it for a graceful shutdown that never ends.
      killSignal: 'SIGKILL',
    });
    assert.equal(r.signal, null, `the CLI ended by itself (it was killed after 60 s): ${r.stderr}`);
    assert.notEqual(r.status, 0);
    const lines = r.stderr.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^error: .*temporal\.db is in use by a temporal dev server at 127\.0\.0\.1:1 \(pid \d+\) started by another process/);
  } finally {
    holder.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
});
