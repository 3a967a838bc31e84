import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where one configuration's ranking comes from. `covers` (imported configurations only): the benchmark queries it
 * ranks when it was imported as partial; every configuration scored beside it is then scored on those only.
 */
export type ConfigSource =
  | { config_id: string; kind: 'dense'; queries: string; corpus: string; covers?: readonly string[] }
  | { config_id: string; kind: 'rankings'; file: string; covers?: readonly string[] }
  | { config_id: string; kind: 'bm25'; k1: number; b: number; covers?: undefined };

export const BM25_CONFIG_ID = 'bm25';

/** An imported ranked run's checked rows (importConfig.ts), and every import's provenance file. */
export const IMPORTED_RANKINGS = 'imported-rankings.parquet';
export const IMPORT_MANIFEST = 'import.json';

/** runs/<id>/embeddings/<config>/import.json: what an imported configuration was made from. */
export interface ImportManifest {
  config_id: string;
  kind: 'rankings' | 'vectors' | 'rerank' | 'endpoint';
  sources: { file: string; sha256: string; format: string }[];
  /** A second stage (kind rerank): the reranker, the first-stage configuration it reordered and how deep, and what it cost. */
  /** A retrieval endpoint (kind endpoint): where it was asked, how deep, and what was sent. */
  endpoint?: { endpoint_id: string; url: string; k: number; requests: number; cached: number; index_sent: boolean; empty_answers: number };
  rerank?: { reranker_id: string; provider: string; model: string; over: string; depth: number; pairs: number; cached: number; requests: number; tokens: number; search_units: number };
  rows: number;
  n_queries: number;
  /** Benchmark queries the import covers when it is partial (every configuration is then scored on these only), else null. */
  covers: string[] | null;
}

/** The import manifest of a configuration folder, or null for one the sweep wrote. */
export function readImportManifest(configDir: string): ImportManifest | null {
  const p = join(configDir, IMPORT_MANIFEST);
  return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as ImportManifest) : null;
}

/**
 * Configurations of a run: every `embeddings/<config_id>/` holding `queries.arrow` and `corpus.arrow` (what
 * the embedding sweep and `import-vectors` write) or `imported-rankings.parquet` (`import-rankings`), plus the
 * BM25 baseline, which has no matrices and is ranked from the texts (k1 = 1.5, b = 0.75 as in the registry's
 * `bm25` entry). Folders starting with '.' are an import still being written. `only` restricts and orders the
 * list (first occurrence wins, repeats are dropped); an id in `only` with no matrices is reported, not silently dropped.
 */
export function discoverConfigs(
  runDir: string,
  opts: { only?: readonly string[]; bm25?: boolean } = {},
): { configs: ConfigSource[]; missing: string[] } {
  const embDir = join(runDir, 'embeddings');
  const dense: ConfigSource[] = [];
  if (existsSync(embDir)) {
    for (const name of readdirSync(embDir).sort()) {
      if (name.startsWith('.')) continue;
      const dir = join(embDir, name);
      const covers = readImportManifest(dir)?.covers ?? undefined;
      const q = join(dir, 'queries.arrow');
      const c = join(dir, 'corpus.arrow');
      const r = join(dir, IMPORTED_RANKINGS);
      if (existsSync(q) && existsSync(c)) dense.push({ config_id: name, kind: 'dense', queries: q, corpus: c, covers });
      else if (existsSync(r)) dense.push({ config_id: name, kind: 'rankings', file: r, covers });
    }
  }
  const all: ConfigSource[] = [...dense];
  if (opts.bm25 !== false && !dense.some((d) => d.config_id === BM25_CONFIG_ID)) {
    all.push({ config_id: BM25_CONFIG_ID, kind: 'bm25', k1: 1.5, b: 0.75 });
  }
  if (!opts.only) return { configs: all, missing: [] };
  const byId = new Map(all.map((c) => [c.config_id, c]));
  // A repeated id (`--configs bm25,x,bm25`) would be scored twice and collide in the statistics.
  const only = [...new Set(opts.only)];
  return {
    configs: only.filter((id) => byId.has(id)).map((id) => byId.get(id)!),
    missing: only.filter((id) => !byId.has(id)),
  };
}

/**
 * The queries every configuration is scored on when a partial import is among them: those all partial imports
 * cover (in benchmark order), or null when none is partial. Paired tests need one query set for all.
 */
export function querySubset(configs: readonly ConfigSource[], queryIds: readonly string[]): { query_ids: string[]; by: string[] } | null {
  const partial = configs.filter((c) => c.covers);
  if (!partial.length) return null;
  const sets = partial.map((c) => new Set(c.covers));
  return { query_ids: queryIds.filter((q) => sets.every((s) => s.has(q))), by: partial.map((c) => c.config_id) };
}
