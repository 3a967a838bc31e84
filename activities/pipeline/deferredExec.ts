/**
 * How a stage whose code calls the execution oracle directly (buildBenchmark, scoreRun) gets its executions run
 * on the exec queue, in batches, by whichever workers serve it — without changing the stage's code.
 *
 * The stage is run with an oracle that answers from the execution cache (the same CachedOracle, so the same
 * lookup rules and keys) and, for a miss, records the request instead of running it. Once the stage has asked
 * for everything it can ask without an answer (no oracle call for `idleMs`), the attempt is stopped and the
 * recorded requests are returned; the workflow runs them in batches on the exec queue (which fills the cache)
 * and attempts the stage again, which now gets further. The build's mutant rounds each take one attempt (a
 * round's picks depend on the previous round's verdicts); scoring's executions take one (one per EXEC_IN_FLIGHT
 * misses, activities/scoring/execute.ts).
 *
 * With pipelined rounds the workflow does not wait for a whole round: the verdicts a batch stores answer the
 * suspended run's calls at once (answerStream) and its new misses are handed out while other batches run
 * (harvestStream); an attempt comes only when nothing is left to run.
 *
 * The attempt that meets no miss is the stage's real run: it writes the stage's files exactly as an
 * in-process run over a warm cache would. Nothing depends on timing: stopping an attempt early costs one more
 * attempt, never a different result. Earlier attempts write nothing the final one does not overwrite with the
 * same bytes (buildBenchmark writes only at its end; scoreRun's rankings are deterministic).
 */
import { createHash } from 'node:crypto';
import type { ExecRequest, ExecResult, TestSuite } from '../../schemas/exec.ts';
import { oracleOnPool, type ExecPool } from '../exec/oracle.ts';
import type { Oracle, SandboxLayers } from '../exec/types.ts';
import { runnerVersion, type RawRun } from '../exec/pool.ts';
import { execContentKey, execRunKey } from '../exec/cache.ts';

/** Why a deferring oracle's pending call was rejected: the attempt stopped to have its misses run elsewhere. */
export class DeferredExecution extends Error {
  constructor() {
    super('execution deferred to the exec queue');
    this.name = 'DeferredExecution';
  }
}

/** One cache miss, with the timeout it must run under for the next attempt to find it (effective, not the default). */
export type PendingExec = Required<Pick<ExecRequest, 'code' | 'suite' | 'timeout_s'>> & { suite: TestSuite };

/**
 * `resumed`: this attempt continued the previous one, suspended in this worker, instead of starting the stage again.
 * `stream`: the suspended run's token, for pipelined rounds (answerStream, harvestStream); absent when not kept.
 */
export type AttemptOutcome<T> = ({ done: true; value: T } | { done: false; pending: PendingExec[]; stream?: string }) & { resumed?: boolean };

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

/** The calls the stage is waiting on for one request: answered from the cache once the exec queue has run it. */
interface Held {
  req: PendingExec;
  /** The request's key in the execution cache (execRunKey), which a stored verdict names. */
  runKey: string;
  calls: { resolve: (raw: RawRun) => void; reject: (err: Error) => void }[];
}

/**
 * One live run of a stage against the deferring oracle. When it goes quiet with misses it is not stopped but
 * suspended (kept in this worker, waiting on its held calls); the next attempt, if it lands on this worker,
 * answers the held calls from the now warm cache and the stage goes on from where it was, instead of re-running
 * import, mutant enumeration and every earlier round. An attempt on another worker (or after the suspension
 * expired) runs the stage from the start, as before: the same verdicts, so the same files.
 *
 * While suspended it is also a stream (pipelined rounds): the exchange that stores a batch's verdicts answers
 * the held calls they name at once (`answer`), the stage goes on, and `harvest` hands out the misses it asked
 * for since, each request once (`handed`), while the other batches still run.
 */
class StageRun<T> {
  /** Held calls by request key, in the order first asked (a miss is pending while it is held). */
  private held = new Map<string, Held>();
  /** Request key by execution-cache key: how a stored verdict finds the calls waiting for it. */
  private byRunKey = new Map<string, string>();
  /** Requests handed to the exec queue since the last attempt (which handed out all it held): never handed twice. */
  private handed = new Set<string>();
  private stopped = false;
  private lastCall = Date.now();
  private readonly inner: Oracle;
  private readonly lookup: Oracle;
  private readonly version = runnerVersion();
  readonly settled: Promise<{ ok: true; value: T } | { ok: false; error: unknown }>;
  private isSettled = false;

  constructor(stage: (oracle: Oracle) => Promise<T>, private readonly opts: DeferOptions) {
    const pool: ExecPool = {
      lastLayers: opts.layers,
      run: (code, suite, _nTests, timeoutS) => {
        this.lastCall = Date.now();
        if (this.stopped) return Promise.reject(new DeferredExecution());
        const key = keyOf(code, suite, timeoutS);
        return new Promise<RawRun>((resolve, reject) => {
          let h = this.held.get(key);
          if (!h) {
            const runKey = execRunKey(execContentKey(this.version, code, suite as TestSuite), timeoutS);
            h = { req: { code, suite: suite as TestSuite, timeout_s: timeoutS }, runKey, calls: [] };
            this.held.set(key, h);
            this.byRunKey.set(runKey, key);
          }
          h.calls.push({ resolve, reject });
        });
      },
      async close() {},
    };
    this.inner = oracleOnPool(pool, { cachePath: opts.cachePath, timeoutS: opts.timeoutS });
    // Reads the cache only: a miss rejects (the batch that should have run it did not, or wrote another cache).
    this.lookup = oracleOnPool({ lastLayers: opts.layers, run: () => Promise.reject(new DeferredExecution()), async close() {} }, { cachePath: opts.cachePath, timeoutS: opts.timeoutS });
    const touch = () => (this.lastCall = Date.now());
    const oracle: Oracle = {
      run: (req) => (touch(), this.inner.run(req)),
      runMany: (reqs, o) => (touch(), this.inner.runMany(reqs, o)),
      layers: () => this.inner.layers!(),
      // The stage does not own this oracle: closing it is ours to do once the run is over.
      close: async () => {},
    };
    this.settled = stage(oracle).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    ).finally(() => (this.isSettled = true));
  }

  /** The misses the stage is waiting on, in the order first asked. */
  private pending(): PendingExec[] {
    return [...this.held.values()].map((h) => h.req);
  }

  /**
   * Until the stage ends or goes quiet with misses: its value, or every miss it is waiting on (deduplicated, in
   * request order), all of them handed out from now on.
   */
  async watch(): Promise<AttemptOutcome<T>> {
    const idleMs = this.opts.idleMs ?? 750;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<'idle'>((resolve) => {
      timer = setInterval(() => {
        if (this.held.size > 0 && Date.now() - this.lastCall >= idleMs) resolve('idle');
      }, 50);
    });
    try {
      const first = await Promise.race([this.settled, idle]);
      if (first !== 'idle') {
        if (!first.ok) throw first.error;
        if (this.held.size === 0) return { done: true, value: first.value };
      }
      this.handed = new Set(this.held.keys());
      return { done: false, pending: this.pending() };
    } finally {
      clearInterval(timer);
    }
  }

  /** Answers the held call for `key` when the cache has its verdict; true when it did. */
  private async answerKey(key: string): Promise<boolean> {
    const h = this.held.get(key);
    if (!h) return false;
    let hit: ExecResult | null = null;
    try {
      hit = await this.lookup.run({ code: h.req.code, suite: h.req.suite, timeout_s: h.req.timeout_s });
    } catch (err) {
      if (!(err instanceof DeferredExecution)) throw err;
    }
    // Another answer may have come while the lookup ran.
    if (!hit || !hit.cached || this.held.get(key) !== h) return false;
    this.held.delete(key);
    this.byRunKey.delete(h.runKey);
    this.handed.delete(key);
    const raw: RawRun = { outcomes: hit.outcomes, ...(hit.judged ? { judged: hit.judged } : {}), wall_ms: hit.wall_ms, cpu_ms: hit.cpu_ms as number, layers: this.opts.layers };
    for (const c of h.calls) c.resolve(raw);
    this.lastCall = Date.now();
    return true;
  }

  /** Answers every held call the cache now has; the rest stay held (and pending). Returns how many were answered. */
  async resume(): Promise<number> {
    let answered = 0;
    for (const key of [...this.held.keys()]) if (await this.answerKey(key)) answered++;
    this.lastCall = Date.now();
    return answered;
  }

  /** Answers the held calls whose verdicts were just stored (by execution-cache key); the others are not looked up. */
  async answer(runKeys: readonly string[]): Promise<number> {
    let answered = 0;
    for (const rk of runKeys) {
      const key = this.byRunKey.get(rk);
      if (key !== undefined && (await this.answerKey(key))) answered++;
    }
    return answered;
  }

  /**
   * Once the stage has had a moment to go on (quiet for `quietMs`, at most `maxMs`): whether it ended, or the
   * misses it asked for that were never handed out (none: nothing new yet), handed out from now on.
   */
  async harvest(quietMs: number, maxMs: number): Promise<{ settled: true } | { settled: false; pending: PendingExec[] }> {
    const t0 = Date.now();
    while (!this.isSettled && Date.now() - this.lastCall < quietMs && Date.now() - t0 < maxMs) await new Promise((r) => setTimeout(r, 10));
    if (this.isSettled) return { settled: true };
    const fresh = [...this.held.keys()].filter((k) => !this.handed.has(k));
    for (const k of fresh) this.handed.add(k);
    return { settled: false, pending: fresh.map((k) => this.held.get(k)!.req) };
  }

  /** Stops the stage (its held calls reject), lets it unwind, closes its cache handles. */
  async abandon(): Promise<void> {
    this.stopped = true;
    for (const h of this.held.values()) for (const c of h.calls) c.reject(new DeferredExecution());
    this.held.clear();
    this.byRunKey.clear();
    await Promise.race([this.settled, new Promise((r) => setTimeout(r, this.opts.unwindMs ?? 30_000).unref())]);
    await this.close();
  }

  async close(): Promise<void> {
    await this.inner.close();
    await this.lookup.close();
  }
}

/** Suspended stage runs of this worker, by stage identity and the hash of the misses they handed back. */
const suspended = new Map<string, { run: StageRun<unknown>; expiry: NodeJS.Timeout }>();
/** How long a suspended run waits for its next attempt before it is abandoned. */
const SUSPEND_MS = 10 * 60_000;

const suspendKey = (identity: string, pendingSha: string) => `${identity}\u0000${pendingSha}`;
/** A suspended run's token (what the exchange and the harvest name it by): short, and unguessable from another run. */
const streamToken = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 32);
const streams = new Map<string, string>();

function streamRun(token: string): StageRun<unknown> | null {
  const key = streams.get(token);
  const found = key === undefined ? undefined : suspended.get(key);
  if (!found) return null;
  // In use: it waits another SUSPEND_MS from now.
  found.expiry.refresh();
  return found.run;
}

/**
 * Answers the suspended run's held calls whose verdicts were just stored in the cache (their execution-cache keys,
 * execRunKey), so its stage goes on now rather than at the next attempt. A token this worker does not hold (another
 * coordinator, a restarted one) answers nothing: the next attempt runs the stage over the warm cache.
 */
export async function answerStream(token: string, runKeys: readonly string[]): Promise<number> {
  const run = streamRun(token);
  return run ? run.answer(runKeys) : 0;
}

/**
 * The misses the suspended run asked for since it last handed any out (each request once), after giving it
 * `quietMs` of quiet (at most `maxMs`) to go on; `settled`: the stage ended (the next attempt returns its value or
 * its error); `lost`: this worker does not hold the run (the workflow drains its batches and attempts again).
 */
export async function harvestStream(token: string, opts: { quietMs?: number; maxMs?: number } = {}): Promise<{ lost: true } | { settled: true } | { pending: PendingExec[] }> {
  const run = streamRun(token);
  if (!run) return { lost: true };
  const got = await run.harvest(opts.quietMs ?? 100, opts.maxMs ?? 1000);
  return got.settled ? { settled: true } : { pending: got.pending };
}

export interface ResumeOptions {
  /** What makes two attempts the same stage (the attempt's input, say): a suspended run is resumed only by its own stage. */
  identity: string;
  /** The hash of the misses the previous attempt handed back (pendingHash), which the exec queue has since run. */
  after?: string;
}

/**
 * Runs `stage` against a cache-only oracle until it ends or goes quiet with misses: its value when nothing
 * missed, else the misses. With `resume`, a stage that goes quiet is suspended in this worker, and an attempt
 * naming it (`after`) continues it; without, or when none is found, the stage runs from the start.
 */
export async function attemptWithDeferredExec<T>(stage: (oracle: Oracle) => Promise<T>, opts: DeferOptions, resume?: ResumeOptions): Promise<AttemptOutcome<T>> {
  let run: StageRun<T> | null = null;
  if (resume?.after) {
    const key = suspendKey(resume.identity, resume.after);
    const found = suspended.get(key);
    if (found) {
      suspended.delete(key);
      streams.delete(streamToken(key));
      clearTimeout(found.expiry);
      run = found.run as StageRun<T>;
      await run.resume();
    }
  }
  const resumed = run !== null;
  run ??= new StageRun(stage, opts);
  let outcome: AttemptOutcome<T>;
  try {
    outcome = await run.watch();
  } catch (err) {
    await run.close();
    throw err;
  }
  if (resumed) outcome.resumed = true;
  if (outcome.done) {
    await run.close();
    return outcome;
  }
  if (!resume) {
    await run.abandon();
    return outcome;
  }
  const key = suspendKey(resume.identity, pendingHash(outcome.pending));
  const stale = suspended.get(key);
  if (stale) {
    clearTimeout(stale.expiry);
    void stale.run.abandon();
  }
  const r = run;
  const token = streamToken(key);
  const expiry = setTimeout(() => {
    if (suspended.get(key)?.run === r) {
      suspended.delete(key);
      streams.delete(token);
    }
    void r.abandon();
  }, SUSPEND_MS).unref();
  suspended.set(key, { run: r as StageRun<unknown>, expiry });
  streams.set(token, key);
  outcome.stream = token;
  return outcome;
}

/** Suspended runs in this worker (for tests). */
export const suspendedRuns = (): number => suspended.size;

/** Content hash of a pending list (names its file, and tells the workflow whether a round made progress). */
export function pendingHash(pending: readonly PendingExec[]): string {
  const h = createHash('sha256');
  for (const p of pending) h.update(keyOf(p.code, p.suite, p.timeout_s)).update('\n');
  return h.digest('hex');
}
