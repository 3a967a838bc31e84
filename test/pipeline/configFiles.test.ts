/**
 * `run --config-file` (run file `config_files`): the extra registry files reach the embed stage (embedSweep's
 * embedPlan, which loads the registry) and the score stage (the report describes their configurations), and a run
 * without them keeps the workflow id it had before the option existed. The real workflow on a real dev server;
 * the coordinator's, exec and embed activities are stand-ins that record their input.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { runPipeline } from '../../workflows/runPipeline.ts';
import { pipelineWorkflowId } from '../../cli/pipelineRun.ts';
import type { ActivityProvider } from '../../workers/registry.ts';

let t: TestTemporal;
before(async () => {
  t = await startTestTemporal();
});
after(async () => {
  await t?.stop();
});

function recording(): { providers: ActivityProvider[]; plans: unknown[]; scores: unknown[] } {
  const plans: unknown[] = [];
  const scores: unknown[] = [];
  const counts = { queries: 1, corpus: 2 };
  const coordinator = {
    pipelineBuildState: async () => ({ complete: true, exists: true, reason: '', output: { out: '/nowhere/run/benchmark', counts, files: {}, rejections: '' } }),
    pipelineRecord: async () => undefined,
    pipelineScoreAttempt: async (input: unknown) => (scores.push(input), { done: true, output: { configs: ['bm25'], failed_configs: [], missing_configs: [], rejected_records: 0 } }),
  };
  const exec = { pipelineSandboxLayers: async () => ({}) };
  // The sweep's plan and report are the coordinator's (they read the run folder), on the default queue.
  const embed = {
    embedPlan: async (input: unknown) => (plans.push(input), { runDir: '/nowhere/run', configs: [], problems: [], counts }),
    writeEmbedReport: async () => '/nowhere/run/embeddings/report.json',
  };
  return {
    providers: [
      { queue: 'default', name: 'recording-coordinator', create: () => ({ activities: coordinator }) },
      { queue: 'exec', name: 'recording-exec', create: () => ({ activities: exec }) },
      { queue: 'default', name: 'recording-embed', create: () => ({ activities: embed }) },
    ],
    plans,
    scores,
  };
}

test('the registry files of run --config-file reach the embed and score stages; none given, none passed', async () => {
  const queues = t.uniqueQueues();
  const r = recording();
  await t.startWorkers({ queues, keys: ['default', 'exec'], providers: r.providers });
  const base = { runId: 'x', runDir: '/nowhere/run', source: 'curated', seed: 0, configs: null };
  const files = ['/somewhere/my-configs.json'];
  await t.client.workflow.execute(runPipeline, { taskQueue: queues.default, workflowId: `cf-${queues.prefix}`, args: [{ queues, ...base, configFiles: files }] });
  assert.deepEqual((r.plans[0] as { configFiles: string[] }).configFiles, files);
  assert.deepEqual((r.scores[0] as { configFiles: string[] }).configFiles, files);
  await t.client.workflow.execute(runPipeline, { taskQueue: queues.default, workflowId: `cf0-${queues.prefix}`, args: [{ queues, ...base }] });
  assert.deepEqual((r.plans[1] as { configFiles: string[] }).configFiles, []);
  assert.equal('configFiles' in (r.scores[1] as object), false, 'the score attempt identity of a run without files is unchanged');
});

test('the workflow id changes only when registry files are given', () => {
  const base = { runId: 'x', runDir: '/r/x', source: 'curated', seed: 0, configs: null };
  // The id of a run without --config-file, as computed before the option existed (must stay stable: reruns attach).
  assert.equal(pipelineWorkflowId(base), 'run-x-f92cd8a591e6');
  assert.equal(pipelineWorkflowId(base), pipelineWorkflowId({ ...base, configFiles: undefined }));
  assert.notEqual(pipelineWorkflowId({ ...base, configFiles: ['/a.json'] }), pipelineWorkflowId(base));
  assert.notEqual(pipelineWorkflowId({ ...base, configFiles: ['/a.json'] }), pipelineWorkflowId({ ...base, configFiles: ['/b.json'] }));
});
