/**
 * `execretrieval run` killed three ways, each in a different stage, then rerun: the CLI (in build), the dev server
 * (in embed, a provider request in flight), a worker (in rank, the first scoring attempt). The rerun of the same
 * command attaches to the same workflow and finishes with a summary.json byte-identical to an uninterrupted run's;
 * no execution and no embedding was repeated (the exec cache's payments, the fake provider's record). Then the
 * user's own path: the CLI's own dev server SIGKILLed mid-run is one line with the rerun command, exit 5, and the
 * rerun finishes the run.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { assertEachPendingPaidOnce, FAKE_DIMS, freshState, HOSTED, pendingFiles, startCli, textsEmbedded, waitFor, writeSmallSource, type CliChild } from './pipelineSupport.ts';

let tmp: string;
let src: string;
let reference: { summary: string; executions: number; texts: string[] };
const runArgs = (runDir: string) => ['run', '--source', src, '--run', runDir, '--configs', HOSTED];

/** An uninterrupted run with its own dev server and fresh caches. */
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'pipeline-kills-'));
  src = join(tmp, 'src.jsonl');
  writeSmallSource(src);
  const fake = await startFakeEmbeddingServer(FAKE_DIMS);
  try {
    const runDir = join(tmp, 'ref', 'run');
    const state = freshState(join(tmp, 'ref', 'state'));
    const cli = startCli(runArgs(runDir), { EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_EMBED_BASE_URL: fake.baseUrls.openai });
    assert.equal((await cli.done).code, 0, cli.stderr());
    reference = { summary: readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'), executions: assertEachPendingPaidOnce(state, runDir).count, texts: [...textsEmbedded(fake).keys()].sort() };
  } finally {
    await fake.close();
  }
});
after(() => rmSync(tmp, { recursive: true, force: true }));

let t: TestTemporal;
let fake: FakeEmbeddingServer;
before(async () => {
  t = await startTestTemporal({ persistent: true });
  fake = await startFakeEmbeddingServer(FAKE_DIMS);
});
after(async () => {
  await t?.stop();
  await fake?.close();
});

function assertSameRun(state: string, runDir: string, texts: Map<string, number>): void {
  assert.equal(readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'), reference.summary);
  assert.equal(assertEachPendingPaidOnce(state, runDir).count, reference.executions, 'as many executions as the uninterrupted run');
  assert.deepEqual([...texts].filter(([, n]) => n > 1), [], 'no text embedded twice');
  assert.deepEqual([...texts.keys()].sort(), reference.texts);
}

test('SIGKILL the CLI in build, the dev server in embed, a worker in rank; the rerun finishes the same run, nothing repeated', async () => {
  const state = freshState(join(tmp, 'kills', 'state'));
  const env = { EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_EMBED_BASE_URL: fake.baseUrls.openai, TEMPORAL_ADDRESS: t.address };
  const runDir = join(tmp, 'kills', 'run');
  const worker = await t.spawnWorker('execretrieval', env);
  const children: CliChild[] = [];
  try {
    // 1. The CLI (a client and an in-process worker), killed once the build has handed executions to the exec queue.
    const c1 = startCli(runArgs(runDir), env);
    children.push(c1);
    await waitFor('a build round on the exec queue', () => pendingFiles(runDir, 'build').length > 0);
    c1.child.kill('SIGKILL');
    await c1.done;
    assert.equal(existsSync(join(runDir, 'benchmark', 'manifest.json')), false, 'the CLI was killed mid-build');

    // 2. The worker carries the run on alone; the dev server is killed while an embedding request is in flight.
    fake.scriptModel('BAAI/bge-small-en-v1.5', { status: 'hold', ms: 3_000 });
    await waitFor('an embedding request in flight', () => fake.inflight > 0);
    process.kill(t.server.pid, 'SIGKILL');
    await t.server.exited;
    await t.restartServer();

    // 3. The worker is killed once scoring has started ranking (its first attempt writes the rankings).
    await waitFor('ranking', () => existsSync(join(runDir, 'rankings')));
    worker.kill('SIGKILL');
    assert.equal(existsSync(join(runDir, 'report', 'summary.json')), false, 'the worker was killed before the report');

    // The same command again: it attaches to the workflow in flight and serves the queues itself.
    const c2 = startCli(runArgs(runDir), env);
    children.push(c2);
    const end = await c2.done;
    assert.equal(end.code, 0, c2.stderr());
    assert.match(c2.stderr(), /continuing the run already in flight/);
  } finally {
    for (const c of children) c.child.kill('SIGKILL');
    worker.kill('SIGKILL');
  }
  assertSameRun(state, runDir, textsEmbedded(fake));
});

test("the CLI's own dev server SIGKILLed mid-run: one line with the rerun command, exit 5; the rerun finishes the same run", async () => {
  const own = await startFakeEmbeddingServer(FAKE_DIMS);
  try {
    const state = freshState(join(tmp, 'server', 'state'));
    const env = { EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_EMBED_BASE_URL: own.baseUrls.openai };
    const runDir = join(tmp, 'server', 'run');
    const c1 = startCli(runArgs(runDir), env);
    try {
      await waitFor('a build round on the exec queue', () => {
        // A CLI that ended before its first round would otherwise be waited for until the timeout, its reason unseen.
        if (c1.child.exitCode !== null) throw new Error(`the run ended (exit ${c1.child.exitCode}) before its first build round:\n${c1.stderr()}`);
        return pendingFiles(runDir, 'build').length > 0;
      });
      const { pid } = JSON.parse(readFileSync(join(state, 'temporal.db.server.json'), 'utf8')) as { pid: number };
      process.kill(pid, 'SIGKILL');
      const end = await c1.done;
      assert.equal(end.code, 5, c1.stderr());
    } finally {
      c1.child.kill('SIGKILL');
    }
    const err = c1.stderr();
    const errors = err.split('\n').filter((l) => /error|warn/i.test(l));
    assert.equal(errors.length, 1, err);
    assert.match(errors[0], /^error: the Temporal dev server \(pid \d+\) stopped during the run .*rerun `execretrieval run --source .* --configs bge-small-en-v1\.5` to continue it$/);
    assert.doesNotMatch(err, /\n\s+at /, 'no stack trace');

    const c2 = startCli(runArgs(runDir), env);
    const again = await c2.done;
    assert.equal(again.code, 0, c2.stderr());
    assert.match(c2.stderr(), /continuing the run already in flight/);
    assertSameRun(state, runDir, textsEmbedded(own));
  } finally {
    await own.close();
  }
});
