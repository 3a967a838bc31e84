/**
 * Ctrl-C during `run` (issue 37: 20 s in, it exited 5 blaming the dev server, which had received the same SIGINT
 * from the terminal). SIGINT is sent to the CLI's whole process group, as a terminal does, once the pipeline is
 * under way: the command exits 130, says nothing about a lost server, and leaves no process behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { writeSmallSource } from '../temporal/pipelineSupport.ts';

test('Ctrl-C during run: exit 130, no "dev server stopped" blame, nothing left running', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-sigint-'));
  const state = join(dir, 'state');
  mkdirSync(state);
  symlinkSync(join(PROJECT_ROOT, '.execretrieval', 'models'), join(state, 'models'));
  const src = join(dir, 'src.jsonl');
  writeSmallSource(src);
  // detached: a process group of its own, so the signal reaches the CLI and its dev server as a terminal's would.
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), 'run', '--source', src, '--run', join(dir, 'run'), '--configs', 'bm25'], {
    cwd: PROJECT_ROOT, env: { ...process.env, EXECRETRIEVAL_STATE_DIR: state }, stdio: ['ignore', 'ignore', 'pipe'], detached: true,
  });
  let stderr = '';
  let sent = false;
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b.toString();
    // The build is under way (the workflow reported its first stage): interrupt it there.
    if (!sent && /== build/.test(stderr)) {
      sent = true;
      process.kill(-child.pid!, 'SIGINT');
    }
  });
  const [code] = await new Promise<[number | null, string | null]>((r) => child.on('close', (c, s) => r([c, s])));
  try {
    assert.ok(sent, stderr);
    assert.equal(code, 130, stderr);
    assert.doesNotMatch(stderr, /stopped during the run/);
    const left = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(state) && !l.includes('ps -eo'));
    assert.deepEqual(left, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
