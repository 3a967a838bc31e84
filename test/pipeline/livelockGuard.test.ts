/**
 * A stage whose attempts never see the verdicts the exec queue returned must stop with one InfraFault line, not
 * loop round after round (issue 23: with separate caches, misses went 100 -> 48 -> 76 -> 328 -> ... and the run
 * was still in round 11 after 15 minutes; the guard compared only two consecutive rounds). The real workflow on a
 * real dev server; the coordinator's and exec worker's activities are stand-ins that script the rounds.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { runPipeline } from '../../workflows/runPipeline.ts';
import { exitCodeOf } from '../../cli/pipelineRun.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import type { ActivityProvider } from '../../workers/registry.ts';

let t: TestTemporal;
before(async () => {
  t = await startTestTemporal();
});
after(async () => {
  await t?.stop();
});

/** Stand-ins: the build attempt hands back the rounds in `rounds` (by hash) and then the first one again, forever. */
function scripted(rounds: string[]): { providers: ActivityProvider[]; attempts: () => number; batches: () => number } {
  let attempts = 0;
  let batches = 0;
  const pending = (sha256: string) => ({ file: `/nowhere/${sha256}.jsonl`, count: 2, sha256, batches: [[0, 10, 2]] });
  const coordinator = {
    pipelineBuildState: async () => ({ complete: false, exists: false, reason: 'no manifest' }),
    pipelineBuildAttempt: async () => ({ done: false, pending: pending(rounds[attempts++ % rounds.length]) }),
    pipelineExchange: async () => ({ requests: [] }),
    pipelineRecord: async () => undefined,
  };
  const exec = {
    pipelineSandboxLayers: async () => ({}),
    pipelineExecuteBatch: async () => (batches++, { run: 0, cached: 0, verdicts: [] }),
  };
  return {
    providers: [
      { queue: 'default', name: 'scripted-coordinator', create: () => ({ activities: coordinator }) },
      { queue: 'exec', name: 'scripted-exec', create: () => ({ activities: exec }) },
    ],
    attempts: () => attempts,
    batches: () => batches,
  };
}

test('a stage that asks again for an earlier round, not only the last, ends in one InfraFault line (exit 5)', async () => {
  const queues = t.uniqueQueues();
  const s = scripted(['a'.repeat(64), 'b'.repeat(64)]); // a, b, a: never the same twice in a row
  await t.startWorkers({ queues, keys: ['default', 'exec'], providers: s.providers });
  const run = t.client.workflow.execute(runPipeline, {
    taskQueue: queues.default,
    workflowId: `livelock-${queues.prefix}`,
    args: [{ queues, runId: 'x', runDir: '/nowhere/run', source: 'curated', seed: 0, configs: null, until: 'build' }],
  });
  const err = await run.then(() => null, (e: unknown) => e);
  assert.ok(err instanceof WorkflowFailedError, String(err));
  const { code, message } = exitCodeOf(err);
  assert.equal(code, EXIT_CODES.infra);
  assert.match(message, /^run stopped at build: build: round 3 asked again for the 2 executions of an earlier round after the exec queue ran them/);
  assert.equal(message.split('\n').length, 1);
  assert.equal(s.attempts(), 3, 'stopped at the first repeat');
  assert.equal(s.batches(), 2, 'the repeated round was not run again');
});
