/**
 * Scale-out of the build (issue 23): `run --until build --no-worker` of a source with 1, 2, 3 exec workers, each in
 * a mount namespace of its own (no shared folder: test/temporal/namespacedWorker.ts; needs root), one dev server,
 * cold caches each time. Prints per worker count: wall time, rounds, executions, history events (every run of the
 * workflow, continue-as-new included) and events per 1,000 executions, executions per worker (from the history:
 * each exec batch's worker identity and the executions its result reports as run), and the ratio of wall times
 * against one worker measured in the same invocation; checks that every count gives byte-identical queries and
 * corpus. MBPP: `--source mbpp` (the CLI, outside the namespaces, reads it; the workers need no source).
 * Run: node --import tsx bench/scale-out.ts [--source curated|mbpp|PATH] [--workers 1,2,3]
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { startTestTemporal } from '../test/support/temporal.ts';
import { spawnNamespacedWorker } from '../test/temporal/namespacedWorker.ts';
import { freshState, startCli } from '../test/temporal/pipelineSupport.ts';

const { values } = parseArgs({ options: { source: { type: 'string', default: 'curated' }, workers: { type: 'string', default: '1,2,3' } } });
const counts = values.workers!.split(',').map(Number);
const tmp = mkdtempSync(join(tmpdir(), 'scale-out-'));
const t = await startTestTemporal();
const rows: { workers: number; wall_s: number; rounds: number; executions: number; events: number; runs: number; perWorker: number[]; load: string }[] = [];

type HistoryEvent = Record<string, { activityType?: { name?: string }; scheduledEventId?: unknown; identity?: string; result?: { payloads?: unknown[] } } | undefined> & { eventId?: unknown };

/**
 * Executions run per exec worker, over every run of the workflow: each pipelineExecuteBatch's started event names
 * the worker that took it (its identity, pid@host), and its completed event's result says how many it ran.
 * Only the attempt that completed counts (a batch retried after a killed worker is paid where it finished).
 */
async function executionsPerWorker(client: Client, workflowId: string): Promise<Map<string, number>> {
  const per = new Map<string, number>();
  for await (const w of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const { events } = await client.workflow.getHandle(workflowId, w.runId).fetchHistory();
    const batches = new Set<string>();
    const worker = new Map<string, string>();
    for (const e of (events ?? []) as HistoryEvent[]) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === 'pipelineExecuteBatch') batches.add(String(e.eventId));
      const started = e.activityTaskStartedEventAttributes;
      if (started && batches.has(String(started.scheduledEventId))) worker.set(String(started.scheduledEventId), started.identity ?? '?');
      const completed = e.activityTaskCompletedEventAttributes;
      if (completed && batches.has(String(completed.scheduledEventId))) {
        const result = defaultPayloadConverter.fromPayload<{ run: number }>(completed.result!.payloads![0] as Parameters<typeof defaultPayloadConverter.fromPayload>[0]);
        const who = worker.get(String(completed.scheduledEventId)) ?? '?';
        per.set(who, (per.get(who) ?? 0) + result.run);
      }
    }
  }
  return per;
}
let release: string | null = null;
try {
  for (const n of counts) {
    // `run` serves and starts on the default queues; the previous count's workers are gone by now.
    const prefix = 'execretrieval';
    const dir = join(tmp, `w${n}`);
    const state = freshState(join(dir, 'state'));
    const workers = await Promise.all(Array.from({ length: n }, () => spawnNamespacedWorker(t, { prefix, queues: 'default,exec', hide: [tmp] })));
    const load0 = loadavg()[0];
    const t0 = performance.now();
    const cli = startCli(['run', '--source', values.source!, '--id', join(dir, 'run'), '--until', 'build', '--no-worker'], { EXECRETRIEVAL_STATE_DIR: state, TEMPORAL_ADDRESS: t.address });
    const end = await cli.done;
    const wall = (performance.now() - t0) / 1000;
    await Promise.all(workers.map((w) => new Promise((r) => (w.once('exit', r), w.kill('SIGKILL')))));
    if (end.code !== 0) throw new Error(`${n} worker(s): exit ${end.code}\n${cli.stderr().slice(-3000)}`);
    const manifest = JSON.parse(readFileSync(join(dir, 'run', 'manifest.json'), 'utf8'));
    const b = manifest.stages.build;
    const per = await executionsPerWorker(t.client, manifest.workflow_id);
    let events = 0;
    let runs = 0;
    for await (const w of t.client.workflow.list({ query: `WorkflowId = '${manifest.workflow_id}'` })) {
      events += w.historyLength;
      runs++;
    }
    const bytes = ['queries.jsonl', 'corpus.jsonl'].map((f) => readFileSync(join(dir, 'run', 'benchmark', f), 'utf8')).join('\u0000');
    if (release !== null && bytes !== release) throw new Error(`${n} worker(s): queries/corpus differ from the first count's`);
    release = bytes;
    rows.push({ workers: n, wall_s: wall, rounds: b.rounds, executions: b.executions.run, events, runs, perWorker: [...per.values()].sort((a, c) => c - a), load: `${load0.toFixed(1)}→${loadavg()[0].toFixed(1)}` });
    process.stderr.write(`${n} worker(s): ${wall.toFixed(1)} s\n`);
  }
} finally {
  await t.stop();
  rmSync(tmp, { recursive: true, force: true });
}
const base = rows[0]?.wall_s ?? 1;
const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);
const [queries, corpus] = (release ?? '\u0000').split('\u0000');
console.log(`source ${values.source}: queries (${sha(queries)}…) and corpus (${sha(corpus)}…) byte-identical across ${rows.map((r) => r.workers).join(', ')} worker(s)`);
console.log('workers  wall_s  vs_1  rounds  executions  history_events  runs  events/1000 exec  per worker  load');
for (const r of rows) {
  console.log(`${String(r.workers).padStart(7)}  ${r.wall_s.toFixed(1).padStart(6)}  ${(base / r.wall_s).toFixed(2).padStart(4)}  ${String(r.rounds).padStart(6)}  ${String(r.executions).padStart(10)}  ${String(r.events).padStart(14)}  ${String(r.runs).padStart(4)}  ${(r.events / Math.max(1, r.executions) * 1000).toFixed(0).padStart(16)}  ${r.perWorker.join('/').padStart(10)}  ${r.load}`);
}
