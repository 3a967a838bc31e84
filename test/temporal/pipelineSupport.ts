/**
 * What the pipeline kill tests share: a small source (a handful of curated tasks), a state directory of their
 * own (fresh caches, the bootstrapped local models linked in), the CLI as a child process, and the counts the
 * assertions use — executions from the exec cache's payments (stored with each verdict), texts from the fake
 * provider's requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';
import { ExecCache, execContentKey, execRunKey } from '../../activities/exec/cache.ts';
import { runnerVersion } from '../../activities/exec/pool.ts';
import { readPendingFile } from '../../activities/pipeline/stageFiles.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import type { FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';

/** The hosted configuration the tests embed with (served by the fake provider), besides BM25. */
export const HOSTED = 'bge-small-en-v1.5';
/** The fake provider answers with the configuration's dimensions. */
export const FAKE_DIMS = { defaultDims: 384 };

/** The first `n` tasks of two curated files: small enough for ~1 minute a run on 2 shared cores. */
export function writeSmallSource(file: string, n = 3): void {
  const lines = ['geometry.jsonl', 'string_processing.jsonl'].flatMap((f) =>
    readFileSync(join(PROJECT_ROOT, 'data', 'tasks', 'curated', f), 'utf8').split('\n').filter(Boolean).slice(0, n),
  );
  writeFileSync(file, lines.join('\n') + '\n');
}

/** A state directory with empty caches; the local models are linked in (the pipeline checks which can run). */
export function freshState(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const models = join(PROJECT_ROOT, '.execretrieval', 'models');
  if (existsSync(models)) symlinkSync(models, join(dir, 'models'));
  return dir;
}

export interface CliChild {
  child: ChildProcess;
  stderr: () => string;
  done: Promise<{ code: number | null; signal: string | null }>;
}

export function startCli(args: string[], env: Record<string, string>): CliChild {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'execretrieval.js'), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString('utf8')));
  child.stdout!.resume();
  const done = new Promise<{ code: number | null; signal: string | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
  return { child, stderr: () => err, done };
}

/** Polls `cond` every 100 ms until it holds; throws with `what` after `ms`. */
export async function waitFor(what: string, cond: () => boolean, ms = 240_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Paid {
  /** Executions paid for: run key (execRunKey) -> how many times, and by which pids. */
  keys: Map<string, number>;
  count: number;
  pids: Set<number>;
}

/** What the run's exec batches paid for: the payments the exec cache of `stateDir` stored with each verdict. */
export function executionsPaid(stateDir: string, runDir: string): Paid {
  const paid: Paid = { keys: new Map(), count: 0, pids: new Set() };
  const file = join(stateDir, 'exec-cache.sqlite');
  if (!existsSync(file)) return paid;
  const cache = new ExecCache(file, { check: false });
  try {
    for (const { key, pid } of cache.payments(resolve(runDir))) {
      paid.keys.set(key, (paid.keys.get(key) ?? 0) + 1);
      paid.pids.add(pid);
      paid.count++;
    }
  } finally {
    cache.close();
  }
  return paid;
}

/** Every request the run's stages handed to the exec queue (its pending files), by run key: what its batches had to run. */
export function pendingRequests(runDir: string): Map<string, string> {
  const dir = join(runDir, 'pipeline', 'pending');
  const version = runnerVersion();
  const found = new Map<string, string>();
  for (const f of existsSync(dir) ? readdirSync(dir).sort() : []) {
    for (const r of readPendingFile(join(dir, f))) {
      const key = execRunKey(execContentKey(version, r.code, r.suite), r.timeout_s);
      if (!found.has(key)) found.set(key, `${f}, timeout ${r.timeout_s} s: ${r.code.split('\n').find((l) => l.trim())?.slice(0, 60)}`);
    }
  }
  return found;
}

/**
 * The run's batches ran every request its stages handed them once each, and nothing else: pending and paid
 * compared key by key, the difference described (which pending file, which limit, which code).
 */
export function assertEachPendingPaidOnce(stateDir: string, runDir: string): Paid {
  const paid = executionsPaid(stateDir, runDir);
  const pending = pendingRequests(runDir);
  assert.deepEqual(
    {
      twice: [...paid.keys].filter(([, n]) => n > 1).map(([k]) => pending.get(k) ?? k),
      unpaid: [...pending].filter(([k]) => !paid.keys.has(k)).map(([, d]) => d),
      unrequested: [...paid.keys.keys()].filter((k) => !pending.has(k)),
    },
    { twice: [], unpaid: [], unrequested: [] },
    'every pending request executed exactly once',
  );
  return paid;
}

export function pendingFiles(runDir: string, stage: string): string[] {
  const dir = join(runDir, 'pipeline', 'pending');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith(`${stage}-`)) : [];
}

/** Every text the fake provider was asked to embed, with how many times (the provider's own record: what was paid). */
export function textsEmbedded(server: FakeEmbeddingServer): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of server.requests) {
    const input = (r.body as { input?: unknown }).input;
    for (const t of Array.isArray(input) ? input : [input]) m.set(String(t), (m.get(String(t)) ?? 0) + 1);
  }
  return m;
}
