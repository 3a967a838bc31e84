/**
 * `embed --no-worker` on two machines that share only the Temporal server: the CLI is the sweep's coordinator (the
 * run folder, the embedding cache, the run's ledger) on a queue of its own; the only embed worker runs in a mount
 * namespace of its own (no run folder, no cache) and alone holds the provider's address, which the CLI lacks. The
 * matrices are written by the CLI, every text is sent once, and every ledger row was written by the coordinator and
 * completed with the sender's name.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { spawnNamespacedWorker } from './namespacedWorker.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { writeTinyBenchmark } from '../embeddings/sweep-fixture.ts';
import { readMatrix } from '../../activities/embeddings/matrix.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { FAKE_DIMS, freshState, HOSTED, startCli, textsEmbedded } from './pipelineSupport.ts';

let t: TestTemporal;
let fake: FakeEmbeddingServer;
let tmp: string;
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'embed-no-worker-'));
  [t, fake] = await Promise.all([startTestTemporal(), startFakeEmbeddingServer(FAKE_DIMS)]);
});
after(async () => {
  await fake?.close();
  await t?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

test('embed --no-worker: the CLI coordinates (folder, cache, ledger), an embed worker with no folder sends; each text once, each row the coordinator\'s', async () => {
  const runDir = join(tmp, 'runs', 'enw');
  const { queries, corpus } = writeTinyBenchmark(runDir, 6);
  const worker = await spawnNamespacedWorker(t, { prefix: 'execretrieval', queues: 'default,embed', hide: [tmp], env: { EXECRETRIEVAL_EMBED_BASE_URL: fake.baseUrls.openai } });
  try {
    // No provider address here: whether the configuration can run is the embed worker's to say.
    const cli = startCli(['embed', '--run', runDir, '--configs', HOSTED, '--no-worker'], { TEMPORAL_ADDRESS: t.address, TEMPORAL_NAMESPACE: t.namespace, EXECRETRIEVAL_STATE_DIR: freshState(join(tmp, 'state')), EXECRETRIEVAL_EMBED_BASE_URL: '' });
    const end = await cli.done;
    assert.equal(end.code, 0, cli.stderr());
  } finally {
    worker.kill('SIGKILL');
  }
  const m = readMatrix(join(runDir, 'embeddings', HOSTED, 'corpus.arrow'));
  assert.equal(m.ids.length, corpus.length);
  assert.equal(readMatrix(join(runDir, 'embeddings', HOSTED, 'queries.arrow')).ids.length, queries.length);
  const texts = textsEmbedded(fake);
  assert.equal(texts.size, queries.length + corpus.length);
  assert.deepEqual([...texts.values()].filter((n) => n !== 1), [], 'each text sent once');
  const ledger = new EmbeddingLedger(join(runDir, 'ledger.sqlite'));
  const rows = ledger.batches(basename(runDir));
  ledger.close();
  assert.equal(rows.length, fake.requests.length, 'a row for every request, written by the coordinator');
  assert.deepEqual([...new Set(rows.map((r) => `${r.status} ${r.worker}`))], [`ok ${hostname()}:${worker.pid}`], 'answered, sent by the namespaced worker');
  assert.equal(existsSync(join(PROJECT_ROOT, 'runs', basename(runDir))), false, 'the worker wrote nothing into this checkout');
});
