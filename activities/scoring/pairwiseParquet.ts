import { Float64, Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import type { PairwiseRow } from '../../core/stats/pairwise.ts';
import { PRNG_NAME } from '../../core/stats/prng.ts';
import { readParquet, writeParquet } from '../storage/parquet.ts';
import { dimensionColumns } from './scoringFiles.ts';

/** runs/<id>/report/pairwise.parquet: one row per (metric, config pair); b, c, p only for binary metrics. */
export function writePairwiseParquet(path: string, rows: readonly PairwiseRow[], opts: { replicates: number; seed: number; alpha: number }): void {
  const num = (f: (r: PairwiseRow) => number | null) => vectorFromArray(rows.map(f), new Float64());
  const table = new Table({
    metric: vectorFromArray(rows.map((r) => r.metric), new Utf8()),
    ...dimensionColumns(rows.map((r) => r.metric)),
    config_a: vectorFromArray(rows.map((r) => r.config_a), new Utf8()),
    config_b: vectorFromArray(rows.map((r) => r.config_b), new Utf8()),
    value_a: num((r) => r.value_a),
    value_b: num((r) => r.value_b),
    diff: num((r) => r.diff),
    ci_low: num((r) => r.ci_low),
    ci_high: num((r) => r.ci_high),
    b: vectorFromArray(rows.map((r) => r.b), new Int32()),
    c: vectorFromArray(rows.map((r) => r.c), new Int32()),
    p_value: num((r) => r.p_value),
    p_holm: num((r) => r.p_holm),
  });
  writeParquet(path, table, { replicates: String(opts.replicates), seed: String(opts.seed), alpha: String(opts.alpha), prng: PRNG_NAME });
}

export function readPairwiseParquet(path: string): PairwiseRow[] {
  const t = readParquet(path);
  const col = (n: string) => t.getChild(n)!;
  const out: PairwiseRow[] = [];
  for (let i = 0; i < t.numRows; i++) {
    const v = (n: string) => col(n).get(i) as number | null;
    out.push({
      metric: String(col('metric').get(i)),
      config_a: String(col('config_a').get(i)),
      config_b: String(col('config_b').get(i)),
      value_a: v('value_a')!,
      value_b: v('value_b')!,
      diff: v('diff')!,
      ci_low: v('ci_low'),
      ci_high: v('ci_high'),
      b: v('b'),
      c: v('c'),
      p_value: v('p_value'),
      p_holm: v('p_holm'),
    });
  }
  return out;
}
