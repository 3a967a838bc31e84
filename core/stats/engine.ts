import { bootstrapSumsOfColumns, replicateRatios } from './bootstrap.ts';
import { percentileIntervalSelect as percentileInterval } from './quantile_select.ts';

/**
 * Point estimates and query-level bootstrap intervals for many statistics at once, all on the SAME
 * replicates (see bootstrap.ts for why). Each statistic is a ratio of sums over queries, sum(num)/sum(den);
 * `den: null` means a plain mean over all n queries.
 */
export interface RatioStat {
  key: string;
  num: Float64Array;
  den: Float64Array | null;
}

export interface StatEstimate {
  key: string;
  estimate: number;
  ci_low: number | null;
  ci_high: number | null;
  /** sum(den): the number of queries (or pairs) the statistic is over. */
  support: number;
}

export interface BootstrapSettings {
  replicates: number;
  seed: number;
  /** 0.05 for 95% intervals. */
  alpha: number;
}

export interface EngineResult {
  estimates: StatEstimate[];
  /** Replicate values per statistic key (NaN where a resample had an empty denominator). */
  replicates: Map<string, Float64Array>;
}

export function estimateAll(n: number, stats: readonly RatioStat[], settings: BootstrapSettings): EngineResult {
  const columns: Float64Array[] = [];
  const columnOf = new Map<Float64Array, number>();
  const ones = new Float64Array(n).fill(1);
  const col = (v: Float64Array): number => {
    if (v.length !== n) throw new RangeError(`stat column has ${v.length} values, expected ${n}`);
    let i = columnOf.get(v);
    if (i === undefined) {
      i = columns.length;
      columns.push(v);
      columnOf.set(v, i);
    }
    return i;
  };
  const keys = new Set<string>();
  const plan = stats.map((s) => {
    if (keys.has(s.key)) throw new Error(`duplicate statistic key ${s.key}`);
    keys.add(s.key);
    return { s, num: col(s.num), den: col(s.den ?? ones) };
  });
  const R = settings.replicates;
  const sums = bootstrapSumsOfColumns(columns, n, R, settings.seed);
  const replicates = new Map<string, Float64Array>();
  const estimates = plan.map(({ s, num, den }) => {
    let a = 0;
    let b = 0;
    for (let j = 0; j < n; j++) {
      a += columns[num][j];
      b += columns[den][j];
    }
    const reps = replicateRatios(sums, R, num, den);
    replicates.set(s.key, reps);
    const ci = b === 0 ? null : percentileInterval(reps, settings.alpha);
    return { key: s.key, estimate: b === 0 ? NaN : a / b, ci_low: ci ? ci[0] : null, ci_high: ci ? ci[1] : null, support: b };
  });
  return { estimates, replicates };
}
