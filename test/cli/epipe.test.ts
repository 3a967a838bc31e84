/**
 * A reader that closes the pipe early (`execretrieval compare-runs a b | head -1`) is not a failure: the command
 * exits 0 without a stack trace (it printed Node's unhandled 'error' event with EPIPE before). The fault is real:
 * the pipe's read end is closed before the command writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../activities/paths.ts';

test('stdout closed by its reader before the command writes: exit 0, nothing on stderr', async () => {
  const child = spawn(process.execPath, [join(projectRoot(), 'bin', 'execretrieval.js'), 'configs', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy(); // the reader is gone: the first write fails with EPIPE
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  assert.equal(err, '');
  assert.equal(code, 0);
});
