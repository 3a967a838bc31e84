/**
 * The one rule every consumer of execution results follows (score, the gate, the mutation engine): an
 * `infra_error` result, or an oracle call that throws, stops the step with InfraFault. It is never scored as a
 * failing snippet and never judged as a rejection. The retry happens once, inside the oracle (a sandbox fault is
 * run again before it is reported); a damaged cache row would read back the same, so it is not retried here.
 */
import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';
import { InfraFault } from '../faults.ts';
import type { Oracle } from './types.ts';

/** oracle.run, or InfraFault naming the fault. */
export async function runOrStop(oracle: Oracle, req: ExecRequest): Promise<ExecResult> {
  let r: ExecResult;
  try {
    r = await oracle.run(req);
  } catch (err) {
    throw new InfraFault(`execution oracle failed: ${String((err as Error)?.message ?? err).split('\n')[0]} (nothing was scored or judged on it: fix this, then rerun the same command)`);
  }
  if (r.infra_error !== undefined) throw new InfraFault(`${r.infra_error} (nothing was scored or judged on it: fix this, then rerun the same command)`);
  return r;
}

/** The same oracle, with every run going through runOrStop (what the gate and the mutation engine are given). */
export function faultStrict(oracle: Oracle): Oracle {
  return {
    ...(oracle.layers ? { layers: () => oracle.layers!() } : {}),
    run: (req) => runOrStop(oracle, req),
    async runMany(reqs, opts = {}) {
      let done = 0;
      return Promise.all(
        reqs.map(async (r) => {
          const res = await runOrStop(oracle, r);
          opts.onProgress?.(++done, reqs.length);
          return res;
        }),
      );
    },
    close: () => oracle.close(),
  };
}
