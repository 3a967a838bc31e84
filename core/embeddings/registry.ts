import { EmbeddingConfig, EmbeddingConfigFile } from '../../schemas/embeddingConfig.ts';

/** One parsed registry file: its name (for messages) and its JSON content. */
export interface RegistrySource {
  file: string;
  content: unknown;
}

export interface RegistryEntry {
  config: EmbeddingConfig;
  /** File the entry came from (a later file's entry with the same config_id replaces an earlier one). */
  origin: string;
  /** The file it replaced an entry from, if any. */
  overrides: string | null;
}

export interface RegistryResult {
  entries: RegistryEntry[];
  /** `file configs[i].field: message` for every bad entry; the good entries are still returned. */
  errors: string[];
}

/**
 * Merge registry files in order: ours first, then the user's. Users add or replace entries without editing
 * ours. A bad entry is reported (file, index, config_id, field) and skipped; the rest still load.
 */
export function mergeRegistries(sources: readonly RegistrySource[]): RegistryResult {
  const byId = new Map<string, RegistryEntry>();
  const errors: string[] = [];
  for (const { file, content } of sources) {
    const top = EmbeddingConfigFile.safeParse(content);
    if (!top.success) {
      errors.push(`${file}: expected {"configs": [...]}: ${top.error.issues.map((i) => i.message).join('; ')}`);
      continue;
    }
    const seenHere = new Set<string>();
    top.data.configs.forEach((raw, i) => {
      const idHint = typeof raw === 'object' && raw && 'config_id' in raw ? ` (${String((raw as { config_id: unknown }).config_id)})` : '';
      const parsed = EmbeddingConfig.safeParse(raw);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const field = issue.path.length ? `.${issue.path.join('.')}` : '';
          errors.push(`${file} configs[${i}]${idHint}${field}: ${issue.message}`);
        }
        return;
      }
      const c = parsed.data;
      if (seenHere.has(c.config_id)) {
        errors.push(`${file} configs[${i}].config_id: duplicate ${c.config_id} in the same file`);
        return;
      }
      seenHere.add(c.config_id);
      const prev = byId.get(c.config_id);
      byId.set(c.config_id, { config: c, origin: file, overrides: prev ? prev.origin : null });
    });
  }
  return { entries: [...byId.values()], errors };
}

/** Pick configurations by id, in the order asked; unknown ids are an error naming the known ones. */
export function selectConfigs(entries: readonly RegistryEntry[], ids: readonly string[] | null): EmbeddingConfig[] {
  // No ids: the default run, every configuration not marked `default_run: false`; a named one always runs.
  if (!ids) return entries.map((e) => e.config).filter((c) => c.default_run);
  const map = new Map(entries.map((e) => [e.config.config_id, e.config]));
  const unknown = ids.filter((id) => !map.has(id));
  if (unknown.length) {
    throw new Error(`unknown configuration(s) ${unknown.join(', ')}; known: ${[...map.keys()].join(', ')}`);
  }
  return ids.map((id) => map.get(id)!);
}

/** What a configuration retrieves with: a lexical index (BM25), learned sparse term weights, or dense vectors. */
export type RetrieverKind = 'lexical' | 'sparse' | 'dense';

export function retrieverKind(config: EmbeddingConfig): RetrieverKind {
  if (config.provider === 'bm25') return 'lexical';
  if (config.similarity === 'sparse-dot') return 'sparse';
  return 'dense';
}
