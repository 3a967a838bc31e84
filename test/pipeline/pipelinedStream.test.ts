/**
 * The workflow's side of pipelined rounds (runPipeline.ts, runBatches), on a real dev server with scripted
 * coordinator and exec activities: a harvest that comes back empty while a lane is still reading its batch's
 * requests must not end the stream (found by the two-worker kill test: the lane then waited for ever, no activity
 * pending), and the misses a later harvest hands out run as batches of the same round, with no attempt between.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { runPipeline } from '../../workflows/runPipeline.ts';
import type { ActivityProvider } from '../../workers/registry.ts';
import type { ExchangeInput } from '../../activities/pipeline/pipelineActivities.ts';

let t: TestTemporal;
before(async () => {
  t = await startTestTemporal();
});
after(async () => {
  await t?.stop();
});

/** Polls `cond` every 50 ms until it holds (at most 30 s). */
async function waitFor(cond: () => Promise<boolean>): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > 30_000) throw new Error('timed out waiting for the workflow task after the first harvest');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const pending = (name: string) => ({ file: `/p/${name}.jsonl`, count: 1, sha256: name.repeat(64).slice(0, 64), batches: [[0, 10, 1]] });

test('an empty harvest during a batch read does not end the stream; a later harvest adds a batch to the same round', async () => {
  const calls: string[] = [];
  let attempts = 0;
  let harvests = 0;
  // The first batch's read completes only once the workflow has taken in the first harvest's (empty) answer in
  // a workflow task of its own: the order that hung.
  let harvested!: () => void;
  const harvestAnswered = new Promise<void>((r) => (harvested = r));
  const workflowId = `stream-${Date.now().toString(36)}`;
  const firstHarvest = harvestAnswered.then(() => waitFor(async () => {
    const events = (await t.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const harvests = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'pipelineHarvest').map((e) => Number(e.eventId)));
    const answered = events.findIndex((e) => harvests.has(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId)));
    return answered >= 0 && events.slice(answered + 1).some((e) => e.workflowTaskCompletedEventAttributes);
  }));
  const coordinator = {
    pipelineBuildState: async () => ({ complete: false, exists: false, reason: 'no manifest' }),
    pipelineBuildAttempt: async () => {
      calls.push(`attempt ${++attempts}`);
      if (attempts > 1) return { done: true, output: { out: '/b', counts: { queries: 1, corpus: 2, distractors: 1 }, files: {}, rejections: '' } };
      return { done: false, pending: pending('a'), stream: 's'.repeat(32) };
    },
    pipelineExchange: async (i: ExchangeInput) => {
      if (i.read?.file === '/p/a.jsonl') await firstHarvest;
      if (i.store?.length) calls.push(`store ${i.store[0].content_key}${i.stream ? ' (stream)' : ''}`);
      return { requests: i.read ? [{ code: i.read.file, suite: { kind: 'asserts', tests: ['assert True'] }, timeout_s: 1 }] : [] };
    },
    pipelineHarvest: async () => {
      harvests++;
      harvested();
      // After the first batch's verdict is stored, the stage asks for one more (its task's next candidate).
      const next = harvests > 1 && calls.includes('store /p/a.jsonl (stream)') && !calls.includes('harvest b') ? (calls.push('harvest b'), pending('b')) : null;
      return { pending: next };
    },
    pipelineRecord: async () => undefined,
  };
  const exec = {
    pipelineSandboxLayers: async () => ({}),
    pipelineExecuteBatch: async (i: { requests: { code: string }[] }) => ({ run: 1, cached: 0, verdicts: [{ content_key: i.requests[0].code, timeout_s: 1, runner_version: 'v', outcomes: ['pass'], wall_ms: 1, ran: true }] }),
  };
  const providers: ActivityProvider[] = [
    { queue: 'default', name: 'scripted-coordinator', create: () => ({ activities: coordinator }) },
    { queue: 'exec', name: 'scripted-exec', create: () => ({ activities: exec }) },
  ];
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, keys: ['default', 'exec'], providers });
  const result = await t.client.workflow.execute(runPipeline, {
    taskQueue: queues.default, workflowId, workflowExecutionTimeout: '60 seconds', // the hang fails the test instead
    args: [{ queues, runId: 'x', runDir: '/r', source: 'curated', seed: 0, configs: null, until: 'build', batchesInFlight: 4 }],
  });
  assert.deepEqual(calls, ['attempt 1', 'store /p/a.jsonl (stream)', 'harvest b', 'store /p/b.jsonl (stream)', 'attempt 2']);
  assert.equal(result.stages.build.rounds, 2);
  assert.equal(result.stages.build.harvests, 1);
  assert.deepEqual(result.stages.build.executions, { requested: 2, run: 2, cached: 0 });
});
