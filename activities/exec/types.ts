import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';

/**
 * The execution oracle: runs (code, test suite) pairs in sandboxed Python children, through the execution
 * cache. A result for the same (runner version, code, suite, timeout) is never computed twice, and a run that
 * finished under a shorter timeout answers a longer one (see cache.ts).
 */
export interface Oracle {
  run(req: ExecRequest): Promise<ExecResult>;
  /** Runs many requests with bounded concurrency; results in input order. */
  runMany(reqs: readonly ExecRequest[], opts?: { onProgress?: (done: number, total: number) => void }): Promise<ExecResult[]>;
  close(): Promise<void>;
}

export interface OracleOptions {
  /** SQLite cache file; default `.execretrieval/exec-cache.sqlite`. `null` disables the cache. */
  cachePath?: string | null;
  /** Number of fork servers; default = CPU cores. */
  concurrency?: number;
  /** Default per-suite timeout in seconds (5). */
  timeoutS?: number;
}
