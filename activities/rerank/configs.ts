import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RerankConfig, RerankConfigFile } from '../../schemas/rerankConfig.ts';

/** Our rerankers, shipped in the repository; the user's own in the state folder; then each `--config-file`. */
export const BUILTIN_RERANKERS = 'data/rerank-configs.json';
export const USER_RERANKERS = '.execretrieval/rerank-configs.json';

/**
 * Every reranker, later files replacing earlier entries of the same id. A bad file or entry is an error naming the
 * file and the entry (a reranker is named on the command line, so a broken registry is a usage error, not a skip).
 */
export function loadRerankers(root: string, files: readonly string[] = []): Map<string, RerankConfig> {
  const out = new Map<string, RerankConfig>();
  const paths = [join(root, BUILTIN_RERANKERS), ...(existsSync(join(root, USER_RERANKERS)) ? [join(root, USER_RERANKERS)] : []), ...files.map((f) => resolve(f))];
  for (const path of paths) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new Error(`${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not valid JSON: ${(e as Error).message}`}`);
    }
    const file = RerankConfigFile.safeParse(raw);
    if (!file.success) throw new Error(`${path}: expected {"rerankers": [...]}`);
    file.data.rerankers.forEach((entry, i) => {
      const parsed = RerankConfig.safeParse(entry);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new Error(`${path}: rerankers[${i}].${issue.path.map(String).join('.')}: ${issue.message}`);
      }
      out.set(parsed.data.reranker_id, parsed.data);
    });
  }
  return out;
}
