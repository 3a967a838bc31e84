/**
 * A long run continues as new before its history grows large (issue 23: 0.24 events per execution and no
 * continue-as-new, so a 100k-snippet corpus would reach Temporal's 51,200-event limit in the build alone). The
 * real workflow on a real dev server, with a low bound; the coordinator's and exec worker's activities are
 * stand-ins that script three rounds of 30 batches each (the attempts' `after` chain, every batch's range).
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

const ROUNDS = 3;
const BATCHES = 30;
const hash = (round: number) => String(round).repeat(64).slice(0, 64);

test('three rounds of 30 batches under a 120-event bound: the run continues as new, each run stays near the bound, every batch runs once and each attempt continues the last', async () => {
  const afters: (string | undefined)[] = [];
  const ran: string[] = [];
  const stored: string[] = [];
  const coordinator = {
    pipelineBuildState: async () => ({ complete: false, exists: false, reason: 'no manifest' }),
    pipelineBuildAttempt: async (i: { after?: string }) => {
      afters.push(i.after);
      const round = afters.length;
      if (round > ROUNDS) return { done: true, output: { out: '/b', counts: { queries: 1, corpus: 5, distractors: 4 }, files: {}, rejections: '' } };
      return { done: false, pending: { file: `/p/${round}.jsonl`, count: BATCHES * 2, sha256: hash(round), batches: Array.from({ length: BATCHES }, (_, k) => [k * 10, k * 10 + 10, 2]) } };
    },
    pipelineExchange: async (i: ExchangeInput) => {
      for (const v of i.store ?? []) stored.push(v.content_key);
      return { requests: i.read ? [{ code: `${i.read.file}@${i.read.start}`, suite: { kind: 'asserts', tests: ['assert True'] }, timeout_s: 1 }] : [] };
    },
    pipelineRecord: async () => undefined,
  };
  const exec = {
    pipelineSandboxLayers: async () => ({ pid_ns: true }),
    pipelineExecuteBatch: async (i: { requests: { code: string }[] }) => {
      ran.push(i.requests[0].code);
      return { run: 2, cached: 0, verdicts: [{ content_key: i.requests[0].code, timeout_s: 1, runner_version: 'v', outcomes: ['pass'], wall_ms: 1, ran: true }] };
    },
  };
  const providers: ActivityProvider[] = [
    { queue: 'default', name: 'scripted-coordinator', create: () => ({ activities: coordinator }) },
    { queue: 'exec', name: 'scripted-exec', create: () => ({ activities: exec }) },
  ];
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, keys: ['default', 'exec'], providers });
  const workflowId = `can-${queues.prefix}`;
  const bound = { events: 120, bytes: 8 * 1024 * 1024 };
  const result = await t.client.workflow.execute(runPipeline, {
    taskQueue: queues.default, workflowId,
    args: [{ queues, runId: 'x', runDir: '/r', source: 'curated', seed: 0, configs: null, until: 'build', batchesInFlight: 4, historyBound: bound }],
  });

  // Every batch of every round ran once, and its verdict reached the coordinator once.
  const expected = Array.from({ length: ROUNDS }, (_, r) => Array.from({ length: BATCHES }, (_, k) => `/p/${r + 1}.jsonl@${k * 10}`)).flat();
  assert.deepEqual([...ran].sort(), [...expected].sort());
  assert.deepEqual([...stored].sort(), [...expected].sort());
  // Each attempt names the round before it, across the runs: the coordinator continues the suspended stage.
  assert.deepEqual(afters, [undefined, hash(1), hash(2), hash(3)]);
  assert.equal(result.stages.build.rounds, ROUNDS + 1);
  assert.deepEqual(result.stages.build.executions, { requested: ROUNDS * BATCHES * 2, run: ROUNDS * BATCHES * 2, cached: 0 });
  assert.ok(result.continued_as_new >= 3, `continued as new ${result.continued_as_new} times`);

  // Each run's history: the bound, plus the batches in flight finishing (4 lanes, ~12 events each).
  const runs: number[] = [];
  for await (const w of t.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(w.historyLength);
  assert.equal(runs.length, result.continued_as_new + 1);
  const margin = 4 * 12 + 20;
  assert.ok(Math.max(...runs) <= bound.events + margin, `history lengths ${runs.join(', ')} (bound ${bound.events} + ${margin})`);
});
