import { RetrievalEndpoint } from '../../schemas/retrievalEndpoint.ts';
import { loadRegistryEntries } from '../storage/registryFile.ts';

/** The user's endpoints (git-ignored state folder), then each `--config-file`; later entries replace earlier ones. */
export const USER_ENDPOINTS = '.execretrieval/retrieval-endpoints.json';

export function loadEndpoints(root: string, files: readonly string[] = []): Map<string, RetrievalEndpoint> {
  return loadRegistryEntries({ root, optional: [USER_ENDPOINTS], files }, 'endpoints', RetrievalEndpoint, (e) => e.endpoint_id);
}
