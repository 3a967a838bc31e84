import { percentileIntervalInPlace } from './quantile_select.ts';

/**
 * Paired-bootstrap difference A − B (Efron & Tibshirani 1993, ch. 16): because both statistics were computed
 * on the same resampled query sets (see bootstrap.ts), the replicate differences are the bootstrap
 * distribution of the difference itself, and the percentile interval of those is its confidence interval.
 */
export interface PairedDifference {
  /** Observed difference on the full query set. */
  diff: number;
  ci_low: number | null;
  ci_high: number | null;
  /** Share of replicates with A > B (a readable strength of evidence, not a test). */
  share_a_better: number;
  /**
   * Two-sided paired-bootstrap p-value of H0: A − B = 0 (the percentile interval inverted: Efron & Tibshirani
   * 1993, §16.4): twice the smaller share of replicate differences on either side of 0, each counted with the
   * observed one ((1 + k) / (1 + R)), so p is never 0 and p < alpha exactly when 0 lies outside the (1 − alpha)
   * percentile interval, up to the replicates' resolution. NaN with no valid replicate.
   */
  p_value: number;
}

/** One scratch buffer for every call: the pairwise stage makes thousands, and a fresh 40 KB array each was most of its garbage. */
let scratch = new Float64Array(0);

export function pairedBootstrapDifference(
  observedA: number,
  observedB: number,
  replicatesA: Float64Array,
  replicatesB: Float64Array,
  alpha = 0.05,
): PairedDifference {
  if (replicatesA.length !== replicatesB.length) throw new RangeError('pairedBootstrapDifference: replicate counts differ');
  if (scratch.length < replicatesA.length) scratch = new Float64Array(replicatesA.length);
  const d = scratch;
  let better = 0;
  let ties = 0;
  let valid = 0;
  for (let r = 0; r < replicatesA.length; r++) {
    const x = replicatesA[r] - replicatesB[r];
    if (x === x) {
      // not NaN (a replicate where either ratio had an empty denominator is left out)
      d[valid++] = x;
      if (x > 0) better++;
      else if (x === 0) ties++;
    }
  }
  const atOrAbove = better + ties;
  const atOrBelow = valid - better;
  const ci = percentileIntervalInPlace(d.subarray(0, valid), alpha);
  return {
    diff: observedA - observedB,
    ci_low: ci ? ci[0] : null,
    ci_high: ci ? ci[1] : null,
    share_a_better: valid ? better / valid : NaN,
    p_value: valid ? Math.min(1, (2 * (1 + Math.min(atOrBelow, atOrAbove))) / (1 + valid)) : NaN,
  };
}
