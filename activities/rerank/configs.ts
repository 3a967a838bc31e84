import { RerankConfig } from '../../schemas/rerankConfig.ts';
import { loadRegistryEntries } from '../storage/registryFile.ts';

/** Our rerankers, shipped in the repository; the user's own in the state folder; then each `--config-file`. */
export const BUILTIN_RERANKERS = 'data/rerank-configs.json';
export const USER_RERANKERS = '.execretrieval/rerank-configs.json';

/** Every reranker, later files replacing earlier entries of the same id (a bad file or entry: an error naming it). */
export function loadRerankers(root: string, files: readonly string[] = []): Map<string, RerankConfig> {
  return loadRegistryEntries({ root, required: [BUILTIN_RERANKERS], optional: [USER_RERANKERS], files }, 'rerankers', RerankConfig, (r) => r.reranker_id);
}
