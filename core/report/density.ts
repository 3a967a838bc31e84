import { estimateAll, type BootstrapSettings, type StatEstimate } from '../stats/engine.ts';
import { Xoshiro128 } from '../stats/prng.ts';
import { expectedExecAtK, expectedPrecisionAtK } from '../metrics/tie_aware.ts';
import type { ScoredQuery } from './types.ts';

/**
 * Density scaling (paper §5.3): how exec@1, execp@k and the deception rate move as the pool holds 0, 1, 2, 3, 4
 * paired twins (own buggy distractors) per query. No new ranking is computed: the pool at level L keeps every
 * canonical and, of each query's twins, a seeded uniform choice of min(L, its twin count); the removed twins
 * leave the pool for every query, so each stored ranking is re-read with them deleted (deleting items keeps the
 * order of the rest, so the first k survivors of the executed top list are exactly the reduced pool's top k).
 *
 * Each draw shuffles every query's twins once and level L keeps the first L of that order, so the levels are
 * nested within a draw (less noise between adjacent levels). A query's value at a level is its mean over the
 * draws; intervals are the usual query-level bootstrap (core/stats/engine.ts) over those per-query means, and
 * deception is a ratio of sums (deceived / has at least one kept twin), strict score as in core/deception.
 *
 * exec@1 and execp@k are the tie-aware expectations (core/metrics/tie_aware.ts, as the headline's exec@1_ta):
 * the hash order's toss among equal scores would otherwise move the curve (issue 37).
 *
 * `short` counts (query, draw) cases where the survivors do not settle the value: fewer than k executed
 * snippets survive the deletion (this needs more than 10 - k deleted twins in one top list), or the tied group
 * reaching position k runs past the executed top 10 into members never executed. Unseen positions count as
 * failing there, so those values are lower bounds.
 */
export interface DensityOptions {
  levels: readonly number[];
  draws: number;
  /** Cutoff of execp@k. k <= 6 keeps every value exact whenever a top list loses at most its own 4 twins. */
  k: number;
  seed: number;
}

export const DEFAULT_DENSITY: DensityOptions = { levels: [0, 1, 2, 3, 4], draws: 5, k: 5, seed: 0 };

export interface DensityPoint {
  twins: number;
  /** Mean number of twins per query kept in the pool at this level (less than `twins` where queries have fewer). */
  mean_kept: number;
  /** Tie-aware: exec@1_ta of the reduced pool. */
  exec_at_1: StatEstimate;
  /** Tie-aware: execp@k_ta of the reduced pool. */
  execp_at_k: StatEstimate;
  /** NaN estimate at level 0 (no twin, nothing to be deceived by). */
  deception_rate: StatEstimate;
  short: number;
}

export interface DensityTable {
  config_id: string;
  k: number;
  draws: number;
  points: DensityPoint[];
}

/** One configuration's table. `settings` are the report's bootstrap settings (seed shared with the report). */
export function densityScaling(config_id: string, queries: readonly ScoredQuery[], opts: DensityOptions, settings: BootstrapSettings): DensityTable {
  const n = queries.length;
  const { levels, draws, k } = opts;
  if (!Number.isInteger(draws) || draws < 1) throw new RangeError(`density: draws must be a positive integer, got ${draws}`);
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`density: k must be a positive integer, got ${k}`);
  const twinsOf = queries.map((q) => q.own.filter((o) => !o.is_canonical));
  const canonicalScore = queries.map((q) => Math.max(...q.own.filter((o) => o.is_canonical).map((o) => o.score)));
  const L = levels.length;
  // Per level: per-query sums over draws.
  const exec1 = levels.map(() => new Float64Array(n));
  const execp = levels.map(() => new Float64Array(n));
  const deceived = levels.map(() => new Float64Array(n));
  const hasTwin = levels.map(() => new Float64Array(n));
  const kept = new Float64Array(L);
  const short = new Float64Array(L);
  const rng = new Xoshiro128(opts.seed >>> 0);
  for (let d = 0; d < draws; d++) {
    // One Fisher–Yates shuffle of each query's twins per draw; level L keeps the first L.
    const order = twinsOf.map((t) => {
      const a = t.slice();
      for (let i = a.length - 1; i > 0; i--) {
        const j = rng.nextInt(i + 1);
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a;
    });
    for (let l = 0; l < L; l++) {
      const level = levels[l];
      const removed = new Set<string>();
      for (const a of order) for (let i = level; i < a.length; i++) removed.add(a[i].corpus_id);
      for (let q = 0; q < n; q++) {
        const keptTwins = order[q].slice(0, level);
        kept[l] += keptTwins.length;
        const hits = queries[q].hits;
        const survivors = hits.filter((h) => !removed.has(h.corpus_id));
        const scores = survivors.map((h) => h.score);
        const passed = survivors.map((h) => h.passed);
        // The group at position k continues past the executed top list when the stored closure went further.
        const unseenTail = queries[q].ties.closure > hits.length && survivors.length >= k && scores[k - 1] === scores[scores.length - 1];
        if (survivors.length < k || unseenTail) short[l]++;
        exec1[l][q] += survivors.length ? expectedExecAtK(scores, passed, 1) : 0;
        execp[l][q] += survivors.length ? expectedPrecisionAtK(scores, passed, k) : 0;
        if (keptTwins.length) {
          hasTwin[l][q] += 1;
          if (keptTwins.some((t) => t.score > canonicalScore[q])) deceived[l][q] += 1;
        }
      }
    }
  }
  const scale = (v: Float64Array) => v.map((x) => x / draws);
  const stats = levels.flatMap((_, l) => [
    { key: `${l}:exec@1`, num: scale(exec1[l]), den: null },
    { key: `${l}:execp@${k}`, num: scale(execp[l]), den: null },
    { key: `${l}:deception_rate`, num: scale(deceived[l]), den: scale(hasTwin[l]) },
  ]);
  const est = new Map(estimateAll(n, stats, settings).estimates.map((e) => [e.key, e]));
  return {
    config_id,
    k,
    draws,
    points: levels.map((twins, l) => ({
      twins,
      mean_kept: kept[l] / (draws * n),
      exec_at_1: est.get(`${l}:exec@1`)!,
      execp_at_k: est.get(`${l}:execp@${k}`)!,
      deception_rate: est.get(`${l}:deception_rate`)!,
      short: short[l],
    })),
  };
}
