// runJsonLines (activities/python/jsonLines.ts) runs its child to the end while this thread is busy: scoring
// starts the not_defined facts, then ranks synchronously (scoring/scoreRun.ts), and counts on the facts being done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runJsonLines } from '../../activities/python/jsonLines.ts';
import { projectRoot } from '../../activities/paths.ts';

const SCRIPT = join(projectRoot(), 'infra', 'python', 'ast_facts.py');

/** The child's state letter from /proc (R, S, Z …), or 'gone' once it has been reaped. */
function state(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return 'gone';
  }
}

test('the child answers a batch far over a pipe buffer to the end while this thread never yields', async () => {
  // ~1.4 MB of requests and ~0.3 MB of answers: through 64 KiB pipes the child would wait on this thread.
  const code = (i: number) => `def f_${i}(xs):\n    total = 0\n    for x in xs:\n        total += x * ${i}\n    return total\n`.repeat(4);
  const reqs = Array.from({ length: 4000 }, (_, i) => ({ id: String(i), kind: 'names', code: code(i) }));
  assert.ok(JSON.stringify(reqs).length > 20 * 65536);
  let pid: number | undefined;
  const answers = runJsonLines<{ id: string; identifiers: string[]; dynamic: boolean }>(SCRIPT, reqs, { onSpawn: (p) => (pid = p) });
  assert.ok(pid !== undefined);
  // Block this thread (no event-loop turn) until the child has exited: a zombie, since only the loop reaps it.
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const waitS = 180;
  const deadline = Date.now() + waitS * 1000;
  let s = state(pid!);
  while (s !== 'Z' && s !== 'gone' && Date.now() < deadline) {
    Atomics.wait(pause, 0, 0, 5);
    s = state(pid!);
  }
  assert.ok(s === 'Z' || s === 'gone', `the child is still in state ${s} after ${waitS} s with this thread busy`);
  const out = await answers;
  assert.equal(out.length, reqs.length);
  assert.deepEqual(out[7], { parses: true, identifiers: ['f_7', 'total', 'x', 'xs'], dynamic: false, id: '7' });
});

test('a child that fails names the script and how many answers came', async () => {
  const reqs = [{ id: '0', kind: 'names', code: 'x = 1' }, { id: '1', kind: 'no such kind' }];
  // An unknown kind is an error record, not a crash; a script that cannot start exits 2 with no answers.
  const out = await runJsonLines<{ id: string; error?: string }>(SCRIPT, reqs);
  assert.match(out[1].error ?? '', /unknown kind/);
  await assert.rejects(runJsonLines(join(projectRoot(), 'infra', 'python', 'no_such_script.py'), reqs), /no_such_script\.py exited 2 after 0\/2 responses/);
});
