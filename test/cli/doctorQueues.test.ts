// `doctor` on a worker machine: which queues it can serve and what it lacks (issue 23), and whether the cluster
// configured (TEMPORAL_ADDRESS) answers, and if not, what was tried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { clusterCheck, queueChecks } from '../../activities/doctor/queues.ts';
import { loadClusterSettings } from '../../infra/temporal/cluster.ts';
import type { Check } from '../../activities/doctor/checks.ts';

const check = (name: string, status: Check['status'], detail: string): Check => ({ area: 'x', name, status, detail });

test('queues: a machine with Python and the sandbox serves default and exec; without models or keys, embed and llm say what they lack', () => {
  const here = [check('python', 'ok', '/usr/bin/python3 (3.11.2)'), check('layers', 'ok', 'in force: view, landlock; uid 1000')];
  const by = Object.fromEntries(queueChecks(here, [], []).map((c) => [c.name, c]));
  assert.deepEqual(Object.keys(by), ['default', 'exec', 'embed', 'llm']);
  assert.equal(by.default.status, 'ok');
  assert.equal(by.exec.status, 'ok');
  assert.match(by.exec.detail, /in force: view, landlock/);
  assert.equal(by.embed.status, 'warn');
  assert.match(by.embed.detail, /lacks every embedding configuration/);
  assert.equal(by.llm.status, 'warn');

  const served = Object.fromEntries(queueChecks(here, ['local-all-minilm-l6-v2'], ['OPENAI_API_KEY']).map((c) => [c.name, c]));
  assert.equal(served.embed.status, 'ok');
  assert.match(served.embed.detail, /1 embedding configuration\(s\): local-all-minilm-l6-v2/);
  assert.match(served.llm.detail, /OPENAI_API_KEY/);
});

test('queues: no Python or no fork server: exec fails naming what it lacks, default serves workflows only', () => {
  const broken = [check('python', 'fail', 'spawn python3 ENOENT'), check('fork server', 'fail', 'sandbox did not start')];
  const by = Object.fromEntries(queueChecks(broken, [], []).map((c) => [c.name, c]));
  assert.equal(by.exec.status, 'fail');
  assert.equal(by.exec.detail, 'lacks python: spawn python3 ENOENT; fork server: sandbox did not start');
  assert.equal(by.default.status, 'fail');
  assert.match(by.default.detail, /^workflows only; lacks python/);
});

test('cluster: an address where nothing listens fails with what it tried (address, namespace, security, source) and the fix', async () => {
  const server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  const gone = await clusterCheck(loadClusterSettings({ TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_NAMESPACE: 'ns1' }));
  assert.equal(gone.status, 'fail');
  assert.match(gone.detail, new RegExp(`^cannot reach Temporal at 127\\.0\\.0\\.1:${port}/ns1 \\(plaintext; TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE\\): .+`));
  assert.doesNotMatch(gone.detail, /\n/);
  assert.match(gone.fix!, /temporal\.toml profile or TEMPORAL_\* variables/);
});
