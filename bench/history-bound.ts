/**
 * The history bound at scale (issue 23): a build of curated tasks copied under new ids (100 copies of the 100
 * curated tasks: 10,000 tasks, about 50,000 snippets) through the real workflow, the real coordinator (deferred
 * attempts, pending files, the exchange) and the real exec activity, whose oracle answers each copy with its
 * original's verdict from the sandbox's cache (test/pipeline/syntheticCopies.ts: the originals run once). One
 * process serves every queue, against one dev server. Prints: wall time, the workflow's runs (continue-as-new)
 * with each run's events and bytes, total events, executions (requested, run, cached, executed by the sandbox),
 * events per 1,000 executions, and this process's peak RSS. Exits 1 when a run's history passed the bound plus
 * the batches in flight.
 * Run: node --import tsx bench/history-bound.ts [--copies 100] [--originals 100] [--events 10000] [--bytes 8388608] [--batch-size 24] [--in-flight 256]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestTemporal } from '../test/support/temporal.ts';
import { originalsOracle, writeCopiedCurated } from '../test/pipeline/syntheticCopies.ts';
import { DEFAULT_BATCHES_IN_FLIGHT, HISTORY_BOUND, runPipeline } from '../workflows/runPipeline.ts';
import { createPipelineCoordinator, createPipelineExecActivities } from '../activities/pipeline/pipelineActivities.ts';
import { openOracle } from '../activities/exec/oracle.ts';
import type { ActivityProvider } from '../workers/registry.ts';

const { values } = parseArgs({
  options: {
    copies: { type: 'string', default: '100' }, originals: { type: 'string' },
    events: { type: 'string', default: String(HISTORY_BOUND.events) }, bytes: { type: 'string', default: String(HISTORY_BOUND.bytes) },
    'batch-size': { type: 'string', default: '24' }, 'in-flight': { type: 'string', default: String(DEFAULT_BATCHES_IN_FLIGHT) },
  },
});
const int = (name: string, v: string | undefined) => {
  const n = Number(v);
  if (!(Number.isInteger(n) && n >= 1)) throw new Error(`--${name}: expected an integer >= 1, got ${v}`);
  return n;
};
const copies = int('copies', values.copies);
const bound = { events: int('events', values.events), bytes: int('bytes', values.bytes) };
const batchSize = int('batch-size', values['batch-size']);
const inFlight = int('in-flight', values['in-flight']);

const tmp = mkdtempSync(join(tmpdir(), 'history-bound-'));
// The exec worker's own cache (its oracle's, where pipelineExecuteBatch records payments) in a state directory of
// this run's; the coordinator's authoritative cache is another file (another machine's): cold, so every request
// goes through the workflow and the exec queue.
process.env.EXECRETRIEVAL_STATE_DIR = join(tmp, 'exec-state');
const { file, tasks } = writeCopiedCurated(join(tmp, 'copies'), copies, values.originals === undefined ? undefined : int('originals', values.originals));
const t = await startTestTemporal();
const oracle = originalsOracle(await openOracle());
const coordinator = createPipelineCoordinator({ cachePath: join(tmp, 'coordinator-cache.sqlite') });
const providers: ActivityProvider[] = [
  { queue: 'default', name: 'coordinator', create: () => coordinator },
  { queue: 'exec', name: 'exec-copies', create: () => ({ activities: createPipelineExecActivities({ oracle: async () => oracle }) }) },
];
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 500);
const runDir = join(tmp, 'run');
const workflowId = `history-bound-${Date.now().toString(36)}`;
const load0 = loadavg()[0];
const t0 = performance.now();
let out: string;
try {
  const queues = t.uniqueQueues();
  const workers = await t.startWorkers({ queues, keys: ['default', 'exec'], providers });
  process.stderr.write(`${tasks} tasks (${copies} copies) in ${file}; bound ${bound.events} events / ${bound.bytes} B\n`);
  const progress = setInterval(() => process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(0)} s, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB\n`), 60_000);
  let result;
  try {
    result = await t.client.workflow.execute(runPipeline, {
      taskQueue: queues.default, workflowId,
      args: [{ queues, runId: 'history-bound', runDir, source: file, seed: 0, configs: null, until: 'build', batchSize, batchesInFlight: inFlight, historyBound: bound }],
    });
  } finally {
    clearInterval(progress);
  }
  const wall = (performance.now() - t0) / 1000;
  await workers.shutdown();
  await oracle.close();
  const runs: { events: number; bytes: number }[] = [];
  for await (const w of t.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push({ events: w.historyLength, bytes: w.historySize ?? 0 });
  const b = result.stages.build;
  const x = b.executions!;
  const counts = (b.output as { counts: Record<string, number> }).counts;
  const total = runs.reduce((s, r) => s + r.events, 0);
  const maxEvents = Math.max(...runs.map((r) => r.events));
  const maxBytes = Math.max(...runs.map((r) => r.bytes));
  const corpusLines = readFileSync(join(runDir, 'benchmark', 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  out = [
    `tasks ${tasks}, queries ${counts.queries}, corpus ${counts.corpus} snippets (corpus.jsonl ${corpusLines} lines), rounds ${b.rounds} (${b.resumed} continued)`,
    `wall ${wall.toFixed(1)} s, load ${load0.toFixed(1)}→${loadavg()[0].toFixed(1)}, peak rss ${(peakRss / 2 ** 20).toFixed(0)} MB`,
    `bound ${bound.events} events / ${(bound.bytes / 2 ** 20).toFixed(1)} MB, batch size ${batchSize}, in flight ${inFlight}`,
    `runs ${runs.length} (continued as new ${result.continued_as_new}): events ${runs.map((r) => r.events).join(', ')}`,
    `bytes per run ${runs.map((r) => r.bytes).join(', ')}`,
    `largest run ${maxEvents} events, ${(maxBytes / 2 ** 20).toFixed(2)} MB; total ${total} events`,
    `executions requested ${x.requested}, run ${x.run}, cached ${x.cached}; executed by the sandbox ${oracle.misses()}`,
    `history events per 1,000 executions ${(total / Math.max(1, x.requested) * 1000).toFixed(0)}`,
  ].join('\n');
  console.log(out);
  // The workflow's promise (runPipeline.ts HISTORY_BOUND): the bound plus the batches in flight finishing.
  if (maxEvents > bound.events + inFlight * 12 + 20) {
    console.log(`largest run ${maxEvents} events: over the bound plus the batches in flight`);
    process.exitCode = 1;
  }
} finally {
  clearInterval(sampler);
  await t.stop();
  rmSync(tmp, { recursive: true, force: true });
}
