import type { ExecResult } from '../../schemas/exec.ts';
import type { Oracle } from '../exec/types.ts';
import { runOrStop } from '../exec/faultStrict.ts';
import { EXEC_DEPTH } from '../../core/metrics/per_query.ts';
import type { QueryRanking } from '../../core/ranking/rank.ts';
import { suiteSources } from '../../schemas/exec.ts';
import { NOT_DEFINED, spelledNames, suiteCandidates, undefinedNameOf } from '../../core/scoring/notDefined.ts';
import { nameFacts } from '../python/astFacts.ts';
import { suiteOf, type LoadedBenchmark } from './benchmark.ts';
import { yieldToLoop } from './yieldToLoop.ts';

export interface ExecutionTable {
  /** Verdict of corpus item c against query q's tests, keyed `${q}:${c}` (benchmark indices). */
  results: Map<string, ExecResult>;
  /** Distinct (query, snippet) pairs judged, how many came from the cache, how many were `not_defined` (not run). */
  pairs: number;
  cached: number;
  not_defined: number;
}

/** Pairs the not_defined rule settles between two turns of the event loop. */
export const EXEC_SLICE = 8192;
/**
 * Oracle calls in flight at once. Large on purpose: behind the deferring oracle (activities/pipeline/deferredExec.ts)
 * an attempt hands the exec queue the misses it asked before going quiet, so this bounds the misses of one attempt.
 */
export const EXEC_IN_FLIGHT = 16_384;

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
    /** Oracle calls in flight at once (default EXEC_IN_FLIGHT). */
    inFlight?: number;
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
  const proven = opts.runNotDefined ? null : notDefinedRule(await (opts.nameFacts ?? benchmarkNameFacts(bench)));
  const results: ExecResult[] = new Array(keys.length);
  // One not_defined verdict per query, shared by its pairs (read-only downstream): 387k pairs at 20x MBPP.
  const notDefined = new Map<number, ExecResult>();
  const toRun: number[] = [];
  let done = 0;
  for (let i = 0; i < keys.length; i++) {
    // The rule's pass over every pair is a stretch of its own at scale: the heartbeat gets a turn (yieldToLoop.ts).
    if (i % EXEC_SLICE === 0) await yieldToLoop();
    const [q, c] = keys[i];
    if (!proven?.(q, c)) {
      toRun.push(i);
      continue;
    }
    let r = notDefined.get(q);
    if (!r) notDefined.set(q, (r = { outcomes: suiteSources(suites[q]).map(() => NOT_DEFINED), wall_ms: 0, passed: false, cached: false }));
    results[i] = r;
    opts.onProgress?.(++done, keys.length);
  }
  // The pairs to run, in key order, at most `inFlight` at a time: memory holds that many calls, not one
  // promise per pair. A fault stops the lanes from taking more and rejects (runOrStop: never a result).
  let next = 0;
  let stopped = false;
  const lane = async () => {
    while (!stopped && next < toRun.length) {
      const i = toRun[next++];
      const [q, c] = keys[i];
      try {
        results[i] = await runOrStop(oracle, { code: bench.corpus[c].code, suite: suites[q] });
      } catch (err) {
        stopped = true;
        throw err;
      }
      opts.onProgress?.(++done, keys.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, opts.inFlight ?? EXEC_IN_FLIGHT), toRun.length) }, lane));
  const map = new Map<string, ExecResult>();
  keys.forEach(([q, c], i) => map.set(pairKey(q, c), results[i]));
  return { results: map, pairs: keys.length, cached: results.filter((r) => r.cached).length, not_defined: keys.length - toRun.length };
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

/**
 * Whether a pair's failure is proven without running it (core/scoring/notDefined.ts), with each snippet's and
 * each suite's part of the proof built once for the stage, not per pair.
 */
function notDefinedRule(facts: BenchmarkNameFacts): (q: number, c: number) => boolean {
  const spelled = new Map<number, ReturnType<typeof spelledNames>>();
  const candidates = new Map<number, ReturnType<typeof suiteCandidates>>();
  return (q, c) => {
    let s = spelled.get(c);
    if (s === undefined) {
      const f = facts.snippets.get(String(c));
      spelled.set(c, (s = f ? spelledNames(f) : null));
    }
    let u = candidates.get(q);
    if (u === undefined) {
      const f = facts.suites.get(String(q));
      candidates.set(q, (u = f ? suiteCandidates(f) : null));
    }
    return undefinedNameOf(s, u) !== null;
  };
}
