/**
 * A worker process that shares nothing with this machine's runs but the Temporal service: `unshare -m` (root) gives
 * it a mount namespace of its own, where a private tmpfs covers the checkout's `runs/` and `.execretrieval/` (with
 * the local models bound in read-only and the bootstrap's python.json copied, as a worker machine's own bootstrap
 * would leave them) and each folder in `hide` (the test's run and state directories). What it writes there is gone
 * with it, and it cannot read the coordinator's files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { waitForLine, type TestTemporal } from '../support/temporal.ts';

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export async function spawnNamespacedWorker(t: TestTemporal, o: { prefix: string; queues: string; hide: string[]; env?: Record<string, string> }): Promise<ChildProcess> {
  const bundle = join(t.tmp, 'workflow-bundle.js');
  if (!existsSync(bundle)) writeFileSync(bundle, (await t.bundle()).code);
  const state = join(PROJECT_ROOT, '.execretrieval');
  const runs = join(PROJECT_ROOT, 'runs');
  mkdirSync(runs, { recursive: true });
  mkdirSync(state, { recursive: true });
  const models = join(state, 'models');
  const modelsReal = existsSync(models) ? realpathSync(models) : null;
  const pythonJson = join(state, 'python.json');
  const saved = join(t.tmp, 'python.json');
  const script = [
    'set -e',
    existsSync(pythonJson) ? `cp ${sh(pythonJson)} ${sh(saved)}` : 'true',
    ...[runs, state, ...o.hide].map((d) => `mount -t tmpfs tmpfs ${sh(d)}`),
    existsSync(pythonJson) ? `cp ${sh(saved)} ${sh(pythonJson)}` : 'true',
    ...(modelsReal ? [`mkdir ${sh(models)}`, `mount --bind ${sh(modelsReal)} ${sh(models)}`, `mount -o remount,bind,ro ${sh(models)}`] : []),
    `exec ${sh(process.execPath)} --import tsx ${sh(join(PROJECT_ROOT, 'workers', 'all.ts'))} --queues ${o.queues} --prefix ${o.prefix} --address ${t.address} --namespace ${t.namespace} --workflow-bundle ${sh(bundle)}`,
  ].join('\n');
  const env = { ...process.env, ...o.env };
  delete env.EXECRETRIEVAL_STATE_DIR;
  delete env.EXECRETRIEVAL_EMBED_CACHE;
  const child = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  await waitForLine(child, /worker ready/, 120_000);
  return child;
}
