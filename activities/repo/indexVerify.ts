import { createHash } from 'node:crypto';
import type { Chunk } from '../../schemas/repoIndex.ts';
import { lineAtOffset } from '../../core/repo/chunkBounds.ts';
import { GitRepo } from './git.ts';
import type { LoadedIndex } from './indexStore.ts';

/**
 * The index verified like a replay: every chunk's text must hash to what the pinned revision's blob holds
 * at the chunk's bytes, and its line span must be where those bytes are. The index's text is what the
 * retrievers rank and the reranker reads, so an edited chunk (a planted answer) would change results
 * under an unchanged build id; a chunk that fails is refused (left out of the run, one line each) and
 * the gate fails on it.
 */
export interface RefusedChunk {
  chunk_id: string;
  reason: string;
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

const newlineCache = new WeakMap<Buffer, number[]>();

/** 1-based line of a byte offset: one plus the newlines before it (as the chunker numbers lines). */
function lineAt(buf: Buffer, byte: number): number {
  let nl = newlineCache.get(buf);
  if (!nl) {
    nl = [];
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) nl.push(i);
    newlineCache.set(buf, nl);
  }
  return lineAtOffset(nl, byte);
}

/** Why `chunk` does not match `blob` (the file at the index's revision), or null when it does. */
export function chunkMismatch(chunk: Chunk, blob: Buffer | undefined, revision: string): string | null {
  if (chunk.revision !== revision) return `chunk revision ${chunk.revision} is not the index's ${revision}`;
  if (!blob) return `${chunk.file} is not an included file of the index at ${revision}`;
  if (chunk.end_byte > blob.length || chunk.start_byte > chunk.end_byte) return `bytes ${chunk.start_byte}-${chunk.end_byte} are outside ${chunk.file} (${blob.length} bytes) at ${revision}`;
  const held = blob.subarray(chunk.start_byte, chunk.end_byte);
  if (sha(held) !== sha(chunk.text)) return `text hashes to ${sha(chunk.text).slice(0, 12)}…, ${chunk.file} at ${revision.slice(0, 12)} holds ${sha(held).slice(0, 12)}… at bytes ${chunk.start_byte}-${chunk.end_byte} (the index was edited)`;
  const first = lineAt(blob, chunk.start_byte);
  const last = lineAt(blob, chunk.end_byte);
  if (first !== chunk.start_line || last !== chunk.end_line) return `lines ${chunk.start_line}-${chunk.end_line} recorded, its bytes are at lines ${first}-${last}`;
  return null;
}

/** The index with every chunk that does not match its revision's blobs left out (vectors with them), and those chunks. */
export async function verifyIndexText(index: LoadedIndex, repoDir: string): Promise<{ index: LoadedIndex; refused: RefusedChunk[] }> {
  const oidOf = new Map(index.inventory.filter((e) => e.included).map((e) => [e.path, e.oid]));
  const blobs = await new GitRepo(repoDir).readBlobs([...new Set(index.chunks.flatMap((c) => (oidOf.has(c.file) ? [oidOf.get(c.file)!] : [])))]);
  const refused: RefusedChunk[] = [];
  const keep: number[] = [];
  index.chunks.forEach((c, i) => {
    const oid = oidOf.get(c.file);
    const why = chunkMismatch(c, oid ? blobs.get(oid) : undefined, index.manifest.revision);
    if (why) refused.push({ chunk_id: c.chunk_id, reason: why });
    else keep.push(i);
  });
  if (!refused.length) return { index, refused };
  return { index: { ...index, chunks: keep.map((i) => index.chunks[i]), vectors: index.vectors ? keep.map((i) => index.vectors![i]) : null }, refused };
}
