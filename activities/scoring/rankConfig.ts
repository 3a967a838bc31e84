import { bm25Ranker, denseRanker, sparseRanker, RANK_DEPTH, type QueryRanking, type Ranker, type RankQuery } from '../../core/ranking/rank.ts';
import type { DenseMatrix } from '../../core/ranking/cosine.ts';
import { DEFAULT_TIE_KEY } from '../../core/ranking/tieKey.ts';
import { readMatrix } from '../embeddings/matrix.ts';
import type { LoadedBenchmark } from './benchmark.ts';
import type { ConfigSource } from './configs.ts';
import { importedRanker } from '../../core/ranking/imported.ts';
import { yieldToLoop } from './yieldToLoop.ts';
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

/**
 * Query × corpus pairs ranked between two turns of the event loop: about a tenth of a second to a second of one
 * core for the dense or the BM25 ranker (bench/rank-scale.ts), so the activity's heartbeat timer (withHeartbeat)
 * fires well inside its timeout even under load. Slicing never changes a ranking (core/ranking/rank.ts Ranker).
 */
export const RANK_SLICE_PAIRS = 1 << 22;

/**
 * Ranks every benchmark query for one configuration (top RANK_DEPTH + exact own-item ranks), in slices of queries
 * with a turn of the event loop between them: one configuration of a 20x MBPP (19k queries × 95k snippets) takes
 * minutes, and ranked in one call it starved the heartbeat until the attempt timed out (docs/2026-12-05-scale-bench.md).
 */
export async function rankConfig(
  bench: LoadedBenchmark,
  source: ConfigSource,
  depth = RANK_DEPTH,
  tieKey = DEFAULT_TIE_KEY,
  slicePairs = RANK_SLICE_PAIRS,
): Promise<QueryRanking[]> {
  const ranker = rankerFor(bench, source, depth, tieKey);
  const step = Math.max(1, Math.floor(slicePairs / Math.max(1, ranker.corpus)));
  const out: QueryRanking[] = [];
  for (let from = 0; from < ranker.queries; from += step) {
    // Preparing the ranker (the BM25 index, the corpus matrix) is a stretch of its own: yield before every slice.
    await yieldToLoop();
    for (const r of ranker.rank(from, Math.min(ranker.queries, from + step))) out.push(r);
  }
  return out;
}

/** The configuration's ranker, prepared once for all its slices. */
function rankerFor(bench: LoadedBenchmark, source: ConfigSource, depth: number, tieKey: string): Ranker {
  const queries = rankQueries(bench);
  const corpusIds = bench.corpus.map((c) => c.corpus_id);
  if (source.kind === 'bm25') {
    return bm25Ranker(queries, bench.corpus.map((c) => ({ id: c.corpus_id, text: c.code })), depth, { k1: source.k1, b: source.b, tieKey });
  }
  if (source.kind === 'rankings') return importedRanker(queries, readImportedRows(source.file), corpusIds, depth, tieKey);
  const Q = alignRows(source.queries, bench.queries.map((q) => q.query_id));
  const C = alignRows(source.corpus, corpusIds);
  // The matrices say how they score (the configuration's `similarity`, written by the sweep): SPLADE's packed
  // (term, weight) rows by sparse dot product, everything else by cosine.
  const ranker = C.metadata.similarity === 'sparse-dot' ? sparseRanker : denseRanker;
  return ranker(queries, Q, C, corpusIds, depth, tieKey);
}

/** The checked rows `import-rankings` stored (query_id, corpus_id, score). */
export function readImportedRows(file: string): { query_id: string; corpus_id: string; score: number }[] {
  const t = readParquet(file);
  const q = t.getChild('query_id')!.toArray() as unknown as string[];
  const c = t.getChild('corpus_id')!.toArray() as unknown as string[];
  const s = t.getChild('score')!.toArray() as Float64Array;
  return Array.from({ length: t.numRows }, (_, i) => ({ query_id: String(q[i]), corpus_id: String(c[i]), score: s[i] }));
}
