import type { ReliableContext, SourceRole } from '../../schemas/gold.ts';
import { byScoreThen, minMaxNormalise } from './fusion.ts';
import { queryIdentifiers, queryIntent, type QueryIntent } from './intent.ts';

/**
 * Role-aware reranker (the guide's `rerank`, extended with roles): on top of the retriever's own score
 * (min-max normalised over the candidates, since raw scores are not comparable across retrievers) add
 *   symbol · [a query identifier is a symbol the chunk defines]
 * + path   · [the chunk lies under the reliable context's package, or in the open file's directory]
 * + role   · [the chunk's role fits the query's intent]
 * − trap   · [the chunk is generated or a migration artifact]
 * The weights are configuration, tuned on the train split of gold cases and reported on the held-out
 * split (core/repo/tune.ts); the defaults below are starting values in the guide's spirit (symbol hits
 * count most with a role fit), not measured optima.
 */
export interface RerankWeights {
  symbol: number;
  path: number;
  role: number;
  trap: number;
}
export const DEFAULT_RERANK_WEIGHTS: RerankWeights = { symbol: 0.3, path: 0.2, role: 0.4, trap: 0.3 };

export interface RerankCandidate {
  chunk_id: string;
  file: string;
  symbols: readonly string[];
  role: SourceRole;
  score: number;
}

const PREFERRED: Record<QueryIntent, ReadonlySet<SourceRole>> = {
  definition: new Set(['definition', 'declaration']),
  examples: new Set(['call_site', 'test', 'docs']),
  // A setting lives in a config file or as a default in code: neither is demoted under the other.
  config: new Set(['config', 'definition', 'declaration']),
  neutral: new Set(),
};

function contextPrefixes(context: ReliableContext | undefined): string[] {
  const out: string[] = [];
  if (context?.package) out.push(context.package);
  if (context?.openFile && context.openFile.includes('/')) out.push(context.openFile.slice(0, context.openFile.lastIndexOf('/') + 1));
  return out;
}

/** Returns a new array (input untouched), each candidate's score replaced by its reranked score. */
export function rerank<C extends RerankCandidate>(
  query: string,
  candidates: readonly C[],
  context: ReliableContext | undefined,
  weights: RerankWeights = DEFAULT_RERANK_WEIGHTS,
): C[] {
  const ids = queryIdentifiers(query);
  const intent = queryIntent(query);
  const prefixes = contextPrefixes(context);
  const base = new Map(minMaxNormalise(candidates.map((c) => ({ id: c.chunk_id, score: c.score }))).map((s) => [s.id, s.score]));
  const scored = candidates.map((c) => {
    const symbolHit = ids.some((id) => c.symbols.includes(id)) ? 1 : 0;
    const pathHit = prefixes.some((p) => c.file.startsWith(p)) ? 1 : 0;
    const roleHit = PREFERRED[intent].has(c.role) ? 1 : 0;
    const trap = c.role === 'generated' || c.role === 'migration' ? 1 : 0;
    const score =
      (base.get(c.chunk_id) ?? 0) + weights.symbol * symbolHit + weights.path * pathHit + weights.role * roleHit - weights.trap * trap;
    return { ...c, score };
  });
  return scored.sort(byScoreThen((c) => c.chunk_id));
}
