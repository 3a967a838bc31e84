/**
 * A worker process of bench/scale.ts: every queue (default, exec, embed) with the registry's activities, except
 * that the exec queue's oracle answers a copy's request with its original's verdict (test/pipeline/syntheticCopies.ts:
 * the suffix stripped, then the real oracle, sandbox and cache), so MBPP copied 20x runs MBPP's programs once.
 * That oracle's cache is --originals-cache, one SQLite file both of the bench's workers use: the verdicts the bench
 * lends, not the pipeline's state (each worker's own exec cache and everything else stay in its state directory).
 * After each call into the oracle it writes `{ requests, misses }` to the --stats file (misses: requests the real
 * oracle had to execute, not found in this worker's cache), which the bench reads per stage.
 * Run (by the bench): node --import tsx bench/scale-worker.ts --prefix P --address A --namespace N --workflow-bundle FILE --stats FILE --originals-cache FILE
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { NativeConnection } from '@temporalio/worker';
import { taskQueues } from '../temporal.config.ts';
import { ACTIVITY_PROVIDERS, type ActivityProvider } from '../workers/registry.ts';
import { quietRuntime, startWorkers } from '../workers/run.ts';
import { openOracle } from '../activities/exec/oracle.ts';
import { createPipelineExecActivities } from '../activities/pipeline/pipelineActivities.ts';
import type { Oracle } from '../activities/exec/types.ts';
import { originalsOracle } from '../test/pipeline/syntheticCopies.ts';

const { values } = parseArgs({
  options: {
    prefix: { type: 'string' }, address: { type: 'string' }, namespace: { type: 'string' }, 'workflow-bundle': { type: 'string' }, stats: { type: 'string' },
    'originals-cache': { type: 'string' },
  },
});
for (const k of ['prefix', 'address', 'namespace', 'workflow-bundle', 'stats', 'originals-cache'] as const) if (!values[k]) throw new Error(`scale-worker: --${k} is required`);

let requests = 0;
/** The copies' oracle, opened on first use, its counts written after every call. */
let opened: Promise<Oracle & { misses: () => number }> | null = null;
const open = () => (opened ??= openOracle({ cachePath: values['originals-cache'] }).then((inner) => {
  const o = originalsOracle(inner);
  const record = () => writeFileSync(values.stats!, JSON.stringify({ requests, misses: o.misses() }));
  return {
    ...o,
    run: async (req) => ((requests += 1), await o.run(req).finally(record)),
    runMany: async (reqs, opts) => ((requests += reqs.length), await o.runMany(reqs, opts).finally(record)),
  };
}));
const copies: ActivityProvider = {
  queue: 'exec',
  name: 'exec-copies',
  create: () => ({ activities: createPipelineExecActivities({ oracle: open }), close: async () => (await opened)?.close() }),
};
// The registry's own exec provider would open a second oracle (a second sandbox pool) that nothing here calls.
const providers = [...ACTIVITY_PROVIDERS.filter((p) => p.name !== 'generation:exec'), copies];

quietRuntime();
const connection = await NativeConnection.connect({ address: values.address! });
const running = await startWorkers({
  connection, namespace: values.namespace!, queues: taskQueues(values.prefix), keys: ['default', 'exec', 'embed'], providers,
  workflowBundle: { codePath: values['workflow-bundle']! },
});
process.once('SIGTERM', () => void running.shutdown());
console.error(`worker ready (pid ${process.pid})`);
await running.done;
await connection.close();
