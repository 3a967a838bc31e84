/**
 * A worker and the CLI reach a secured cluster configured only through Temporal's own environment configuration
 * (a temporal.toml profile named by TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE, no TEMPORAL_ADDRESS): one front of
 * the dev server that requires a client certificate (mTLS) and one that requires an API key, each with a good
 * credential (an embed sweep runs through it end to end: the worker serves, the CLI coordinates) and a bad one
 * (one line, exit 5, no workflow started, no worker polling). doctor says what it reached and why it could not.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestTemporal, waitForLine, type TestTemporal } from '../support/temporal.ts';
import { makePki, startGrpcFront, type GrpcFront, type Pki } from '../support/grpcFront.ts';
import { writeTinyBenchmark } from '../embeddings/sweep-fixture.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { clusterCheck } from '../../activities/doctor/queues.ts';
import { loadClusterSettings } from '../../infra/temporal/cluster.ts';
import { freshState } from './pipelineSupport.ts';

const KEY = 'good-api-key-0123456789';
let t: TestTemporal;
let tmp: string;
let pki: Pki;
let mtls: GrpcFront;
let keyed: GrpcFront;
let profiles: string;
let bundle: string;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'secured-cluster-'));
  pki = makePki(tmp);
  t = await startTestTemporal();
  [mtls, keyed] = await Promise.all([
    startGrpcFront({ upstream: t.address, pki, requireClientCert: true }),
    startGrpcFront({ upstream: t.address, pki, apiKey: KEY }),
  ]);
  const tls = (cert?: string, key?: string) => [
    `server_ca_cert_path = "${pki.ca}"`, 'server_name = "temporal.test"',
    ...(cert ? [`client_cert_path = "${cert}"`, `client_key_path = "${key}"`] : []),
  ].join('\n');
  profiles = join(tmp, 'temporal.toml');
  writeFileSync(profiles, [
    '[profile.mtls]', `address = "${mtls.address}"`, `namespace = "${t.namespace}"`, '[profile.mtls.tls]', tls(pki.clientCert, pki.clientKey),
    '[profile.mtls-stranger]', `address = "${mtls.address}"`, `namespace = "${t.namespace}"`, '[profile.mtls-stranger.tls]', tls(pki.strangerCert, pki.strangerKey),
    '[profile.cloud]', `address = "${keyed.address}"`, `namespace = "${t.namespace}"`, `api_key = "${KEY}"`, '[profile.cloud.tls]', tls(),
    '[profile.cloud-badkey]', `address = "${keyed.address}"`, `namespace = "${t.namespace}"`, 'api_key = "not-the-key"', '[profile.cloud-badkey.tls]', tls(),
  ].join('\n') + '\n');
  bundle = join(tmp, 'workflow-bundle.js');
  writeFileSync(bundle, (await t.bundle()).code);
});
after(async () => {
  await Promise.all([mtls?.close(), keyed?.close()]);
  await t?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** Only the profile file and its name: no TEMPORAL_ADDRESS, no TEMPORAL_NAMESPACE. */
function profileEnv(profile: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_CONFIG_FILE: profiles, TEMPORAL_PROFILE: profile, EXECRETRIEVAL_STATE_DIR: freshState(join(tmp, `state-${profile}`)) };
  for (const k of Object.keys(env)) if (/^TEMPORAL_(ADDRESS|NAMESPACE|API_KEY|TLS)/.test(k)) delete env[k];
  delete env.EXECRETRIEVAL_EMBED_CACHE;
  return env;
}

/** Run to its end without blocking this process (the fronts answer from its event loop): status and stderr. */
function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stderr: string }> {
  return new Promise((res) => {
    const child = execFile(process.execPath, args, { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 240_000, maxBuffer: 16 << 20 }, (_err, _out, stderr) => res({ status: child.exitCode, stderr }));
  });
}

const cliArgs = (runDir: string) => [join(PROJECT_ROOT, 'bin', 'execretrieval.js'), 'embed', '--run', runDir, '--configs', 'bm25', '--no-worker'];
const workerArgs = ['--import', 'tsx', join(PROJECT_ROOT, 'workers', 'all.ts'), '--queues', 'default,embed', '--workflow-bundle'];

async function openWorkflows(): Promise<number> {
  let n = 0;
  for await (const _ of t.client.workflow.list({ query: 'ExecutionStatus="Running"' })) n++;
  return n;
}

async function goodCredential(profile: string, front: GrpcFront, security: RegExp) {
  const env = profileEnv(profile);
  const worker = spawn(process.execPath, [...workerArgs, bundle], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const ready = await waitForLine(worker, /worker ready/, 120_000);
    assert.match(ready, new RegExp(`on ${front.address.replace(/\./g, '\\.')}/${t.namespace} \\(`));
    assert.match(ready, security);
    const runDir = join(tmp, 'runs', profile);
    writeTinyBenchmark(runDir, 4);
    const cli = await runChild(cliArgs(runDir), env);
    assert.equal(cli.status, 0, cli.stderr);
    assert.ok(existsSync(join(runDir, 'embeddings', 'bm25')) || existsSync(join(runDir, 'embeddings', 'report.json')), 'the sweep wrote its outputs');
    assert.ok(front.forwarded > 0, 'the calls went through the front');
  } finally {
    worker.kill('SIGKILL');
  }
  const doctor = await clusterCheck(loadClusterSettings(env));
  assert.equal(doctor.status, 'ok', doctor.detail);
  assert.match(doctor.detail, new RegExp(`^connected to ${front.address.replace(/\./g, '\\.')}/${t.namespace} \\(`));
  assert.match(doctor.detail, security);
  assert.match(doctor.detail, new RegExp(`profile ${profile} of ${profiles.replace(/[.]/g, '\\.')}`));
}

async function badCredential(profile: string, reason: RegExp) {
  const env = profileEnv(profile);
  const before = await openWorkflows();
  const runDir = join(tmp, 'runs', profile);
  writeTinyBenchmark(runDir, 4);
  const cli = await runChild(cliArgs(runDir), env);
  assert.equal(cli.status, 5, cli.stderr);
  const lines = cli.stderr.trim().split('\n');
  assert.equal(lines.length, 1, cli.stderr);
  assert.match(lines[0], /cannot reach Temporal at 127\.0\.0\.1:\d+\//);
  assert.match(lines[0], reason);
  assert.equal(existsSync(join(runDir, 'embeddings', 'report.json')), false);

  const worker = await runChild([...workerArgs, bundle], env);
  assert.equal(worker.status, 5, worker.stderr);
  assert.equal(worker.stderr.trim().split('\n').length, 1, worker.stderr);
  assert.match(worker.stderr, /^worker: cannot reach Temporal at /);
  assert.match(worker.stderr, reason, 'the worker says why, as the CLI does');
  assert.equal(await openWorkflows(), before, 'no workflow was started');

  const doctor = await clusterCheck(loadClusterSettings(env));
  assert.equal(doctor.status, 'fail');
  assert.match(doctor.detail, /^cannot reach Temporal at /);
  return lines[0];
}

test('mTLS: a worker and the CLI reach the cluster with the CA-signed client certificate from the profile; a stranger\'s certificate: one line, exit 5, nothing started', async () => {
  await goodCredential('mtls', mtls, /mTLS \(client certificate\)/);
  // The handshake's refusal, in milliseconds, not the client's "Failed to connect before the deadline" after 15 s.
  await badCredential('mtls-stranger', /TLS: .*did not accept the client certificate/);
});

test('API key: a worker and the CLI reach the cluster with the profile\'s key over TLS; a wrong key: one line naming the refusal, exit 5, nothing started', async () => {
  await goodCredential('cloud', keyed, /TLS \+ API key/);
  const refusedBefore = keyed.refused;
  const line = await badCredential('cloud-badkey', /invalid API key/);
  assert.ok(keyed.refused > refusedBefore);
  assert.doesNotMatch(line, /not-the-key/, 'the key is never printed');
});
