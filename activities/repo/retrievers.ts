import type { Chunk } from '../../schemas/repoIndex.ts';
import { buildBm25Index } from '../../core/bm25.ts';
import { byScoreThenId, reciprocalRankFusion, weightedScoreFusion, type Scored } from '../../core/repo/fusion.ts';
import { queryIdentifiers } from '../../core/repo/intent.ts';
import { cosine, type Embedder } from './embedder.ts';

/**
 * Retrievers behind one small interface (mteb's models_protocols does the same): each ranks the chunks
 * that pass `filter` and returns the top `topK` with its own scores (not comparable across retrievers).
 * Ties break by chunk id.
 */
export interface SearchOptions {
  topK: number;
  filter?: (chunk: Chunk) => boolean;
}
export interface Retriever {
  readonly name: string;
  search(query: string, opts: SearchOptions): Promise<Scored[]>;
}

function topFromScores(chunks: readonly Chunk[], scores: ArrayLike<number>, opts: SearchOptions, keep: (s: number) => boolean = () => true): Scored[] {
  const out: Scored[] = [];
  for (let i = 0; i < chunks.length; i++) {
    if (!keep(scores[i]) || (opts.filter && !opts.filter(chunks[i]))) continue;
    out.push({ id: chunks[i].chunk_id, score: scores[i] });
  }
  out.sort(byScoreThenId);
  return out.slice(0, opts.topK);
}

/** The text BM25 sees: path and defined symbols first (they carry meaning in code), then the chunk. */
export function lexicalText(c: Chunk): string {
  return `${c.file}\n${c.symbols.join(' ')}\n${c.text}`;
}

export function bm25Retriever(chunks: readonly Chunk[], params: { k1?: number; b?: number } = {}): Retriever {
  const index = buildBm25Index(chunks.map((c) => ({ id: c.chunk_id, text: lexicalText(c) })), params);
  return {
    name: 'bm25',
    async search(query, opts) {
      // Zero-score chunks share no token with the query: they are not candidates.
      return topFromScores(chunks, index.scoreAll(query), opts, (s) => s > 0);
    },
  };
}

/**
 * Exact symbol lookup: chunks that define an identifier written in the query, scored by how many of the
 * query's identifiers they define (case-sensitive, as identifiers are). What a language server's
 * "go to definition" gives; it never returns usages.
 */
export function symbolRetriever(chunks: readonly Chunk[]): Retriever {
  const bySymbol = new Map<string, number[]>();
  chunks.forEach((c, i) => {
    for (const s of c.symbols) {
      let l = bySymbol.get(s);
      if (!l) bySymbol.set(s, (l = []));
      l.push(i);
    }
  });
  return {
    name: 'symbol',
    async search(query, opts) {
      const scores = new Float64Array(chunks.length);
      // A qualified name as each language writes it (`VersionReq::matches`, `Store.Get`, `C->m`) is also
      // looked up as the chunker's `Owner.member` symbol.
      const qualified = (query.match(/[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+/g) ?? []).map((q) => q.replace(/::|->/g, '.'));
      for (const id of new Set([...queryIdentifiers(query), ...qualified])) for (const i of bySymbol.get(id) ?? []) scores[i] += 1;
      return topFromScores(chunks, scores, opts, (s) => s > 0);
    },
  };
}

export function denseRetriever(chunks: readonly Chunk[], vectors: readonly Float32Array[], embedder: Embedder): Retriever {
  if (vectors.length !== chunks.length) throw new Error(`dense: ${chunks.length} chunks but ${vectors.length} vectors`);
  return {
    name: `dense:${embedder.info.config_id}`,
    async search(query, opts) {
      const [q] = await embedder.embed([query], 'query');
      const scores = vectors.map((v) => cosine(q, v));
      return topFromScores(chunks, scores, opts);
    },
  };
}

export type FusionSpec = { kind: 'rrf'; k?: number; weights?: number[] } | { kind: 'weighted'; weights: number[] };

/** Hybrid: each part retrieves `depth` candidates, the lists are fused, the top `topK` kept. */
export function hybridRetriever(parts: readonly Retriever[], fusion: FusionSpec, depth = 100): Retriever {
  return {
    name: `hybrid_${fusion.kind}(${parts.map((p) => p.name).join('+')})`,
    async search(query, opts) {
      const lists = await Promise.all(parts.map((p) => p.search(query, { ...opts, topK: Math.max(depth, opts.topK) })));
      const fused = fusion.kind === 'rrf' ? reciprocalRankFusion(lists, { k: fusion.k, weights: fusion.weights }) : weightedScoreFusion(lists, fusion.weights);
      return fused.slice(0, opts.topK);
    },
  };
}
