import type { EvidenceGroup, EvidenceTarget, SourceRole } from '../../schemas/gold.ts';
import { isGlob, matchGlob } from './glob.ts';

/** The identity fields evidence matching looks at (a RankedChunk or a Chunk both have them). */
export interface ChunkIdentity {
  chunk_id: string;
  file: string;
  symbols: readonly string[];
  references?: readonly string[];
  role: SourceRole;
  revision: string;
}

/** Roles whose chunk must *define* the target symbol; the others only need to use it. */
const DEFINING: ReadonlySet<SourceRole> = new Set(['definition', 'declaration']);

export function fileMatches(file: string, pattern: string): boolean {
  return isGlob(pattern) ? matchGlob(file, pattern) : file === pattern;
}

/**
 * The guide's `targetMatches`, extended: a target file may be a glob, a chunk carries several symbols, and
 * for usage roles (call_site, test, docs, config) a symbol the chunk references counts as well — a test
 * that constructs `RetryPolicy` is test evidence for `RetryPolicy` without defining it.
 */
export function targetMatches(chunk: ChunkIdentity, target: EvidenceTarget): boolean {
  if (!fileMatches(chunk.file, target.file)) return false;
  if (!target.roles.includes(chunk.role)) return false;
  if (target.symbol === undefined) return true;
  if (chunk.symbols.includes(target.symbol)) return true;
  return !DEFINING.has(chunk.role) && (chunk.references ?? []).includes(target.symbol);
}

export function groupMatches(chunk: ChunkIdentity, group: EvidenceGroup): boolean {
  return group.anyOf.some((t) => targetMatches(chunk, t));
}

/** Commit ids compare by prefix (a case may pin an abbreviated id; indexes record the full one). */
export function sameRevision(a: string, b: string): boolean {
  if (a.length < 7 || b.length < 7) return false;
  return a.length <= b.length ? b.startsWith(a) : a.startsWith(b);
}
