import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';
import type { Oracle } from '../exec/types.ts';

const keyOf = (r: ExecRequest) => JSON.stringify([r.code, r.suite]);

/**
 * An oracle for the gate that reuses verification runs. Mutants are verified under a shorter per-suite
 * timeout than the oracle's default; the gate then asks for the same (code, suite) under the default, which
 * is a different cache key. When the verification run finished every test with no timeout, a longer limit
 * cannot change any outcome (the suite ran to completion, deterministically), so the request is answered
 * under the verification timeout, i.e. from the cache. Anything that timed out is run again for real.
 */
export function reuseVerifiedRuns(inner: Oracle, verified: ReadonlyMap<string, number>): Oracle {
  const map = (r: ExecRequest): ExecRequest => {
    if (r.timeout_s !== undefined) return r;
    const t = verified.get(keyOf(r));
    return t === undefined ? r : { ...r, timeout_s: t };
  };
  return {
    run: (req: ExecRequest): Promise<ExecResult> => inner.run(map(req)),
    runMany: (reqs, opts) => inner.runMany(reqs.map(map), opts),
    // The caller owns the inner oracle.
    close: async () => {},
  };
}

/** Records one completed verification run: (code, suite) -> the timeout it ran under. */
export function noteVerifiedRun(into: Map<string, number>, req: ExecRequest, result: ExecResult): void {
  if (req.timeout_s !== undefined && !result.outcomes.includes('TIMEOUT')) into.set(keyOf(req), req.timeout_s);
}
