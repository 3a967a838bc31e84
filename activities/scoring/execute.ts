import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';
import type { Oracle } from '../exec/types.ts';
import { runOrStop } from '../exec/faultStrict.ts';
import { EXEC_DEPTH } from '../../core/metrics/per_query.ts';
import type { QueryRanking } from '../../core/ranking/rank.ts';
import { suiteSources } from '../../schemas/exec.ts';
import { NOT_DEFINED, undefinedName } from '../../core/scoring/notDefined.ts';
import { nameFacts } from '../python/astFacts.ts';
import { suiteOf, type LoadedBenchmark } from './benchmark.ts';

export interface ExecutionTable {
  /** Verdict of corpus item c against query q's tests, keyed `${q}:${c}` (benchmark indices). */
  results: Map<string, ExecResult>;
  /** Distinct (query, snippet) pairs judged, how many came from the cache, how many were `not_defined` (not run). */
  pairs: number;
  cached: number;
  not_defined: number;
}

export const pairKey = (q: number, c: number) => `${q}:${c}`;

/**
 * Runs every top-`depth` snippet of every configuration against its query's tests through the oracle, each
 * distinct (query, snippet) pair once (the oracle's cache makes a re-run free). Untrusted code never runs in
 * this process: only the oracle executes it. A pair whose failure the AST facts prove (core/scoring/notDefined.ts)
 * is not run: every test's outcome is `not_defined`. A fault (an `infra_error` result or a failing oracle call)
 * is retried once, then rejects with InfraFault: it is never scored as a failing snippet.
 */
export async function executeTopK(
  bench: LoadedBenchmark,
  rankings: readonly (readonly QueryRanking[])[],
  oracle: Oracle,
  opts: {
    depth?: number;
    onProgress?: (done: number, total: number) => void;
    /** Run the not_defined pairs too (bench/score-mbpp.ts: the path before the rule, for its baseline). */
    runNotDefined?: boolean;
    /** The benchmark's name facts, when the caller started them earlier (scoreRun: beside ranking). */
    nameFacts?: Promise<BenchmarkNameFacts>;
  } = {},
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
  const known = opts.runNotDefined ? keys.map(() => false) : notDefinedPairs(await (opts.nameFacts ?? benchmarkNameFacts(bench)), keys);
  let done = 0;
  const results = await Promise.all(
    keys.map(async ([q, c], i): Promise<ExecResult> => {
      if (known[i]) {
        opts.onProgress?.(++done, keys.length);
        return { outcomes: suiteSources(suites[q]).map(() => NOT_DEFINED), wall_ms: 0, passed: false, cached: false };
      }
      const req: ExecRequest = { code: bench.corpus[c].code, suite: suites[q] };
      const res = await runOrStop(oracle, req);
      opts.onProgress?.(++done, keys.length);
      return res;
    }),
  );
  const map = new Map<string, ExecResult>();
  keys.forEach(([q, c], i) => map.set(pairKey(q, c), results[i]));
  return { results: map, pairs: keys.length, cached: results.filter((r) => r.cached).length, not_defined: known.filter(Boolean).length };
}

export type BenchmarkNameFacts = Awaited<ReturnType<typeof nameFacts>>;

/**
 * The not_defined rule's AST facts (activities/python/astFacts.ts) for every corpus snippet and every query's
 * suite, keyed by benchmark index, in one ast_facts start. The whole corpus rather than only the retrieved
 * snippets, so that it can start before ranking and run beside it on the other core (scoreRun): ranking reads
 * every snippet too, and on MBPP the top 10 of BM25 alone reach all 4,767 of them.
 */
export function benchmarkNameFacts(bench: LoadedBenchmark): Promise<BenchmarkNameFacts> {
  return nameFacts(
    bench.corpus.map((c, i) => ({ id: String(i), code: c.code })),
    bench.queries.map((q, i) => ({ id: String(i), suite: suiteOf(q) })),
  );
}

/** For each pair, whether its failure is proven without running it. */
function notDefinedPairs(facts: BenchmarkNameFacts, keys: readonly [number, number][]): boolean[] {
  return keys.map(([q, c]) => {
    const snippet = facts.snippets.get(String(c));
    const suite = facts.suites.get(String(q));
    return snippet !== undefined && suite !== undefined && undefinedName(snippet, suite) !== null;
  });
}
