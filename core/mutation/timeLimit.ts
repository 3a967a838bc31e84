/**
 * A mutant's per-suite time limit, from its canonical's measured run on the same suite.
 *
 * Most mutants finish in the time their canonical takes; the ones that do not are usually loops that never end,
 * and before this rule each of those paid a fixed 1 s (63% of an MBPP build's execution time went to them).
 * The limit is a multiple of the canonical's wall time with a floor, rounded up to a few fixed tiers:
 *  - the multiple (10×) leaves room for mutants that do more work than the canonical and still finish;
 *  - the floor (0.2 s) is far above any finishing MBPP mutant seen on a loaded 2-core machine (74 ms at load
 *    4–15), since the limit is wall-clock time and load stretches it;
 *  - tiers, because the limit is part of the execution-cache key: a limit that moved with every measurement
 *    would make a rebuild miss the cache, and would make near-limit verdicts flap with machine load;
 *  - never more than the old fixed tiers (1 s under 250 ms, 3 s under 1 s, else 5 s).
 * A mutant that exceeds it is a timeout, classified exactly as one under a longer limit (core/mutation/classify.ts).
 */
export const MUTANT_LIMIT_MULTIPLE = 10;
export const MUTANT_LIMIT_FLOOR_S = 0.2;
export const MUTANT_LIMIT_TIERS_S = [0.2, 0.5, 1, 2, 3, 5] as const;

/** The limit before measurements counted: kept as the ceiling. */
function fixedTierS(canonicalWallMs: number): number {
  return canonicalWallMs < 250 ? 1 : canonicalWallMs < 1000 ? 3 : 5;
}

export function mutantTimeLimitS(canonicalWallMs: number): number {
  const want = Math.max(MUTANT_LIMIT_FLOOR_S, (MUTANT_LIMIT_MULTIPLE * canonicalWallMs) / 1000);
  const tier = MUTANT_LIMIT_TIERS_S.find((t) => t >= want) ?? MUTANT_LIMIT_TIERS_S[MUTANT_LIMIT_TIERS_S.length - 1];
  return Math.min(tier, fixedTierS(canonicalWallMs));
}
