import { rankBm25, rankDense, rankSparse, RANK_DEPTH, type QueryRanking, type RankQuery } from '../../core/ranking/rank.ts';
import type { DenseMatrix } from '../../core/ranking/cosine.ts';
import { DEFAULT_TIE_KEY } from '../../core/ranking/tieKey.ts';
import { readMatrix } from '../embeddings/matrix.ts';
import type { LoadedBenchmark } from './benchmark.ts';
import type { ConfigSource } from './configs.ts';
import { rankImported } from '../../core/ranking/imported.ts';
import { readParquet } from '../storage/parquet.ts';

export function rankQueries(bench: LoadedBenchmark): RankQuery[] {
  return bench.queries.map((q) => ({
    query_id: q.query_id,
    text: q.query,
    correct: q.correct_corpus_ids.map((id) => bench.corpusIndex.get(id)!),
    distractors: q.distractor_corpus_ids.map((id) => bench.corpusIndex.get(id)!),
  }));
}

/**
 * Rows of an embedding matrix in the order of `ids`. Extra rows (records the loader rejected) are ignored;
 * a missing row fails this configuration with the file and the id.
 */
export function alignRows(path: string, ids: readonly string[]): DenseMatrix & { metadata: Record<string, string> } {
  const m = readMatrix(path);
  const rowOf = new Map(m.ids.map((id, i) => [id, i]));
  const data = new Float32Array(ids.length * m.dims);
  ids.forEach((id, i) => {
    const r = rowOf.get(id);
    if (r === undefined) throw new Error(`${path}: no vector for id ${id} (${m.ids.length} rows; re-run the embedding sweep for this config)`);
    data.set(m.data.subarray(r * m.dims, (r + 1) * m.dims), i * m.dims);
  });
  return { rows: ids.length, dim: m.dims, data, metadata: m.metadata };
}

/** Ranks every benchmark query for one configuration (top RANK_DEPTH + exact own-item ranks). */
export function rankConfig(bench: LoadedBenchmark, source: ConfigSource, depth = RANK_DEPTH, tieKey = DEFAULT_TIE_KEY): QueryRanking[] {
  const queries = rankQueries(bench);
  if (source.kind === 'bm25') {
    return rankBm25(queries, bench.corpus.map((c) => ({ id: c.corpus_id, text: c.code })), depth, { k1: source.k1, b: source.b, tieKey });
  }
  if (source.kind === 'rankings') return rankImported(queries, readImportedRows(source.file), bench.corpus.map((c) => c.corpus_id), depth, tieKey);
  const Q = alignRows(source.queries, bench.queries.map((q) => q.query_id));
  const C = alignRows(source.corpus, bench.corpus.map((c) => c.corpus_id));
  // The matrices say how they score (the configuration's `similarity`, written by the sweep): SPLADE's packed
  // (term, weight) rows by sparse dot product, everything else by cosine.
  const rank = C.metadata.similarity === 'sparse-dot' ? rankSparse : rankDense;
  return rank(queries, Q, C, bench.corpus.map((c) => c.corpus_id), depth, tieKey);
}

/** The checked rows `import-rankings` stored (query_id, corpus_id, score). */
export function readImportedRows(file: string): { query_id: string; corpus_id: string; score: number }[] {
  const t = readParquet(file);
  const q = t.getChild('query_id')!.toArray() as unknown as string[];
  const c = t.getChild('corpus_id')!.toArray() as unknown as string[];
  const s = t.getChild('score')!.toArray() as Float64Array;
  return Array.from({ length: t.numRows }, (_, i) => ({ query_id: String(q[i]), corpus_id: String(c[i]), score: s[i] }));
}
