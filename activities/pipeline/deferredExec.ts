/**
 * How a stage whose code calls the execution oracle directly (buildBenchmark, scoreRun) gets its executions run
 * on the exec queue, in batches, by whichever workers serve it — without changing the stage's code.
 *
 * The stage is run with an oracle that answers from the execution cache (the same CachedOracle, so the same
 * lookup rules and keys) and, for a miss, records the request instead of running it. Once the stage has asked
 * for everything it can ask without an answer (no oracle call for `idleMs`), the attempt is stopped and the
 * recorded requests are returned; the workflow runs them in batches on the exec queue (which fills the cache)
 * and attempts the stage again, which now gets further. The build's mutant rounds each take one attempt (a
 * round's picks depend on the previous round's verdicts); scoring's executions take one.
 *
 * The attempt that meets no miss is the stage's real run: it writes the stage's files exactly as an
 * in-process run over a warm cache would. Nothing depends on timing: stopping an attempt early costs one more
 * attempt, never a different result. Earlier attempts write nothing the final one does not overwrite with the
 * same bytes (buildBenchmark writes only at its end; scoreRun's rankings are deterministic).
 */
import { createHash } from 'node:crypto';
import type { ExecRequest, TestSuite } from '../../schemas/exec.ts';
import { oracleOnPool, type ExecPool } from '../exec/oracle.ts';
import type { Oracle, SandboxLayers } from '../exec/types.ts';

/** Why a deferring oracle's pending call was rejected: the attempt stopped to have its misses run elsewhere. */
export class DeferredExecution extends Error {
  constructor() {
    super('execution deferred to the exec queue');
    this.name = 'DeferredExecution';
  }
}

/** One cache miss, with the timeout it must run under for the next attempt to find it (effective, not the default). */
export type PendingExec = Required<Pick<ExecRequest, 'code' | 'suite' | 'timeout_s'>> & { suite: TestSuite };

export type AttemptOutcome<T> = { done: true; value: T } | { done: false; pending: PendingExec[] };

export interface DeferOptions {
  /** The isolation layers of the sandbox that will run the batches (for the stage's manifest). */
  layers: SandboxLayers;
  /** Execution cache; default `.execretrieval/exec-cache.sqlite` (oracle.ts). */
  cachePath?: string | null;
  /** Default per-suite timeout of the stage's oracle (score --timeout). */
  timeoutS?: number;
  /** Quiet time after which an attempt with misses is stopped (default 750 ms). */
  idleMs?: number;
  /** How long a stopped attempt gets to unwind before its cache handle is closed (default 30 s). */
  unwindMs?: number;
}

const keyOf = (code: string, suite: unknown, timeoutS: number) => createHash('sha256').update(JSON.stringify([code, suite, timeoutS])).digest('hex');

/** Runs `stage` once against a cache-only oracle: its value when nothing missed, else the misses (deduplicated, in request order). */
export async function attemptWithDeferredExec<T>(stage: (oracle: Oracle) => Promise<T>, opts: DeferOptions): Promise<AttemptOutcome<T>> {
  const idleMs = opts.idleMs ?? 750;
  const pending = new Map<string, PendingExec>();
  const rejecters: ((err: Error) => void)[] = [];
  let stopped = false;
  let lastCall = Date.now();
  const pool: ExecPool = {
    lastLayers: opts.layers,
    run(code, suite, _nTests, timeoutS) {
      lastCall = Date.now();
      if (stopped) return Promise.reject(new DeferredExecution());
      const key = keyOf(code, suite, timeoutS);
      if (!pending.has(key)) pending.set(key, { code, suite: suite as TestSuite, timeout_s: timeoutS });
      return new Promise((_resolve, reject) => rejecters.push(reject));
    },
    async close() {},
  };
  const inner = oracleOnPool(pool, { cachePath: opts.cachePath, timeoutS: opts.timeoutS });
  const touch = () => (lastCall = Date.now());
  const oracle: Oracle = {
    run: (req) => (touch(), inner.run(req)),
    runMany: (reqs, o) => (touch(), inner.runMany(reqs, o)),
    layers: () => inner.layers!(),
    // The stage does not own this oracle: closing it is ours to do once the attempt is over.
    close: async () => {},
  };
  const settled = stage(oracle).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<'idle'>((resolve) => {
    timer = setInterval(() => {
      if (pending.size > 0 && Date.now() - lastCall >= idleMs) resolve('idle');
    }, 50);
  });
  try {
    const first = await Promise.race([settled, idle]);
    if (first !== 'idle') {
      if (!first.ok) throw first.error;
      if (pending.size === 0) return { done: true, value: first.value };
      return { done: false, pending: [...pending.values()] };
    }
    stopped = true;
    for (const reject of rejecters) reject(new DeferredExecution());
    // Let the stopped attempt unwind (its pending calls now reject) before the cache handle goes.
    await Promise.race([settled, new Promise((r) => setTimeout(r, opts.unwindMs ?? 30_000).unref())]);
    return { done: false, pending: [...pending.values()] };
  } finally {
    clearInterval(timer);
    await inner.close();
  }
}

/** Content hash of a pending list (names its file, and tells the workflow whether a round made progress). */
export function pendingHash(pending: readonly PendingExec[]): string {
  const h = createHash('sha256');
  for (const p of pending) h.update(keyOf(p.code, p.suite, p.timeout_s)).update('\n');
  return h.digest('hex');
}
