import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';
import type { Oracle } from '../exec/types.ts';
import { EXEC_DEPTH } from '../../core/metrics/per_query.ts';
import type { QueryRanking } from '../../core/ranking/rank.ts';
import { suiteOf, type LoadedBenchmark } from './benchmark.ts';

export interface ExecutionTable {
  /** Verdict of corpus item c against query q's tests, keyed `${q}:${c}` (benchmark indices). */
  results: Map<string, ExecResult>;
  /** Distinct (query, snippet) pairs executed, and how many came from the cache. */
  pairs: number;
  cached: number;
  /** Pairs the oracle itself failed on (infrastructure, not the snippet): counted as not passing, reported. */
  errors: { query_id: string; corpus_id: string; message: string }[];
}

export const pairKey = (q: number, c: number) => `${q}:${c}`;

/**
 * Runs every top-`depth` snippet of every configuration against its query's tests through the oracle, each
 * distinct (query, snippet) pair once (the oracle's cache makes a re-run free). Untrusted code never runs in
 * this process: only the oracle executes it.
 */
export async function executeTopK(
  bench: LoadedBenchmark,
  rankings: readonly (readonly QueryRanking[])[],
  oracle: Oracle,
  opts: { depth?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<ExecutionTable> {
  const depth = opts.depth ?? EXEC_DEPTH;
  const keys: [number, number][] = [];
  const seen = new Set<string>();
  for (const config of rankings) {
    config.forEach((r, q) => {
      const end = Math.min(depth, r.top.length);
      for (let i = 0; i < end; i++) {
        const k = pairKey(q, r.top[i]);
        if (!seen.has(k)) {
          seen.add(k);
          keys.push([q, r.top[i]]);
        }
      }
    });
  }
  const suites = bench.queries.map(suiteOf);
  const errors: ExecutionTable['errors'] = [];
  let done = 0;
  const results = await Promise.all(
    keys.map(async ([q, c]): Promise<ExecResult> => {
      const req: ExecRequest = { code: bench.corpus[c].code, suite: suites[q] };
      try {
        return await oracle.run(req);
      } catch (err) {
        errors.push({ query_id: bench.queries[q].query_id, corpus_id: bench.corpus[c].corpus_id, message: (err as Error).message });
        return { outcomes: [`ERROR: Oracle(${(err as Error).message.split('\n')[0]})`], wall_ms: 0, passed: false, cached: false };
      } finally {
        opts.onProgress?.(++done, keys.length);
      }
    }),
  );
  const map = new Map<string, ExecResult>();
  keys.forEach(([q, c], i) => map.set(pairKey(q, c), results[i]));
  return { results: map, pairs: keys.length, cached: results.filter((r) => r.cached).length, errors };
}
