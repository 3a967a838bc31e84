import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../workers/registry.ts';

test('execretrieval ui serves the Web UI on the state directory database until Ctrl-C, then stops its server', async () => {
  const state = mkdtempSync(join(tmpdir(), 'ui-'));
  try {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), 'ui'], {
      cwd: PROJECT_ROOT,
      env: (({ TEMPORAL_ADDRESS: _a, ...rest }) => ({ ...rest, EXECRETRIEVAL_STATE_DIR: state }))(process.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    const deadline = Date.now() + 120_000;
    while (!/http:\/\/\S+\/workflows/.test(out) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const url = /http:\/\/\S+\/workflows/.exec(out)?.[0];
    assert.ok(url, `printed the UI address; stderr: ${err}`);
    assert.ok(existsSync(join(state, 'temporal.db')), 'the database is in the state directory');
    // The UI server may answer a moment after the frontend is ready.
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = await fetch(url).then((r) => r.status, () => 0);
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(status, 200);
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.equal(existsSync(join(state, 'temporal.db.server.json')), false, 'server stopped and its owner file removed');
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});
