import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where one configuration's ranking comes from. */
export type ConfigSource =
  | { config_id: string; kind: 'dense'; queries: string; corpus: string }
  | { config_id: string; kind: 'bm25'; k1: number; b: number };

export const BM25_CONFIG_ID = 'bm25';

/**
 * Configurations of a run: every `embeddings/<config_id>/` holding `queries.arrow` and `corpus.arrow` (what
 * the embedding sweep writes), plus the BM25 baseline, which has no matrices and is ranked from the texts
 * (k1 = 1.5, b = 0.75 as in the registry's `bm25` entry). `only` restricts and orders the list (first
 * occurrence wins, repeats are dropped); an id in `only` with no matrices is reported, not silently dropped.
 */
export function discoverConfigs(
  runDir: string,
  opts: { only?: readonly string[]; bm25?: boolean } = {},
): { configs: ConfigSource[]; missing: string[] } {
  const embDir = join(runDir, 'embeddings');
  const dense: ConfigSource[] = [];
  if (existsSync(embDir)) {
    for (const name of readdirSync(embDir).sort()) {
      const q = join(embDir, name, 'queries.arrow');
      const c = join(embDir, name, 'corpus.arrow');
      if (existsSync(q) && existsSync(c)) dense.push({ config_id: name, kind: 'dense', queries: q, corpus: c });
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
