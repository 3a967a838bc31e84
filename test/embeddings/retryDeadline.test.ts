/**
 * `embed --retry-deadline`: a hosted service that keeps failing ends its configuration when the next retry wait
 * would pass the deadline the user set (issue 37: every wait on a service has a deadline the user can set; a dead
 * service kept `embed` busy for minutes of backoff). The fault is real: an HTTP server that answers 503 to everything.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { writeTinyBenchmark } from './sweep-fixture.ts';
import { freshState, HOSTED, startCli } from '../temporal/pipelineSupport.ts';
import { pastRetryDeadline } from '../../core/embeddings/retryDelay.ts';

let t: TestTemporal;
let down: Server;
let requests = 0;
let tmp: string;
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'embed-retry-deadline-'));
  down = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down for maintenance"}');
  });
  await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
  t = await startTestTemporal();
});
after(async () => {
  await new Promise<void>((r) => down.close(() => r()));
  await t?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

test('the rule: a wait that would end past the deadline is not taken; no deadline, no limit', () => {
  const policy = { maxAttempts: 10, baseDelayMs: 1000, maxDelayMs: 60_000, maxRetryAfterMs: 600_000 };
  assert.equal(pastRetryDeadline(50_000, 60_000, policy), null);
  assert.equal(pastRetryDeadline(1_000, 1_000, { ...policy, maxRetryMs: 2_000 }), null); // ends exactly at it
  assert.match(pastRetryDeadline(1_500, 600, { ...policy, maxRetryMs: 2_000 })!, /still failing after 1\.5 s, the next try would pass the retry deadline of 2 s \(--retry-deadline\)/);
});

test('embed --retry-deadline 2s: a service answering 503 fails its configuration in seconds (exit 1), the report says why', { timeout: 120_000 }, async () => {
  const runDir = join(tmp, 'runs', 'down');
  writeTinyBenchmark(runDir, 4);
  const url = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
  const t0 = Date.now();
  const cli = startCli(['embed', '--run', runDir, '--configs', HOSTED, '--retry-deadline', '2s'], {
    TEMPORAL_ADDRESS: t.address, TEMPORAL_NAMESPACE: t.namespace, EXECRETRIEVAL_STATE_DIR: freshState(join(tmp, 'state')), EXECRETRIEVAL_EMBED_BASE_URL: url,
  });
  const { code } = await cli.done;
  const waited = Date.now() - t0;
  assert.equal(code, 1, cli.stderr());
  assert.ok(requests >= 1, 'the service was tried');
  const report = JSON.parse(readFileSync(join(runDir, 'embeddings', 'report.json'), 'utf8')) as { configs: { config_id: string; status: string; reason: string }[] };
  const r = report.configs.find((x) => x.config_id === HOSTED)!;
  assert.equal(r.status, 'failed');
  assert.match(r.reason, /503/);
  assert.match(r.reason, /retry deadline of 2 s \(--retry-deadline\)/);
  // The default policy (10 tries, backoff doubling from 1 s) waits minutes; 2 s of retries plus start-up is well under one.
  assert.ok(waited < 60_000, `${waited} ms`);
});

test('--retry-deadline that is not a duration: one line, exit 2, before any work', async () => {
  const cli = startCli(['embed', '--run', join(tmp, 'runs', 'down'), '--retry-deadline', 'soon'], {});
  const { code } = await cli.done;
  assert.equal(code, 2);
  assert.match(cli.stderr().trim(), /^error: --retry-deadline: "soon" is not a positive duration/);
  assert.equal(cli.stderr().trim().split('\n').length, 1);
});
