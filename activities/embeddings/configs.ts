import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mergeRegistries, type RegistryResult, type RegistrySource } from '../../core/embeddings/registry.ts';

/** Our registry, shipped in the repository. */
export const BUILTIN_REGISTRY = 'data/embedding-configs.json';
/** The user's own entries, picked up automatically when present (git-ignored state folder). */
export const USER_REGISTRY = '.execretrieval/embedding-configs.json';

export interface LoadRegistryOptions {
  root: string;
  /** Extra files (`--config-file`), merged after ours and the user's, in order. */
  files?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Loads ours, then `.execretrieval/embedding-configs.json`, then `$EXECRETRIEVAL_EMBEDDING_CONFIGS`, then
 * each `--config-file`: later entries with the same config_id replace earlier ones (the listing says so).
 * A file that is missing or not JSON is an error entry; the others still load.
 */
export function loadRegistry(opts: LoadRegistryOptions): RegistryResult {
  const env = opts.env ?? process.env;
  const paths: { path: string; required: boolean }[] = [
    { path: join(opts.root, BUILTIN_REGISTRY), required: true },
    { path: join(opts.root, USER_REGISTRY), required: false },
    ...(env.EXECRETRIEVAL_EMBEDDING_CONFIGS ? [{ path: resolve(env.EXECRETRIEVAL_EMBEDDING_CONFIGS), required: true }] : []),
    ...(opts.files ?? []).map((f) => ({ path: resolve(f), required: true })),
  ];
  const sources: RegistrySource[] = [];
  const errors: string[] = [];
  for (const { path, required } of paths) {
    if (!existsSync(path)) {
      if (required) errors.push(`${path}: no such file`);
      continue;
    }
    try {
      sources.push({ file: path, content: JSON.parse(readFileSync(path, 'utf8')) });
    } catch (e) {
      errors.push(`${path}: not valid JSON: ${(e as Error).message}`);
    }
  }
  const merged = mergeRegistries(sources);
  return { entries: merged.entries, errors: [...errors, ...merged.errors] };
}
