import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';

/**
 * Which isolation layers were in force for a suite, as the sandbox reports them (infra/runner/sandbox.py):
 * `view` (read-only minimal root), `private_tmp` (own mount namespace, capped tmpfs /tmp and /dev/shm),
 * `netns`, `pidns`, `ipc_uts`, `userns`, `uid` (one per fork server), `caps_kept` (capability numbers kept; empty
 * with a view), `landlock` with `landlock_abi`, `seccomp`, `audit_hook`; `view_error` says why the view is missing.
 * The judge child's own layers (infra/runner/sandbox_judge.py) come as `judge_<layer>`.
 */
export interface SandboxLayers {
  view?: boolean;
  view_error?: string;
  private_tmp?: boolean;
  netns?: boolean;
  uid?: number;
  caps_kept?: number[];
  landlock?: boolean;
  landlock_abi?: number;
  seccomp?: boolean;
  audit_hook?: boolean;
  [layer: string]: unknown;
}

/**
 * The layers as a manifest records them: which were in force (and why one was not), without the per-process
 * values (the uid is derived from a pid), so the same build on the same machine writes the same manifest.
 */
export function manifestLayers(layers: SandboxLayers): Record<string, boolean | number | string> {
  const out: Record<string, boolean | number | string> = {};
  for (const [k, v] of Object.entries(layers).sort(([a], [b]) => a.localeCompare(b))) {
    if (typeof v === 'boolean' || (k === 'landlock_abi' && typeof v === 'number') || (k.endsWith('_error') && typeof v === 'string')) out[k] = v;
  }
  return out;
}

/**
 * The execution oracle: runs (code, test suite) pairs in sandboxed Python children, through the execution
 * cache. A result for the same (runner version, code, suite, timeout) is never computed twice; a run answers only
 * its own timeout (see cache.ts). A result with `infra_error` set is never cached: the suite was run twice and
 * infrastructure failed both times.
 */
export interface Oracle {
  run(req: ExecRequest): Promise<ExecResult>;
  /** Runs many requests with bounded concurrency; results in input order. */
  runMany(reqs: readonly ExecRequest[], opts?: { onProgress?: (done: number, total: number) => void }): Promise<ExecResult[]>;
  /** The isolation layers in force (runs one trivial suite if none has run yet), for manifests and `validate --json`. */
  layers?(): Promise<SandboxLayers>;
  /** Starts the sandbox's servers ahead of the first run (scoring: while it ranks); never fails (a run would report it). */
  warm?(): Promise<void>;
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
