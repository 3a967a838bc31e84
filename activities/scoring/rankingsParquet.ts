import { Float64, Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import type { QueryRanking } from '../../core/ranking/rank.ts';
import { readParquet, writeParquet } from '../storage/parquet.ts';

/** `runs/<id>/rankings/<config_id>.parquet`: one row per (query, rank) of the stored top-k. */
export function writeRankingsParquet(path: string, configId: string, rankings: readonly QueryRanking[], corpusIds: readonly string[]): void {
  const qid: string[] = [];
  const rank: number[] = [];
  const cid: string[] = [];
  const score: number[] = [];
  for (const r of rankings) {
    r.top.forEach((ci, i) => {
      qid.push(r.query_id);
      rank.push(i + 1);
      cid.push(corpusIds[ci]);
      score.push(r.topScores[i]);
    });
  }
  const table = new Table({
    query_id: vectorFromArray(qid, new Utf8()),
    rank: vectorFromArray(rank, new Int32()),
    corpus_id: vectorFromArray(cid, new Utf8()),
    score: vectorFromArray(score, new Float64()),
  });
  writeParquet(path, table, { config_id: configId, tie_break: 'score desc, then 32-bit FNV-1a of corpus_id (UTF-16 code units) asc, then corpus_id asc' });
}

export function readRankingsParquet(path: string): { query_id: string; rank: number; corpus_id: string; score: number }[] {
  const t = readParquet(path);
  const q = t.getChild('query_id')!.toArray() as unknown as string[];
  const r = t.getChild('rank')!.toArray() as Int32Array;
  const c = t.getChild('corpus_id')!.toArray() as unknown as string[];
  const s = t.getChild('score')!.toArray() as Float64Array;
  return Array.from({ length: t.numRows }, (_, i) => ({ query_id: String(q[i]), rank: r[i], corpus_id: String(c[i]), score: s[i] }));
}
