import { estimateAll, type BootstrapSettings, type StatEstimate } from '../stats/engine.ts';
import { discordantCounts, mcnemarExact } from '../stats/mcnemar.ts';
import type { ScoredQuery } from './types.ts';
import { fmtCi, fmtP, mdTable } from './format.ts';

/**
 * A reranker beside the first stage it reordered (both scored on the same queries by execution): exec@1 of each,
 * the gain (paired: reranked − first per query, one bootstrap over shared resamples) with the exact McNemar test on
 * the discordant queries, the first stage's exec@10 as the ceiling a reranker of that list could reach at rank 1
 * (when depth ≥ 10), and recovered: the share of the first stage's rank-1 misses with a passing snippet in its
 * top 10 that the reranker puts right, (reranked − first) / (ceiling − first) as a ratio of sums, as second_stage does
 * for RRF; negative when the reranker loses more queries than it wins.
 */
export interface RerankStageRow {
  config_id: string;
  over: string;
  reranker_id: string;
  depth: number;
  first_exec_at_1: StatEstimate;
  reranked_exec_at_1: StatEstimate;
  gain: StatEstimate;
  first_exec_at_10: StatEstimate;
  recovered: StatEstimate;
  /** Queries the reranker passes at rank 1 and the first stage fails (b), and the reverse (c), with the exact two-sided p. */
  b: number;
  c: number;
  p_value: number;
}

export function rerankStage(
  meta: { config_id: string; over: string; reranker_id: string; depth: number },
  reranked: readonly ScoredQuery[],
  first: readonly ScoredQuery[],
  settings: BootstrapSettings,
): RerankStageRow {
  if (reranked.length !== first.length || reranked.some((q, i) => q.query_id !== first[i].query_id)) {
    throw new Error(`rerankStage: ${meta.config_id} and ${meta.over} were not scored on the same queries`);
  }
  const n = first.length;
  const col = (qs: readonly ScoredQuery[], m: 'exec@1' | 'exec@10') => Float64Array.from(qs, (q) => q.metrics[m]);
  const f1 = col(first, 'exec@1');
  const r1 = col(reranked, 'exec@1');
  const f10 = col(first, 'exec@10');
  const diff = r1.map((x, i) => x - f1[i]);
  const room = f10.map((x, i) => x - f1[i]);
  const est = new Map(
    estimateAll(n, [
      { key: 'first', num: f1, den: null },
      { key: 'reranked', num: r1, den: null },
      { key: 'gain', num: diff, den: null },
      { key: 'ceiling', num: f10, den: null },
      { key: 'recovered', num: diff, den: room },
    ], settings).estimates.map((e) => [e.key, e]),
  );
  const { b, c } = discordantCounts(r1, f1);
  return {
    ...meta,
    first_exec_at_1: est.get('first')!,
    reranked_exec_at_1: est.get('reranked')!,
    gain: est.get('gain')!,
    first_exec_at_10: est.get('ceiling')!,
    recovered: est.get('recovered')!,
    b,
    c,
    p_value: mcnemarExact(b, c).p_value,
  };
}

export const RERANK_HEADER = ['reranked', 'first stage', 'depth', 'exec@1 first', 'exec@1 reranked', 'gain [CI]', 'b', 'c', 'p (McNemar)', 'exec@10 first (ceiling)', 'recovered'];

export function rerankCells(r: RerankStageRow): string[] {
  return [r.config_id, r.over, String(r.depth), fmtCi(r.first_exec_at_1), fmtCi(r.reranked_exec_at_1), fmtCi(r.gain), String(r.b), String(r.c), fmtP(r.p_value), fmtCi(r.first_exec_at_10), fmtCi(r.recovered)];
}

/** report.md section; empty when no reranker was scored beside its first stage. */
export function rerankMarkdown(rows: readonly RerankStageRow[]): string[] {
  if (!rows.length) return [];
  return [
    '',
    '## Rerankers beside their first stage',
    '',
    'Each reranker reordered its first stage\'s top `depth` (`execretrieval rerank`); both were executed and scored on the same queries. ' +
      'gain: exec@1 reranked − first, paired bootstrap interval; b: queries the reranker passes at rank 1 and the first stage fails, c: the reverse ' +
      `(exact McNemar). recovered: share of the first stage's rank-1 misses with a passing snippet in its top 10 that the reranker puts first (glossary: second_stage).`,
    '',
    mdTable(RERANK_HEADER, rows.map(rerankCells)),
  ];
}
