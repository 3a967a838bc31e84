/**
 * OpenTelemetry tracing through the SDK's interceptors (infra/temporal/tracing.ts), configured only by the standard
 * OTEL_* variables: a small run (an embed sweep against the fake provider) whose workflows and sends a separate
 * worker process serves exports, to a real OTLP/HTTP receiver written here, the CLI's StartWorkflow span and the
 * worker's workflow and activity spans in one trace, each workflow span the child of the span that started it.
 * No variables: no tracing. A variable naming an exporter this tool lacks: one line, exit 2.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startTestTemporal, waitForLine, type TestTemporal } from '../support/temporal.ts';
import { writeTinyBenchmark } from '../embeddings/sweep-fixture.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { FAKE_DIMS, freshState, HOSTED } from './pipelineSupport.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { tracesExporter, workflowTracingModules } from '../../infra/temporal/tracing.ts';
import { StopError } from '../../activities/faults.ts';

interface Span { service: string; name: string; traceId: string; spanId: string; parentSpanId: string }

let t: TestTemporal;
let tmp: string;
let state: string;
let fake: FakeEmbeddingServer;
let receiver: Server;
let endpoint: string;
const spans: Span[] = [];
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'tracing-'));
  state = freshState(join(tmp, 'state'));
  [t, fake] = await Promise.all([startTestTemporal(), startFakeEmbeddingServer(FAKE_DIMS)]);
  // An OTLP/HTTP receiver as a collector is one: POST /v1/traces with an ExportTraceServiceRequest in JSON.
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      assert.equal(req.url, '/v1/traces');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: Omit<Span, 'service'>[] }[] }[];
      };
      for (const rs of body.resourceSpans) {
        const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ service, name: s.name, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '' });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
after(async () => {
  await fake?.close();
  await t?.stop();
  receiver?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const env = (service: string): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: t.address, TEMPORAL_NAMESPACE: t.namespace, EXECRETRIEVAL_STATE_DIR: state, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: service };
  for (const k of ['EXECRETRIEVAL_METRICS_ADDRESS', 'EXECRETRIEVAL_EMBED_CACHE', 'OTEL_TRACES_EXPORTER', 'OTEL_SDK_DISABLED', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) delete e[k];
  return e;
};

test('an exporter configured: the CLI\'s, the workflows\' and the activities\' spans, from two processes, in one trace', async () => {
  // The worker bundles its workflows itself: the tracing interceptors are bundled only when tracing is on.
  const worker = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'workers', 'all.ts'), '--queues', 'default,embed'], {
    cwd: PROJECT_ROOT, env: { ...env('test-worker'), EXECRETRIEVAL_EMBED_BASE_URL: fake.baseUrls.openai }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    await waitForLine(worker, /worker ready/, 180_000);
    const runDir = join(tmp, 'runs', 'traced');
    writeTinyBenchmark(runDir, 4);
    const cli = await new Promise<{ code: number | null; stderr: string }>((res) => {
      const c = execFile(process.execPath, [join(PROJECT_ROOT, 'bin', 'execretrieval.js'), 'embed', '--run', runDir, '--configs', HOSTED, '--no-worker'], { cwd: PROJECT_ROOT, env: { ...env('test-cli'), EXECRETRIEVAL_EMBED_BASE_URL: '' }, timeout: 240_000 }, (_e, _o, stderr) => res({ code: c.exitCode, stderr }));
    });
    assert.equal(cli.code, 0, cli.stderr);
  } finally {
    // A graceful stop sends what the worker still buffers.
    worker.kill('SIGTERM');
    await once(worker, 'exit');
  }
  const starts = spans.filter((s) => s.service === 'test-cli' && s.name.startsWith('StartWorkflow:'));
  assert.ok(starts.length >= 1, `a StartWorkflow span from the CLI among ${spans.map((s) => `${s.service}/${s.name}`).join(', ')}`);
  const trace = starts[0].traceId;
  const inTrace = spans.filter((s) => s.traceId === trace);
  const fromWorker = inTrace.filter((s) => s.service === 'test-worker');
  const run = fromWorker.find((s) => s.name.startsWith('RunWorkflow:') && s.parentSpanId === starts[0].spanId);
  assert.ok(run, `the worker's RunWorkflow span is the child of the CLI's StartWorkflow span: ${fromWorker.map((s) => s.name).join(', ')}`);
  const activities = fromWorker.filter((s) => s.name.startsWith('RunActivity:'));
  assert.ok(activities.length >= 1, 'the activities run on the worker are in the trace');
  const ids = new Set(inTrace.map((s) => s.spanId));
  for (const a of activities) assert.ok(ids.has(a.parentSpanId), `${a.name}'s parent (a workflow's StartActivity span) is in the trace`);
  assert.ok(fromWorker.some((s) => s.name.startsWith('StartActivity:')), 'the workflow\'s own spans came through the sandbox\'s sink');
});

test('no exporter configured: tracing is off and nothing is bundled for it; a bad variable is a usage error', () => {
  assert.equal(tracesExporter({}), null);
  assert.deepEqual(workflowTracingModules({}), []);
  assert.equal(tracesExporter({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' }), null);
  assert.equal(tracesExporter({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' }), null);
  assert.equal(tracesExporter({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x:4318/v1/traces' }), 'otlp');
  assert.equal(tracesExporter({ OTEL_TRACES_EXPORTER: 'console' }), 'console');
  assert.equal(workflowTracingModules({ OTEL_TRACES_EXPORTER: 'console' }).length, 1);
  assert.throws(() => tracesExporter({ OTEL_TRACES_EXPORTER: 'zipkin' }), (e: unknown) => e instanceof StopError && e.exitCode === 2 && /OTEL_TRACES_EXPORTER=zipkin/.test(e.message));
  assert.throws(() => tracesExporter({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4317', OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), (e: unknown) => e instanceof StopError && e.exitCode === 2);
});

test('a worker given an exporter this tool lacks: one line, exit 2, nothing started', async () => {
  const r = await new Promise<{ code: number | null; stderr: string }>((res) => {
    const c = execFile(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'workers', 'all.ts'), '--queues', 'embed'], { cwd: PROJECT_ROOT, env: { ...env('x'), OTEL_TRACES_EXPORTER: 'zipkin' }, timeout: 120_000 }, (_e, _o, stderr) => res({ code: c.exitCode, stderr }));
  });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^worker: OTEL_TRACES_EXPORTER=zipkin: /);
});
