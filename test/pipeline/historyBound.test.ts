/**
 * The history bound on a real build (issue 23: "a synthetic large run shows the history stays under a bound you
 * state and continue-as-new happens"). The real workflow, the real coordinator (buildBenchmark over a task file,
 * its deferred attempts, the pending files, the exchange into a cache of its own) and the real exec activity
 * over the real sandbox, on curated tasks copied under new ids (syntheticCopies.ts), with the history bound
 * scaled down to the run's size. bench/history-bound.ts runs the same at 50k snippets with the real bound.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { runPipeline } from '../../workflows/runPipeline.ts';
import { createPipelineCoordinator, createPipelineExecActivities } from '../../activities/pipeline/pipelineActivities.ts';
import { openOracle } from '../../activities/exec/oracle.ts';
import type { ActivityProvider } from '../../workers/registry.ts';
import { originalsOracle, writeCopiedCurated } from './syntheticCopies.ts';

let t: TestTemporal;
let state: string;
before(async () => {
  // The exec worker's own cache (its oracle's, and the one pipelineExecuteBatch records payments in) lives in the
  // state directory: a fresh one, never the checkout's.
  state = mkdtempSync(join(tmpdir(), 'history-bound-'));
  process.env.EXECRETRIEVAL_STATE_DIR = state;
  t = await startTestTemporal();
});
after(async () => {
  await t?.stop();
  rmSync(state, { recursive: true, force: true });
});

const ORIGINALS = 4;
const COPIES = 4;
const IN_FLIGHT = 4;

test('a build of 16 copied tasks under a 100-event bound continues as new, every run stays under the bound (but for the closing exchange of each lane), and the release holds every copy', async (ctx) => {
  const { file, tasks } = writeCopiedCurated(join(t.tmp, 'copies'), COPIES, ORIGINALS);
  const inner = await openOracle({ concurrency: 2 });
  const oracle = originalsOracle(inner);
  const coordinator = createPipelineCoordinator({ cachePath: join(t.tmp, 'coordinator-cache.sqlite') });
  const providers: ActivityProvider[] = [
    { queue: 'default', name: 'coordinator', create: () => coordinator },
    { queue: 'exec', name: 'exec-copies', create: () => ({ activities: createPipelineExecActivities({ oracle: async () => oracle }) }) },
  ];
  const queues = t.uniqueQueues();
  const workers = await t.startWorkers({ queues, keys: ['default', 'exec'], providers });
  const workflowId = `history-bound-${queues.prefix}`;
  const runDir = join(t.tmp, 'run');
  const bound = { events: 100, bytes: 8 * 1024 * 1024 };
  let result;
  try {
    result = await t.client.workflow.execute(runPipeline, {
      taskQueue: queues.default, workflowId,
      args: [{ queues, runId: 'history-bound', runDir, source: file, seed: 0, configs: null, until: 'build', batchSize: 4, batchesInFlight: IN_FLIGHT, historyBound: bound }],
    });
  } finally {
    await workers.shutdown();
    await oracle.close();
  }

  const b = result.stages.build;
  const x = b.executions!;
  assert.ok(result.continued_as_new >= 2, `continued as new ${result.continued_as_new} times`);
  // A lane takes a batch only if the history can hold it and what is in flight (runPipeline.ts): each run stays
  // under the bound but for the lanes' closing exchanges (~6 events each) and the stage's closing attempt.
  const runs: { events: number; bytes: number }[] = [];
  for await (const w of t.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push({ events: w.historyLength, bytes: w.historySize ?? 0 });
  assert.equal(runs.length, result.continued_as_new + 1);
  const margin = IN_FLIGHT * 6 + 20;
  for (const r of runs) {
    assert.ok(r.events <= bound.events + margin, `history lengths ${runs.map((q) => q.events).join(', ')} (bound ${bound.events} + ${margin})`);
    assert.ok(r.bytes > 0 && r.bytes < bound.bytes, `history sizes ${runs.map((q) => q.bytes).join(', ')}`);
  }
  const total = runs.reduce((s, r) => s + r.events, 0);
  ctx.diagnostic(`runs ${runs.map((r) => `${r.events} events/${r.bytes} B`).join(', ')}; executions ${JSON.stringify(x)}, executed by the sandbox ${oracle.misses()}`);
  // Without the bound all of it would be one history: the bound is what kept each run short.
  assert.ok(total > bound.events + margin, `${total} events in all`);

  // The build went through: every copy accepted (the curated originals all are), each under its own id.
  const queries = readFileSync(join(runDir, 'benchmark', 'queries.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { query_id: string });
  assert.equal(b.output && (b.output as { counts: { queries: number } }).counts.queries, tasks);
  assert.equal(queries.length, tasks);
  assert.equal(new Set(queries.map((q) => q.query_id)).size, tasks);
  // Every request the attempts handed back reached the exec queue once; the copies' programs are their originals'
  // under another name, so most were cache hits on the exec worker.
  assert.equal(x.requested, x.run + x.cached);
  assert.ok(x.requested >= tasks * 2, `${x.requested} executions requested`);
  assert.ok(oracle.misses() < x.requested, `${oracle.misses()} of ${x.requested} executed`);
});
