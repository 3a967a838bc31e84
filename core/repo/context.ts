import type { ReliableContext } from '../../schemas/gold.ts';
import type { Chunk } from '../../schemas/repoIndex.ts';

/**
 * Reliable context (user state, never guessed from the query) applied as the guide describes: a filter
 * where the constraint is reliable, a preference otherwise.
 * - `package` (a path prefix the user works in) and `language` are exact filters: the user said so.
 *   Languages compare by family (a `typescript` case keeps `.tsx` chunks).
 * - `openFile` is a preference: it says where the user is, not where the answer is (a definition the open
 *   file imports lives elsewhere), so chunks in the open file's directory are ranked up, never the others
 *   dropped. The reranker's path weight carries it; a configuration without the reranker applies that
 *   term alone (pipeline.ts).
 */
export interface ContextFilters {
  pathPrefix?: string;
  language?: string;
  /** Preferred, not required: the open file's directory. */
  preferPathPrefix?: string;
}

const FAMILY: Record<string, string> = { tsx: 'typescript', typescript: 'typescript', ts: 'typescript', js: 'javascript', jsx: 'javascript', javascript: 'javascript', py: 'python', python: 'python' };
export const languageFamily = (l: string) => FAMILY[l.toLowerCase()] ?? l.toLowerCase();

/** The open file's directory (with its trailing `/`), or '' for a file at the root. */
export const dirOf = (file: string) => (file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '');

export function contextFilters(context: ReliableContext | undefined): ContextFilters {
  const f: ContextFilters = {};
  if (context?.package) f.pathPrefix = context.package;
  if (context?.language) f.language = context.language;
  if (context?.openFile) f.preferPathPrefix = dirOf(context.openFile);
  return f;
}

/** The exact part of the filters as a chunk predicate; undefined when nothing is filtered. */
export function chunkFilter(f: ContextFilters): ((c: Chunk) => boolean) | undefined {
  if (!f.pathPrefix && !f.language) return undefined;
  const family = f.language ? languageFamily(f.language) : null;
  return (c) => (!f.pathPrefix || c.file.startsWith(f.pathPrefix)) && (!family || languageFamily(c.language) === family);
}
