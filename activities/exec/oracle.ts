import { join } from 'node:path';
import { suiteSources, type ExecRequest, type ExecResult, type TestSuite } from '../../schemas/exec.ts';
import { stateDir } from '../paths.ts';
import { DamagedCacheError } from '../faults.ts';
import { ExecCache, execContentKey, execRunKey } from './cache.ts';
import { SandboxPool, runnerVersion } from './pool.ts';
import type { Oracle, OracleOptions, SandboxLayers } from './types.ts';

export type { Oracle, OracleOptions, SandboxLayers } from './types.ts';

export const DEFAULT_TIMEOUT_S = 5;

export function defaultCachePath(): string {
  return join(stateDir(), 'exec-cache.sqlite');
}

/** What CachedOracle runs a cache miss on: the sandbox pool, or (activities/pipeline/deferredExec.ts) a pool
 * that hands the miss to the exec queue instead of running it here. */
export type ExecPool = Pick<SandboxPool, 'run' | 'close' | 'lastLayers'> & Partial<Pick<SandboxPool, 'warm'>>;

class CachedOracle implements Oracle {
  private readonly inflight = new Map<string, Promise<ExecResult>>();
  private readonly version = runnerVersion();

  constructor(
    private readonly pool: ExecPool,
    private readonly cache: ExecCache | null,
    private readonly timeoutS: number,
  ) {}

  run(req: ExecRequest): Promise<ExecResult> {
    const timeoutS = req.timeout_s ?? this.timeoutS;
    const content = execContentKey(this.version, req.code, req.suite);
    let hit;
    try {
      hit = this.cache?.get(content, timeoutS);
    } catch (err) {
      // A row that cannot be read is a fault, never a verdict: the caller stops, naming the file.
      if (err instanceof DamagedCacheError) return Promise.resolve(cacheFault(err));
      throw err;
    }
    if (hit) return Promise.resolve({ ...hit, passed: hit.outcomes.every((o) => o === 'pass'), cached: true });
    // The same pair requested twice at once runs once.
    const key = execRunKey(content, timeoutS);
    const running = this.inflight.get(key);
    if (running) return running;
    const p = this.execute(content, req.code, req.suite, timeoutS, req.paid_by).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  async runMany(reqs: readonly ExecRequest[], opts: { onProgress?: (done: number, total: number) => void } = {}): Promise<ExecResult[]> {
    let done = 0;
    return Promise.all(
      reqs.map(async (r) => {
        const res = await this.run(r);
        opts.onProgress?.(++done, reqs.length);
        return res;
      }),
    );
  }

  async close(): Promise<void> {
    await this.pool.close();
    this.cache?.close();
  }

  async warm(): Promise<void> {
    await this.pool.warm?.();
  }

  async layers(): Promise<SandboxLayers> {
    if (!this.pool.lastLayers) await this.pool.run('pass', { kind: 'asserts', tests: ['assert True'] }, 1, 5);
    return this.pool.lastLayers ?? {};
  }

  /**
   * Runs the suite; when infrastructure decided the outcome (a child killed from outside, a dead or broken
   * server, a scratch directory that would not go), runs it once more. A second infrastructure failure is
   * returned with `infra_error` set and is never cached.
   */
  private async execute(content: string, code: string, suite: TestSuite, timeoutS: number, paidBy: string | undefined): Promise<ExecResult> {
    const n = suiteSources(suite).length;
    let raw = await this.pool.run(code, suite, n, timeoutS);
    if (raw.infraError) raw = await this.pool.run(code, suite, n, timeoutS);
    const result: ExecResult = { outcomes: raw.outcomes, wall_ms: raw.wall_ms, cpu_ms: raw.cpu_ms, passed: !raw.infraError && raw.outcomes.every((o) => o === 'pass'), cached: false };
    if (raw.judged) result.judged = raw.judged;
    if (raw.infraError) {
      result.infra_error = raw.infraError;
      return result;
    }
    try {
      this.cache?.put(content, timeoutS, this.version, { outcomes: raw.outcomes, wall_ms: raw.wall_ms, cpu_ms: raw.cpu_ms, ...(raw.judged ? { judged: raw.judged } : {}) }, paidBy);
    } catch (err) {
      if (err instanceof DamagedCacheError) return cacheFault(err);
      throw err;
    }
    return result;
  }
}

/** The sandbox's isolation layers on this machine (starts one fork server, runs one trivial suite, stops it),
 * for a run manifest that has no oracle open. */
export async function probeSandboxLayers(): Promise<SandboxLayers> {
  const oracle = new CachedOracle(new SandboxPool(1), null, DEFAULT_TIMEOUT_S);
  try {
    return await oracle.layers();
  } finally {
    await oracle.close();
  }
}

const cacheFault = (err: DamagedCacheError): ExecResult => ({ outcomes: [], wall_ms: 0, passed: false, cached: false, infra_error: err.message });

/** Opens the execution oracle: sandboxed fork servers behind the SQLite execution cache. */
export async function openOracle(opts: OracleOptions = {}): Promise<Oracle> {
  return oracleOnPool(new SandboxPool(opts.concurrency), opts);
}

/** The same cache rules (one lookup, one key) in front of another pool; `close` closes that pool. */
export function oracleOnPool(pool: ExecPool, opts: Omit<OracleOptions, 'concurrency'> = {}): Oracle {
  const cachePath = opts.cachePath === undefined ? defaultCachePath() : opts.cachePath;
  return new CachedOracle(pool, cachePath ? new ExecCache(cachePath) : null, opts.timeoutS ?? DEFAULT_TIMEOUT_S);
}
