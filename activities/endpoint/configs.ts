import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RetrievalEndpoint, RetrievalEndpointFile } from '../../schemas/retrievalEndpoint.ts';

/** The user's endpoints (git-ignored state folder), then each `--config-file`; later entries replace earlier ones. */
export const USER_ENDPOINTS = '.execretrieval/retrieval-endpoints.json';

export function loadEndpoints(root: string, files: readonly string[] = []): Map<string, RetrievalEndpoint> {
  const out = new Map<string, RetrievalEndpoint>();
  const paths = [...(existsSync(join(root, USER_ENDPOINTS)) ? [join(root, USER_ENDPOINTS)] : []), ...files.map((f) => resolve(f))];
  for (const path of paths) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new Error(`${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not valid JSON: ${(e as Error).message}`}`);
    }
    const file = RetrievalEndpointFile.safeParse(raw);
    if (!file.success) throw new Error(`${path}: expected {"endpoints": [...]}`);
    file.data.endpoints.forEach((entry, i) => {
      const parsed = RetrievalEndpoint.safeParse(entry);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new Error(`${path}: endpoints[${i}].${issue.path.map(String).join('.')}: ${issue.message}`);
      }
      out.set(parsed.data.endpoint_id, parsed.data);
    });
  }
  return out;
}
