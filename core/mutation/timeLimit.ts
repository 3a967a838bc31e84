/**
 * A mutant's per-suite time limit, from its canonical's measured run on the same suite.
 *
 * Most mutants finish in the time their canonical takes; the ones that do not are usually loops that never end,
 * and before this rule each of those paid a fixed 1 s (63% of an MBPP build's execution time went to them).
 * The measure is the canonical's CPU time, not its wall time: wall time follows the machine's load (on a shared
 * 2-core machine an MBPP canonical's wall time varied 3x at the median, 13x at the 95th percentile, and put
 * 811 of 974 tasks in another tier), CPU time hardly (1.01x median under six CPU burners, no tier changed). The
 * limit itself is enforced on time computing or blocked, not waiting for a CPU (infra/runner/sandbox_zygote.py),
 * so a verdict near it does not follow the load either.
 * The limit is a multiple of the canonical's CPU time with a floor, rounded up to a few fixed tiers:
 *  - the floor (0.1 s) is far above any finishing mutant's time: at most 23 ms of CPU on MBPP (p99 10 ms),
 *    9 ms on the curated set, quiet or loaded; every loop that never ends pays it in full, so it is kept low
 *    (from 0.2 s: the 66 MBPP loops cost 6.6 s of CPU less);
 *  - the multiple (5×) leaves room for mutants that do more work than the canonical and still finish, and keeps
 *    the floor's boundary where the 0.2 s floor at 10× had it, at a 20 ms canonical (MBPP: at most 9.6 ms quiet;
 *    under load one canonical, 3.7 ms quiet, once measured 26.5 ms and got the next tier, under either rule; at
 *    10× a 0.1 s floor would put the boundary at 10 ms, where loaded MBPP canonicals already are);
 *  - tiers, because the limit is part of the execution-cache key: a limit that moved with every measurement
 *    would make a rebuild miss the cache;
 *  - never more than the old fixed tiers (1 s under 250 ms, 3 s under 1 s, else 5 s).
 * A mutant that exceeds it is a timeout, classified exactly as one under a longer limit (core/mutation/classify.ts).
 */
export const MUTANT_LIMIT_MULTIPLE = 5;
export const MUTANT_LIMIT_FLOOR_S = 0.1;
export const MUTANT_LIMIT_TIERS_S = [0.1, 0.2, 0.5, 1, 2, 3, 5] as const;

/**
 * A canonical that passes must use at most this much CPU time (a fifth of the longest mutant limit), or its task
 * is rejected as too slow: its mutants would need the longest limit each, and whether it passes its own 5 s at
 * all follows the machine (MBPP's mbpp_123 takes 2–4 s of CPU, depending on what else runs, and timed out in
 * every recorded build; every other MBPP canonical stays under 15 ms: the boundary sits far from any of them).
 */
export const CANONICAL_MAX_CPU_MS = 1000;

/** The limit before measurements counted: kept as the ceiling. */
function fixedTierS(canonicalMs: number): number {
  return canonicalMs < 250 ? 1 : canonicalMs < 1000 ? 3 : 5;
}

/** The mutants' limit (seconds) from the canonical's CPU time (ms) on the same suite. */
export function mutantTimeLimitS(canonicalCpuMs: number): number {
  const want = Math.max(MUTANT_LIMIT_FLOOR_S, (MUTANT_LIMIT_MULTIPLE * canonicalCpuMs) / 1000);
  const tier = MUTANT_LIMIT_TIERS_S.find((t) => t >= want) ?? MUTANT_LIMIT_TIERS_S[MUTANT_LIMIT_TIERS_S.length - 1];
  return Math.min(tier, fixedTierS(canonicalCpuMs));
}

export function canonicalTooSlow(canonicalCpuMs: number): boolean {
  return canonicalCpuMs > CANONICAL_MAX_CPU_MS;
}
