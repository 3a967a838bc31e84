/**
 * Pipelined build rounds (issue 39 item 3): a task's next candidates go to the exec queue as soon as its own
 * verdicts are stored, not when the slowest batch of the round is done. The real workflow, the real coordinator
 * (buildBenchmark under the deferring oracle, pending files, the exchange and the harvest into a cache of its own)
 * and the real exec activity over the real sandbox, on curated tasks, built three ways from cold caches:
 *   pipelined  the coordinator as it is (its attempts are kept suspended and streamed)
 *   barriers   the same coordinator with the stream token withheld, so the workflow waits for every batch of a
 *              round before the next attempt (the build as it was before pipelining)
 *   in-process buildBenchmark on the sandbox oracle directly (no workflow, no deferring): the independent expectation
 * Every file under the output folders must be byte-identical (timings.json aside: where the time went), and the
 * pipelined build must wait at fewer barriers, with every request it handed out executed once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { runPipeline, type RunPipelineResult } from '../../workflows/runPipeline.ts';
import { createPipelineCoordinator, createPipelineExecActivities, type BuildStageInput } from '../../activities/pipeline/pipelineActivities.ts';
import { openOracle } from '../../activities/exec/oracle.ts';
import { buildBenchmark } from '../../activities/benchmark/build.ts';
import { runGate } from '../../activities/gate/gate.ts';
import type { ActivityProvider } from '../../workers/registry.ts';
import { writeCopiedCurated } from './syntheticCopies.ts';

let t: TestTemporal;
let state: string;
before(async () => {
  // The exec worker records its payments in the state directory's cache: a fresh one, never the checkout's.
  state = mkdtempSync(join(tmpdir(), 'pipelined-rounds-'));
  process.env.EXECRETRIEVAL_STATE_DIR = state;
  t = await startTestTemporal();
});
after(async () => {
  await t?.stop();
  rmSync(state, { recursive: true, force: true });
});

const TASKS = 10;

/** Every file under `dir` (but timings.json) with its sha256. */
function filesUnder(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).filter((f) => f !== 'timings.json').sort().map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')]));
}

/** One cold build through the workflow, with caches of its own; `barriers` withholds the stream token. */
async function pipelineBuild(name: string, source: string, barriers: boolean): Promise<{ result: RunPipelineResult; out: string }> {
  const dir = join(t.tmp, name);
  const oracle = await openOracle({ concurrency: 2, cachePath: join(dir, 'exec-worker.sqlite') });
  const coordinator = createPipelineCoordinator({ cachePath: join(dir, 'coordinator.sqlite') });
  const activities = barriers
    ? {
        ...coordinator.activities,
        pipelineBuildAttempt: async (i: BuildStageInput) => {
          const got = await coordinator.activities.pipelineBuildAttempt(i);
          if (!got.done) delete got.stream;
          return got;
        },
      }
    : coordinator.activities;
  const providers: ActivityProvider[] = [
    { queue: 'default', name: `coordinator-${name}`, create: () => ({ activities, close: coordinator.close }) },
    { queue: 'exec', name: `exec-${name}`, create: () => ({ activities: createPipelineExecActivities({ oracle: async () => oracle }) }) },
  ];
  const queues = t.uniqueQueues();
  const workers = await t.startWorkers({ queues, keys: ['default', 'exec'], providers });
  const runDir = join(dir, 'run');
  try {
    const result = await t.client.workflow.execute(runPipeline, {
      taskQueue: queues.default, workflowId: `pipelined-${name}-${queues.prefix}`,
      args: [{ queues, runId: name, runDir, source, seed: 0, configs: null, until: 'build', batchSize: 4 }],
    });
    return { result, out: join(runDir, 'benchmark') };
  } finally {
    await workers.shutdown();
    await oracle.close();
  }
}

test(`a pipelined build of ${TASKS} curated tasks waits at fewer barriers and writes the same files as the barrier build and the in-process build`, async (ctx) => {
  const { file } = writeCopiedCurated(join(t.tmp, 'source'), 1, TASKS);

  const pipelined = await pipelineBuild('pipelined', file, false);
  const barriers = await pipelineBuild('barriers', file, true);
  const reference = join(t.tmp, 'in-process');
  const oracle = await openOracle({ concurrency: 2, cachePath: join(t.tmp, 'in-process.sqlite') });
  try {
    await buildBenchmark({ source: file, out: reference, seed: 0, oracle, gate: runGate });
  } finally {
    await oracle.close();
  }

  const expected = filesUnder(reference);
  assert.ok(Object.keys(expected).includes('corpus.jsonl') && Object.keys(expected).includes('manifest.json'), Object.keys(expected).join(', '));
  assert.deepEqual(filesUnder(pipelined.out), expected, 'pipelined build = in-process build');
  assert.deepEqual(filesUnder(barriers.out), expected, 'barrier build = in-process build');
  const queries = readFileSync(join(reference, 'queries.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  assert.ok(queries >= TASKS - 2, `${queries} queries`);

  const p = pipelined.result.stages.build;
  const b = barriers.result.stages.build;
  ctx.diagnostic(`rounds: pipelined ${p.rounds} (harvests ${p.harvests}), barriers ${b.rounds}; executions ${JSON.stringify(p.executions)} / ${JSON.stringify(b.executions)}`);
  assert.ok(b.rounds! >= 4, `the barrier build took ${b.rounds} rounds`);
  assert.ok(p.rounds! < b.rounds!, `pipelined ${p.rounds} rounds, barriers ${b.rounds}`);
  assert.ok((p.harvests ?? 0) > 0, 'misses were handed out between attempts');
  assert.equal(b.harvests, undefined);
  // The same requests, each executed once (the exec worker's cache was cold: nothing answered from it).
  assert.deepEqual(p.executions, b.executions);
  assert.equal(p.executions!.cached, 0);
  assert.equal(p.executions!.requested, p.executions!.run);
});
