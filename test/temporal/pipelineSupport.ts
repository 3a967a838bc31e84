/**
 * What the pipeline kill tests share: a small source (a handful of curated tasks), a state directory of their
 * own (fresh caches, the bootstrapped local models linked in), the CLI as a child process, and the counts the
 * assertions use — executions from runs/<id>/pipeline/executions.log, texts from the fake provider's requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** Executions the exec batches ran (not served from the cache): content key -> how many times, and by which pids. */
export function executionsLog(runDir: string): { lines: number; keys: Map<string, number>; pids: Set<string> } {
  const file = join(runDir, 'pipeline', 'executions.log');
  const keys = new Map<string, number>();
  const pids = new Set<string>();
  let lines = 0;
  if (!existsSync(file)) return { lines, keys, pids };
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [key, pid] = line.split('\t');
    keys.set(key, (keys.get(key) ?? 0) + 1);
    pids.add(pid);
    lines++;
  }
  return { lines, keys, pids };
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
