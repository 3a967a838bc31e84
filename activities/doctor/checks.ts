/**
 * `execretrieval doctor`: every component a run needs, checked where it lives, each with the fix. Nothing here
 * prints a secret: keys are reported as set or not set.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadRegistry } from '../embeddings/configs.ts';
import { apiKeyEnv, availability } from '../embeddings/availability.ts';
import { listServers } from '../embeddings/serverModels.ts';
import { defaultCachePath, openOracle } from '../exec/oracle.ts';
import { embeddingCachePath, modelRoot, projectRoot, stateDir, venvDir } from '../paths.ts';
import { pythonExecutable } from '../python/interpreter.ts';
import { verifyCache } from '../storage/cacheRepair.ts';
import { repairCommand } from '../faults.ts';
import { DEV_SERVER } from '../../temporal.config.ts';
import { databaseOwner } from '../../infra/temporal/devServer.ts';
import { loadClusterSettings, type ClusterSettings } from '../../infra/temporal/cluster.ts';
import { clusterCheck, queueChecks } from './queues.ts';
import { goCacheDir, goExecutable } from '../exec/callsBuild.ts';

export interface Check {
  area: string;
  name: string;
  /** fail: a run that needs it stops; warn: it works, with less (e.g. a configuration that will be skipped). */
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

const BOOTSTRAP = 'execretrieval bootstrap';

function runtimeChecks(): Check[] {
  const out: Check[] = [];
  const [major, minor] = process.versions.node.split('.').map(Number);
  out.push({ area: 'runtime', name: 'node', status: major > 20 || (major === 20 && minor >= 6) ? 'ok' : 'fail', detail: `v${process.versions.node}`, fix: 'install Node >= 20.6' });
  try {
    const py = pythonExecutable();
    const v = execFileSync(py, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], { encoding: 'utf8' }).trim();
    const [pmaj, pmin] = v.split('.').map(Number);
    out.push({ area: 'runtime', name: 'python', status: pmaj === 3 && pmin >= 10 ? 'ok' : 'fail', detail: `${py} (${v})`, fix: 'install Python >= 3.10, or set EXECRETRIEVAL_PYTHON' });
  } catch (e) {
    out.push({ area: 'runtime', name: 'python', status: 'fail', detail: (e as Error).message.split('\n')[0], fix: 'install Python >= 3.10, or set EXECRETRIEVAL_PYTHON' });
  }
  return out;
}

async function temporalChecks(env: NodeJS.ProcessEnv): Promise<Check[]> {
  let target: ClusterSettings;
  try {
    target = loadClusterSettings(env);
  } catch (e) {
    return [{ area: 'temporal', name: 'cluster', status: 'fail', detail: (e as Error).message, fix: 'fix the temporal.toml profile or the TEMPORAL_* variables named' }];
  }
  if (target.address) return [await clusterCheck(target)];
  const bin = join(venvDir(), 'bin', 'temporal');
  const out: Check[] = [];
  try {
    out.push({ area: 'temporal', name: 'binary', status: 'ok', detail: `${bin}: ${execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()}` });
  } catch {
    out.push({ area: 'temporal', name: 'binary', status: 'fail', detail: `${bin} missing or not runnable`, fix: BOOTSTRAP });
  }
  const db = join(stateDir(), DEV_SERVER.dbFileName);
  const owner = databaseOwner(db);
  let detail = `${db}: ${existsSync(db) ? 'present' : 'created on first run'}`;
  if (owner.state === 'in_use') detail += `; in use by ${owner.owner_pid !== undefined ? `pid ${owner.owner_pid}` : 'another process'} (server at ${owner.address})`;
  if (owner.state === 'orphan') detail += `; a server left by a process that is gone (pid ${owner.pid}): the next run stops it`;
  out.push({ area: 'temporal', name: 'dev server database', status: 'ok', detail });
  return out;
}

async function modelAndKeyChecks(env: NodeJS.ProcessEnv): Promise<{ checks: Check[]; runnable: string[] }> {
  const reg = loadRegistry({ root: projectRoot(), env });
  const base = { env, modelRoot: modelRoot() };
  // As `configs` and the sweep decide it: an open-weight entry runs only if its server lists its model.
  const servers = await listServers(reg.entries.map((e) => e.config), base);
  const penv = { ...base, servers };
  const checks: Check[] = reg.errors.map((e) => ({ area: 'configs', name: 'registry', status: 'fail' as const, detail: e, fix: 'fix the configuration file named' }));
  const runnable: string[] = [];
  const keys = new Map<string, string[]>();
  for (const { config } of reg.entries) {
    const a = availability(config, penv);
    // What `npm start` runs: configurations marked default_run: false (too slow for it) run only when named.
    if (a.ok && config.provider !== 'bm25' && config.default_run) runnable.push(config.config_id);
    if (config.provider.startsWith('local')) {
      checks.push({ area: 'models', name: config.config_id, status: a.ok ? 'ok' : 'warn', detail: a.detail, ...(a.ok ? {} : { fix: BOOTSTRAP }) });
    }
    const k = apiKeyEnv(config);
    // Open-weight configurations need a server (below); their key variable is optional.
    if (k && !config.base_url_env) keys.set(k, [...(keys.get(k) ?? []), config.config_id]);
  }
  for (const k of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY']) if (!keys.has(k)) keys.set(k, []);
  for (const [k, ids] of [...keys].sort()) {
    const set = !!env[k] || (k === 'GEMINI_API_KEY' && !!env.GOOGLE_API_KEY);
    const uses = ids.length ? `${ids.length} embedding configuration(s)` : 'generation only';
    checks.push({ area: 'keys', name: k, status: set ? 'ok' : 'warn', detail: `${set ? 'set' : 'not set'} (${uses})`, ...(set ? {} : { fix: `export ${k}=… to run them` }) });
  }
  const server = env.EXECRETRIEVAL_EMBED_BASE_URL;
  const listing = server ? servers.get(server) : undefined;
  const serverDetail = !server ? 'not set (open-weight configurations are unavailable)'
    : listing?.state === 'no_answer' ? `${server} does not answer (${listing.detail})`
    : listing?.state === 'listed' ? `open-weight models at ${server}; it lists ${listing.models.length}: ${listing.models.slice(0, 4).join(', ')}${listing.models.length > 4 ? ', …' : ''}`
    : `open-weight models at ${server}`;
  const serverOk = !!server && listing?.state !== 'no_answer';
  checks.push({ area: 'keys', name: 'EXECRETRIEVAL_EMBED_BASE_URL', status: serverOk ? 'ok' : 'warn', detail: serverDetail, ...(serverOk ? {} : { fix: server ? 'start the server (`execretrieval serve-embeddings` for the local models) or fix the URL' : 'point it at an OpenAI-compatible embedding server' }) });
  return { checks, runnable };
}

function cacheChecks(): Check[] {
  return [defaultCachePath(), embeddingCachePath()].map((path) => {
    if (!existsSync(path)) return { area: 'caches', name: path, status: 'ok' as const, detail: 'not created yet' };
    const h = verifyCache(path);
    return h.ok
      ? { area: 'caches', name: path, status: 'ok' as const, detail: `sound (${h.rows_readable} rows)` }
      : { area: 'caches', name: path, status: 'fail' as const, detail: `damaged: ${h.problems[0] ?? `${h.rows_invalid} unreadable rows`}`, fix: repairCommand(path) };
  });
}

async function sandboxChecks(): Promise<Check[]> {
  let oracle;
  try {
    oracle = await openOracle({ cachePath: null, concurrency: 1 });
    const layers = (await oracle.layers?.()) ?? {};
    const on = Object.entries(layers).filter(([k, v]) => v === true && !k.endsWith('_error')).map(([k]) => k);
    const missing = ['view', 'landlock', 'seccomp', 'netns', 'private_tmp'].filter((k) => layers[k] !== true);
    return [{
      area: 'sandbox', name: 'layers', status: missing.length ? 'warn' : 'ok',
      detail: `in force: ${on.join(', ') || 'none reported'}${missing.length ? `; not available here: ${missing.join(', ')}` : ''}${layers.uid !== undefined ? `; uid ${layers.uid}` : ''}`,
      ...(missing.length ? { fix: 'run as root on Linux >= 5.13 for every layer (README "Checking tasks by execution")' } : {}),
    }];
  } catch (e) {
    return [{ area: 'sandbox', name: 'fork server', status: 'fail', detail: (e as Error).message.split('\n')[0], fix: BOOTSTRAP }];
  } finally {
    await oracle?.close();
  }
}

export interface DoctorReport {
  checks: Check[];
  /** What `npm start` will run with the components found. */
  npm_start: { command: string; configs: string[] };
}

/**
 * The runners of the functional benchmark's other languages (core/languages/functional.ts): Node for JavaScript and
 * TypeScript, found where the sandbox's child can see it (under /usr, its read-only view), and the Go toolchain,
 * which compiles each Go snippet with its harness. A missing one fails only that language's tasks: a warning.
 */
function toolchainChecks(): Check[] {
  const out: Check[] = [];
  const node = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p));
  out.push(node
    ? { area: 'toolchains', name: 'node (javascript, typescript)', status: 'ok', detail: `${node}: ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}` }
    : { area: 'toolchains', name: 'node (javascript, typescript)', status: 'warn', detail: 'no node under /usr/bin or /usr/local/bin, where the sandbox can run it', fix: 'install Node >= 20 from the distribution or nodejs.org into /usr (only JavaScript and TypeScript tasks need it)' });
  try {
    const v = execFileSync(goExecutable(), ['version'], { encoding: 'utf8', env: { ...process.env, GOTOOLCHAIN: 'local' } }).trim();
    out.push({ area: 'toolchains', name: 'go', status: 'ok', detail: `${v}; build cache ${goCacheDir()}` });
  } catch (e) {
    out.push({ area: 'toolchains', name: 'go', status: 'warn', detail: `${goExecutable()}: ${(e as Error).message.split('\n')[0]}`, fix: 'install Go >= 1.22 (go.dev/dl or the distribution\'s golang package), or set EXECRETRIEVAL_GO (only Go tasks need it)' });
  }
  return out;
}

export async function runDoctor(env: NodeJS.ProcessEnv = process.env): Promise<DoctorReport> {
  const { checks: modelChecks, runnable } = await modelAndKeyChecks(env);
  const checks = [...runtimeChecks(), ...toolchainChecks(), ...(await temporalChecks(env)), ...(await sandboxChecks()), ...cacheChecks(), ...modelChecks];
  // On a worker machine: which queues it can serve, and what it lacks for the others.
  const generationKeys = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY'].filter((k) => !!env[k] || (k === 'GEMINI_API_KEY' && !!env.GOOGLE_API_KEY));
  checks.push(...queueChecks(checks, runnable, generationKeys));
  return { checks, npm_start: { command: 'execretrieval run --source curated --run default', configs: [...runnable, 'bm25'] } };
}
