/**
 * `execretrieval run` as one workflow, spread over workers: two worker processes (workers/all.ts) on the same
 * queues against one dev server; the one that runs the first build execution is SIGKILLed then. Then three
 * workers in mount namespaces of their own (no shared folder), one SIGKILLed mid-build and another mid-embed. The run completes with a
 * summary.json byte-identical to an uninterrupted in-process run's, and nothing was executed or embedded twice:
 * counted from the exec cache's payments (one row per execution run, stored with its verdict) against the run's
 * pending requests, and from the fake provider's own record of the texts it was asked to embed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { spawnNamespacedWorker } from './namespacedWorker.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import Database from 'better-sqlite3';
import { textHash } from '../../activities/embeddings/cache.ts';
import { assertEachPendingPaidOnce, executionsPaid, FAKE_DIMS, freshState, HOSTED, pendingFiles, startCli, textsEmbedded, waitFor, writeSmallSource } from './pipelineSupport.ts';

let tmp: string;
let src: string;
let reference: { summary: string; executions: number; texts: Map<string, number> };

/** The model HOSTED names at its provider (data/embedding-configs.json). */
const HOSTED_MODEL = 'BAAI/bge-small-en-v1.5';

const runArgs = (runDir: string) => ['run', '--source', src, '--run', runDir, '--configs', HOSTED];

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'pipeline-'));
  src = join(tmp, 'src.jsonl');
  writeSmallSource(src);
  // The reference: the same command, uninterrupted, its own dev server and in-process workers, fresh caches.
  const fake = await startFakeEmbeddingServer(FAKE_DIMS);
  try {
    const runDir = join(tmp, 'ref', 'run');
    const state = freshState(join(tmp, 'ref', 'state'));
    const cli = startCli(runArgs(runDir), { EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_EMBED_BASE_URL: fake.baseUrls.openai });
    const end = await cli.done;
    assert.equal(end.code, 0, cli.stderr());
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    assert.deepEqual(Object.keys(manifest.stages), ['build', 'embed', 'score']);
    assert.ok(manifest.stages.build.rounds >= 2, 'the build handed its executions to the exec queue at least once');
    reference = { summary: readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'), executions: assertEachPendingPaidOnce(state, runDir).count, texts: textsEmbedded(fake) };
    assert.ok(reference.executions > 0 && reference.texts.size > 0);
  } finally {
    await fake.close();
  }
});

after(() => rmSync(tmp, { recursive: true, force: true }));

let t: TestTemporal;
let fake: FakeEmbeddingServer;
before(async () => {
  t = await startTestTemporal();
  fake = await startFakeEmbeddingServer(FAKE_DIMS);
});
after(async () => {
  await t?.stop();
  await fake?.close();
});

test('two workers on the same queues, one SIGKILLed mid-build: same summary.json, nothing executed or embedded twice', async () => {
  const state = freshState(join(tmp, 'two', 'state'));
  const env = { EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_EMBED_BASE_URL: fake.baseUrls.openai };
  const [w1, w2] = await Promise.all([t.spawnWorker('execretrieval', env), t.spawnWorker('execretrieval', env)]);
  const runDir = join(tmp, 'two', 'run');
  const cli = startCli([...runArgs(runDir), '--no-worker'], { ...env, TEMPORAL_ADDRESS: t.address });
  try {
    // Kill the worker that ran the first build execution as soon as it has: the build's later rounds are still to
    // come. Which worker the server hands a batch to is its choice (one worker may take every build batch).
    let first: typeof w1 | undefined;
    await waitFor('a worker running build executions', () => {
      const pids = executionsPaid(state, runDir).pids;
      first = [w1, w2].find((w) => pids.has(w.pid!));
      return first !== undefined;
    });
    first!.kill('SIGKILL');
    assert.equal(existsSync(join(runDir, 'benchmark', 'manifest.json')), false, 'killed mid-build');
    assert.ok(pendingFiles(runDir, 'build').length > 0);

    const end = await cli.done;
    assert.equal(end.code, 0, cli.stderr());
  } finally {
    // Both: when the first build execution was w2's, w1 lived on, polling the same queues with this test's cache,
    // and took the next test's exec and embed tasks (verdicts from the wrong cache, vectors in the wrong file).
    cli.child.kill('SIGKILL');
    for (const w of [w1, w2]) w.kill('SIGKILL');
  }
  assert.equal(readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'), reference.summary);
  assert.equal(assertEachPendingPaidOnce(state, runDir).count, reference.executions, 'as many executions as the uninterrupted run');
  const texts = textsEmbedded(fake);
  assert.deepEqual([...texts].filter(([, n]) => n > 1), [], 'no text embedded twice');
  assert.deepEqual([...texts.keys()].sort(), [...reference.texts.keys()].sort());
});


test('three workers in mount namespaces of their own, sharing only the Temporal server; one SIGKILLed mid-build, another mid-embed: same summary.json, each execution paid once, only the request in flight billed twice, no shared folder', async () => {
  // Outside the namespaces: only the coordinator (`run --no-worker`: it serves only the run's own queue: the run
  // folder, the execution and embedding caches, the ledger). Inside: workflows, exec batches and embedding sends.
  const own = await startFakeEmbeddingServer(FAKE_DIMS);
  // The first embedding request is held by the provider: the worker that sent it is killed meanwhile (the
  // provider still answers and bills it, as a real one would).
  own.scriptModel(HOSTED_MODEL, { status: 'hold', ms: 15_000 });
  const state = freshState(join(tmp, 'ns', 'state'));
  const runDir = join(tmp, 'ns', 'run');
  const env = { EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_EMBED_BASE_URL: own.baseUrls.openai };
  const prefix = 'execretrieval'; // `run` serves and starts on the default queues
  const ns = (queues: string) => spawnNamespacedWorker(t, { prefix, queues, hide: [tmp], env: { EXECRETRIEVAL_EMBED_BASE_URL: own.baseUrls.openai } });
  // The third is the only embed worker until it is killed; a fourth, on a machine of its own too, takes over.
  const workers = await Promise.all([ns('default,exec'), ns('default,exec'), ns('default,exec,embed')]);
  const cli = startCli([...runArgs(runDir), '--no-worker'], { ...env, TEMPORAL_ADDRESS: t.address });
  try {
    // The first verdicts reached the coordinator's cache through the workflow: kill a worker while the build goes on.
    await waitFor('the first build verdicts at the coordinator', () => executionsPaid(state, runDir).count > 0);
    workers[0].kill('SIGKILL');
    await waitFor('the first embedding request held by the provider', () => own.inflight > 0);
    workers[2].kill('SIGKILL');
    workers.push(await ns('embed'));
    const end = await cli.done;
    assert.equal(end.code, 0, cli.stderr());
  } finally {
    cli.child.kill('SIGKILL');
    for (const w of workers) w.kill('SIGKILL');
    await own.close();
  }
  assert.equal(readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'), reference.summary);
  const paid = assertEachPendingPaidOnce(state, runDir);
  assert.equal(paid.count, reference.executions, 'as many executions as the uninterrupted run');
  // Only the coordinator wrote this cache: every verdict came back through the workflow, none through a folder.
  assert.deepEqual([...paid.pids], [cli.child.pid]);
  assert.equal(existsSync(join(PROJECT_ROOT, 'runs', basename(runDir))), false, 'no worker wrote into this checkout');

  // The coordinator's ledger: a row for every request that left a worker, written before it left. The requests the
  // killed worker had in flight (the held one, and any other it sent whose answer died with it) are lost, bounding
  // what the provider billed for them; every other row carries what the provider reported.
  const db = new Database(join(runDir, 'ledger.sqlite'), { readonly: true });
  const rows = db.prepare(`SELECT status, tokens_reported, tokens_max FROM embed_batches WHERE run_id = ?`).all(basename(runDir)) as { status: string; tokens_reported: number | null; tokens_max: number }[];
  const lostTexts = new Set((db.prepare(`SELECT t.text_sha256 AS h FROM embed_batch_texts t JOIN embed_batches b ON b.id = t.batch_row WHERE b.status = 'lost'`).all() as { h: string }[]).map((r) => r.h));
  db.close();
  const sent = own.requests.filter((r) => (r.body as { model?: string }).model === HOSTED_MODEL);
  const ok = rows.filter((r) => r.status === 'ok');
  const lost = rows.filter((r) => r.status === 'lost');
  assert.ok(lost.length >= 1, 'the request held at the kill is lost');
  assert.deepEqual(rows.filter((r) => r.status !== 'ok' && r.status !== 'lost'), []);
  assert.ok(ok.length + lost.length >= sent.length && ok.length < sent.length, `${sent.length} requests sent: ${ok.length} answered rows + ${lost.length} lost`);
  // The provider's log: every text of the uninterrupted run, each billed once, but those of the lost requests:
  // twice at most (the killed worker's send and the retry from the other worker).
  const texts = textsEmbedded(own);
  assert.deepEqual([...texts.keys()].sort(), [...reference.texts.keys()].sort());
  assert.ok(texts.get((sent[0].body as { input: string[] }).input[0]) === 2, 'the held request was sent again');
  assert.deepEqual([...texts].filter(([x, n]) => n > (lostTexts.has(textHash(x)) ? 2 : 1)), [], 'only the lost requests\' texts billed twice, and those at most twice');
  const billed = sent.reduce((a, r) => a + (r.billed_tokens ?? 0), 0);
  const okTokens = ok.reduce((a, r) => a + (r.tokens_reported ?? 0), 0);
  const bound = lost.reduce((a, r) => a + r.tokens_max, 0);
  assert.ok(billed > okTokens && billed - okTokens <= bound, `billed ${billed} tokens: ${okTokens} answered + the lost requests', within their bound ${bound}`);
});
