import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelRoot } from '../../activities/paths.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { writeTinyBenchmark } from '../embeddings/sweep-fixture.ts';

/** The local dev server and the default log level, whatever the caller's environment says. */
function withoutTemporalEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  delete env.TEMPORAL_ADDRESS;
  delete env.TEMPORAL_LOG_LEVEL;
  return env;
}

test("embed on the local dev server: the terminal shows the run's own lines, the SDK's warnings go to runs/<id>/logs/temporal.log", () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tlog-'));
  try {
    const state = join(tmp, 'state');
    const run = join(tmp, 'run');
    writeTinyBenchmark(run);
    // Own state dir (own Temporal database), the real model files.
    spawnSync('mkdir', ['-p', state]);
    symlinkSync(modelRoot(), join(state, 'models'));
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), 'embed', '--run', run, '--configs', 'local-static-64', '--json'], {
      cwd: PROJECT_ROOT,
      env: withoutTemporalEnv({ ...process.env, EXECRETRIEVAL_STATE_DIR: state }),
      encoding: 'utf8',
      timeout: 300_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(state, 'temporal.db')), 'the dev server used the state directory');
    const terminal = r.stdout + r.stderr;
    assert.doesNotMatch(terminal, /\[WARN\]|No (activities|workflows) registered|temporalio_sdk_core/);
    const summary = JSON.parse(r.stdout) as { ok: string[]; failed: string[]; unavailable: string[] };
    assert.deepEqual([summary.ok, summary.failed, summary.unavailable], [['local-static-64'], [], []]);
    const log = readFileSync(join(run, 'logs', 'temporal.log'), 'utf8');
    // The worker on the embed queue registers no workflows by design; the SDK says so at WARN, into the file.
    assert.match(log, /\[WARN\] No workflows registered/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
