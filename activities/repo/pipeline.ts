import type { GoldCase } from '../../schemas/gold.ts';
import type { Chunk, RankedChunk, RetrievalRecord } from '../../schemas/repoIndex.ts';
import type { Scored } from '../../core/repo/fusion.ts';
import { DEFAULT_RERANK_WEIGHTS, rerank, type RerankWeights } from '../../core/repo/rerank.ts';
import { chunkFilter, contextFilters, type ContextFilters } from '../../core/repo/context.ts';

const NO_RERANK: RerankWeights = { symbol: 0, path: 0, role: 0, trap: 0 };
import type { Embedder } from './embedder.ts';
import type { LoadedIndex } from './indexStore.ts';
import { bm25Retriever, denseRetriever, hybridRetriever, symbolRetriever, type Retriever } from './retrievers.ts';
import type { CaseRetriever } from './outside.ts';

/**
 * One retrieval configuration, end to end: retriever → optional reliable-context filter → candidates →
 * optional role-aware rerank → optional neighbour expansion → final context (the first `cutoff`).
 */
export const RETRIEVER_KINDS = ['bm25', 'symbol', 'dense', 'hybrid_rrf', 'hybrid_weighted'] as const;
export type RetrieverKind = (typeof RETRIEVER_KINDS)[number];

export interface PipelineConfig {
  retriever: RetrieverKind;
  /**
   * An outside retriever (an imported run's name, `endpoint:<id>`) that replaces `retriever`: looked up in the
   * RetrieverSet's `outside` map, and the configuration is named after it (activities/repo/outside.ts).
   */
  source?: string;
  /** Hybrid weights in the order bm25, symbol, dense (dense dropped when no embedder). */
  fusionWeights?: number[];
  /** Candidates kept before reranking (the "inspected depth" a diagnosis talks about). */
  candidateDepth: number;
  /** Filter by the case's reliable context (package path prefix, language) before ranking. */
  contextFilter: boolean;
  rerank: RerankWeights | null;
  /** After each definition in the final context, pull in the chunk just before it in its file. */
  neighbours: boolean;
}

export const DEFAULT_PIPELINE: PipelineConfig = { retriever: 'bm25', candidateDepth: 50, contextFilter: false, rerank: null, neighbours: false };

/**
 * A retriever's name lists its components, so a configuration that lost one (a dense model that did not
 * load) can never be reported, or gated, under the name of the one that has it: `bm25`, `symbol`,
 * `dense:<config_id>`, `hybrid_rrf(bm25+symbol+dense:<config_id>)`, `hybrid_weighted(bm25+symbol)`.
 */
export function retrieverName(kind: RetrieverKind, denseId: string | null): string {
  const dense = denseId ? `dense:${denseId}` : null;
  if (kind === 'dense') return dense ?? 'dense';
  if (kind === 'hybrid_rrf' || kind === 'hybrid_weighted') return `${kind}(${['bm25', 'symbol', dense].filter(Boolean).join('+')})`;
  return kind;
}

/** The configuration's name: the retriever's (with its components), then `+ctx`, `+rerank`, `+nbr`. */
export function pipelineName(c: PipelineConfig, denseId: string | null = null): string {
  return [c.source ?? retrieverName(c.retriever, denseId), c.contextFilter ? 'ctx' : null, c.rerank ? 'rerank' : null, c.neighbours ? 'nbr' : null].filter(Boolean).join('+');
}

export interface RetrieverSet {
  bm25: Retriever;
  symbol: Retriever;
  dense: Retriever | null;
  /** The dense component's embedding configuration, when there is one (it is part of the names). */
  denseId: string | null;
  byId: Map<string, Chunk>;
  byFile: Map<string, Chunk[]>;
  /** Outside retrievers by name (imported runs, retrieval endpoints), for configurations with a `source`. */
  outside: ReadonlyMap<string, CaseRetriever>;
}

/** Chunks per file, in index order: neighbour expansion and diagnosis both look a file up this way. */
export function chunksByFile(chunks: readonly Chunk[]): Map<string, Chunk[]> {
  const byFile = new Map<string, Chunk[]>();
  for (const c of chunks) {
    let l = byFile.get(c.file);
    if (!l) byFile.set(c.file, (l = []));
    l.push(c);
  }
  return byFile;
}

export function retrieverSet(index: LoadedIndex, embedder?: Embedder, outside: ReadonlyMap<string, CaseRetriever> = new Map()): RetrieverSet {
  const byId = new Map(index.chunks.map((c) => [c.chunk_id, c]));
  const byFile = chunksByFile(index.chunks);
  const dense = embedder && index.vectors ? denseRetriever(index.chunks, index.vectors, embedder) : null;
  if (embedder && index.manifest.embedder && embedder.info.config_id !== index.manifest.embedder.config_id) {
    throw new Error(`embedder ${embedder.info.config_id} differs from the index's (${index.manifest.embedder.config_id}): query and document vectors would not be comparable`);
  }
  return { bm25: bm25Retriever(index.chunks), symbol: symbolRetriever(index.chunks), dense, denseId: dense ? embedder!.info.config_id : null, byId, byFile, outside };
}

function pick(set: RetrieverSet, cfg: PipelineConfig, testCase: GoldCase): Retriever {
  if (cfg.source !== undefined) {
    const outside = set.outside.get(cfg.source);
    if (!outside) throw new Error(`retriever ${cfg.source}: not loaded`);
    return { name: outside.name, search: (_query, opts) => outside.search(testCase, opts) };
  }
  const parts = [set.bm25, set.symbol, ...(set.dense ? [set.dense] : [])];
  const weights = cfg.fusionWeights?.slice(0, parts.length);
  switch (cfg.retriever) {
    case 'bm25':
      return set.bm25;
    case 'symbol':
      return set.symbol;
    case 'dense':
      if (!set.dense) throw new Error('dense retrieval needs an embedder and an index built with one (repo index --embedder ...)');
      return set.dense;
    case 'hybrid_rrf':
      return hybridRetriever(parts, { kind: 'rrf', weights });
    case 'hybrid_weighted':
      return hybridRetriever(parts, { kind: 'weighted', weights: weights ?? parts.map(() => 1) });
  }
}

function toRanked(list: readonly Scored[], byId: Map<string, Chunk>): RankedChunk[] {
  return list.map((s, i) => {
    const c = byId.get(s.id)!;
    return { rank: i + 1, chunk_id: c.chunk_id, file: c.file, symbols: c.symbols, references: c.references, role: c.role, revision: c.revision, score: s.score };
  });
}

function withNeighbours(ranked: RankedChunk[], set: RetrieverSet, cutoff: number): RankedChunk[] {
  const out: RankedChunk[] = [];
  const seen = new Set<string>();
  for (const r of ranked) {
    if (seen.has(r.chunk_id)) continue;
    out.push(r);
    seen.add(r.chunk_id);
    if (out.length > cutoff || r.role !== 'definition') continue;
    const siblings = set.byFile.get(r.file) ?? [];
    const i = siblings.findIndex((c) => c.chunk_id === r.chunk_id);
    const prev = i > 0 ? siblings[i - 1] : undefined;
    if (prev && !seen.has(prev.chunk_id)) {
      out.push({ ...toRanked([{ id: prev.chunk_id, score: r.score }], set.byId)[0] });
      seen.add(prev.chunk_id);
    }
  }
  return out.map((r, i) => ({ ...r, rank: i + 1 }));
}

export async function retrieveForCase(testCase: GoldCase, index: LoadedIndex, set: RetrieverSet, cfg: PipelineConfig): Promise<RetrievalRecord> {
  const filters: ContextFilters = cfg.contextFilter ? contextFilters(testCase.context) : {};
  const filter = chunkFilter(filters);
  const hits = await pick(set, cfg, testCase).search(testCase.query, { topK: cfg.candidateDepth, filter });
  const before = toRanked(hits, set.byId);
  // The open file is a preference: the reranker's path term, or that term alone when there is no reranker.
  const preference = cfg.rerank ?? (filters.preferPathPrefix !== undefined ? { ...NO_RERANK, path: DEFAULT_RERANK_WEIGHTS.path } : null);
  let after = preference ? rerank(testCase.query, before, testCase.context, preference).map((c, i) => ({ ...c, rank: i + 1 })) : before;
  if (cfg.neighbours) after = withNeighbours(after, set, testCase.cutoff);
  return {
    case_id: testCase.id,
    retriever: pipelineName(cfg, set.denseId),
    query: testCase.query,
    searched_query: testCase.query,
    filters,
    index_build_id: index.manifest.index_build_id,
    index_revision: index.manifest.revision,
    candidates_before_rerank: before,
    candidates_after_rerank: after,
    final_context_ids: after.slice(0, testCase.cutoff).map((c) => c.chunk_id),
  };
}
