/**
 * Bytes in flight and the history's bytes (issue 23, found by bench/history-bound.ts: a 10,000-task build was
 * terminated with GrpcMessageTooLarge). Every batch's requests cross the workflow in the exchange's result and
 * again in the batch's input; with 256 lanes of ~25 KB each one workflow task scheduled more than gRPC's 4 MB,
 * and lanes that stopped only once the history was full still landed everything in flight past the bound. The
 * real workflow on a real dev server; the coordinator and the exec worker are stand-ins that serve batches of
 * one 200 KB request each and measure what is in flight between an exchange's read and the batch's end.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { IN_FLIGHT_BYTES, runPipeline } from '../../workflows/runPipeline.ts';
import type { ActivityProvider } from '../../workers/registry.ts';
import type { ExchangeInput } from '../../activities/pipeline/pipelineActivities.ts';

let t: TestTemporal;
before(async () => {
  t = await startTestTemporal();
});
after(async () => {
  await t?.stop();
});

const BATCHES = 40;
const REQUEST_BYTES = 200 * 1024;
const LANES = 40;

test(`batches of 200 KB with ${LANES} lanes: at most ${IN_FLIGHT_BYTES / 2 ** 20} MB in flight, and under a 6 MB bound no run's history passes it by more than one batch`, async () => {
  const request = (k: number) => ({ code: `# ${k}\n${'x = 1\n'.repeat(REQUEST_BYTES / 6)}`, suite: { kind: 'asserts', tests: ['assert True'] }, timeout_s: 1 });
  // The pending file's byte ranges as the coordinator cuts them: one request a batch, its JSON line's length.
  const sizes = Array.from({ length: BATCHES }, (_, k) => Buffer.byteLength(JSON.stringify(request(k)) + '\n'));
  const offsets = sizes.map((_, k) => sizes.slice(0, k).reduce((a, b) => a + b, 0));
  let attempts = 0;
  let inFlight = 0;
  let most = 0;
  const ran: number[] = [];
  const coordinator = {
    pipelineBuildState: async () => ({ complete: false, exists: false, reason: 'no manifest' }),
    pipelineBuildAttempt: async () => {
      if (++attempts > 1) return { done: true, output: { out: '/b', counts: { queries: 1, corpus: 5, distractors: 4 }, files: {}, rejections: '' } };
      return { done: false, pending: { file: '/p/1.jsonl', count: BATCHES, sha256: 'a'.repeat(64), batches: offsets.map((o, k) => [o, o + sizes[k], 1]) } };
    },
    pipelineExchange: async (i: ExchangeInput) => {
      if (!i.read) return { requests: [] };
      const k = offsets.indexOf(i.read.start);
      inFlight += sizes[k];
      most = Math.max(most, inFlight);
      return { requests: [request(k)] };
    },
    pipelineRecord: async () => undefined,
  };
  const exec = {
    pipelineSandboxLayers: async () => ({ pid_ns: true }),
    pipelineExecuteBatch: async (i: { requests: { code: string }[] }) => {
      const k = Number(/^# (\d+)/.exec(i.requests[0].code)![1]);
      ran.push(k);
      inFlight -= sizes[k];
      return { run: 1, cached: 0, verdicts: [{ content_key: String(k), timeout_s: 1, runner_version: 'v', outcomes: ['pass'], wall_ms: 1, ran: true }] };
    },
  };
  const providers: ActivityProvider[] = [
    { queue: 'default', name: 'scripted-coordinator', create: () => ({ activities: coordinator }) },
    { queue: 'exec', name: 'scripted-exec', create: () => ({ activities: exec }) },
  ];
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, keys: ['default', 'exec'], providers });
  const workflowId = `bytes-${queues.prefix}`;
  const bound = { events: 10_000, bytes: 6 * 1024 * 1024 };
  const result = await t.client.workflow.execute(runPipeline, {
    taskQueue: queues.default, workflowId,
    args: [{ queues, runId: 'x', runDir: '/r', source: 'curated', seed: 0, configs: null, until: 'build', batchesInFlight: LANES, historyBound: bound }],
  });

  assert.deepEqual([...ran].sort((a, b) => a - b), Array.from({ length: BATCHES }, (_, k) => k));
  // One batch's requests and verdict, counted as the workflow counts them (VERDICT_BYTES each).
  const batch = Math.max(...sizes) + 512;
  assert.ok(most <= IN_FLIGHT_BYTES, `${most} request bytes in flight at once (limit ${IN_FLIGHT_BYTES})`);
  assert.ok(most > IN_FLIGHT_BYTES - 2 * batch, `${most} request bytes in flight at once: the lanes used the room they had`);
  const runs: number[] = [];
  for await (const w of t.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(w.historySize ?? 0);
  assert.equal(runs.length, result.continued_as_new + 1);
  assert.ok(result.continued_as_new >= 2, `continued as new ${result.continued_as_new} times`);
  // The batch that crossed the bound (its requests twice), and the workflow's own events.
  for (const size of runs) assert.ok(size <= bound.bytes + 2 * batch + 64 * 1024, `history sizes ${runs.join(', ')} (bound ${bound.bytes})`);
});
