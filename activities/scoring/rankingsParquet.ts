import { Table } from 'apache-arrow';
import type { QueryRanking } from '../../core/ranking/rank.ts';
import { tieRuleText } from '../../core/ranking/tieKey.ts';
import { float64Column, int32Column, readParquet, utf8Column, writeParquet } from '../storage/parquet.ts';

export interface RankingRow {
  query_id: string;
  rank: number;
  corpus_id: string;
  score: number;
}

/** The rows of a rankings file, in its order: what readRankingsParquet gives back from the file they make. */
export function rankingRows(rankings: readonly QueryRanking[], corpusIds: readonly string[]): RankingRow[] {
  const rows: RankingRow[] = [];
  for (const r of rankings) r.top.forEach((ci, i) => rows.push({ query_id: r.query_id, rank: i + 1, corpus_id: corpusIds[ci], score: r.topScores[i] }));
  return rows;
}

/** `runs/<id>/rankings/<config_id>.parquet`: one row per (query, rank) of the stored top-k. */
export function writeRankingsParquet(path: string, configId: string, rows: readonly RankingRow[], tieKey: string): void {
  const table = new Table({
    query_id: utf8Column(rows.map((r) => r.query_id)),
    rank: int32Column(rows.map((r) => r.rank)),
    corpus_id: utf8Column(rows.map((r) => r.corpus_id)),
    score: float64Column(rows.map((r) => r.score)),
  });
  writeParquet(path, table, { config_id: configId, tie_key: tieKey, tie_break: tieRuleText(tieKey) });
}

export function readRankingsParquet(path: string): RankingRow[] {
  const t = readParquet(path);
  const q = t.getChild('query_id')!.toArray() as unknown as string[];
  const r = t.getChild('rank')!.toArray() as Int32Array;
  const c = t.getChild('corpus_id')!.toArray() as unknown as string[];
  const s = t.getChild('score')!.toArray() as Float64Array;
  return Array.from({ length: t.numRows }, (_, i) => ({ query_id: String(q[i]), rank: r[i], corpus_id: String(c[i]), score: s[i] }));
}
