import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';
import type { Oracle } from './types.ts';

/** What went through an oracle: results run in a sandbox, results the cache answered, and the run ones' suite time. */
export interface ExecCounts {
  run: number;
  cached: number;
  /** Sum of the run suites' wall time, in seconds (suite-seconds: with N workers, up to N per second). */
  run_suite_s: number;
}

/**
 * Wraps an oracle to count its results (for the time breakdown `build` and `score` print). Counting only: every
 * call goes to the wrapped oracle unchanged, and closing it closes that one.
 */
export function countingOracle(inner: Oracle): { oracle: Oracle; counts: () => ExecCounts } {
  const c: ExecCounts = { run: 0, cached: 0, run_suite_s: 0 };
  const note = (r: ExecResult) => {
    if (r.cached) c.cached++;
    else {
      c.run++;
      c.run_suite_s += r.wall_ms / 1000;
    }
    return r;
  };
  const oracle: Oracle = {
    run: async (req: ExecRequest) => note(await inner.run(req)),
    runMany: async (reqs, opts) => (await inner.runMany(reqs, opts)).map(note),
    close: () => inner.close(),
  };
  if (inner.layers) oracle.layers = () => inner.layers!();
  return { oracle, counts: () => ({ ...c }) };
}
