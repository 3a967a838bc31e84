import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Chunk, IndexManifest, InventoryEntry } from '../../schemas/repoIndex.ts';
import { parseJsonl, type SafeParser } from '../../core/jsonl.ts';
import { writeFileAtomic, writeJsonAtomic, writeJsonlAtomic } from '../storage/atomic.ts';

/**
 * An index directory: manifest.json, inventory.jsonl (every tree path and the policy's decision),
 * chunks.jsonl, and vectors.f32 (little-endian float32, one row per chunk in chunks.jsonl order) when an
 * embedder was configured. The manifest is written incomplete first and completed last.
 */
export interface LoadedIndex {
  dir: string;
  manifest: IndexManifest;
  inventory: InventoryEntry[];
  chunks: Chunk[];
  vectors: Float32Array[] | null;
}

export class IndexInvalidError extends Error {
  readonly code = 'INDEX_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'IndexInvalidError';
  }
}

/**
 * Every record of a JSONL file, all or nothing: the first line that is not JSON or fails the schema throws
 * `fail(...)` naming the file and its line (as numbered in the file, blank lines included).
 */
export function readJsonlStrict<T>(path: string, schema: SafeParser<T>, fail: (message: string) => Error = (m) => new Error(m)): T[] {
  const out: T[] = [];
  parseJsonl(readFileSync(path, 'utf8'), schema, {
    record: (_, value) => out.push(value),
    badJson: (line, message) => {
      throw fail(`${path}:${line}: invalid JSON: ${message}`);
    },
    invalid: (line, issues) => {
      throw fail(`${path}:${line}: ${issues[0].field || '(record)'}: ${issues[0].message}`);
    },
  });
  return out;
}

export function writeManifest(dir: string, manifest: IndexManifest): void {
  writeJsonAtomic(join(dir, 'manifest.json'), manifest);
}

export function writeIndexBody(dir: string, inventory: InventoryEntry[], chunks: Chunk[], vectors: Float32Array[] | null): void {
  writeJsonlAtomic(join(dir, 'inventory.jsonl'), inventory);
  writeJsonlAtomic(join(dir, 'chunks.jsonl'), chunks);
  if (vectors) {
    const dims = vectors[0]?.length ?? 0;
    const all = new Float32Array(vectors.length * dims);
    vectors.forEach((v, i) => all.set(v, i * dims));
    writeFileAtomic(join(dir, 'vectors.f32'), new Uint8Array(all.buffer));
  }
}

/** Reads the manifest alone (to decide whether the run is valid before loading anything else). */
export function readManifest(dir: string): IndexManifest {
  const path = join(dir, 'manifest.json');
  if (!existsSync(path)) throw new IndexInvalidError(`${path}: no index manifest (run \`execretrieval repo index\` first)`);
  const parsed = IndexManifest.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new IndexInvalidError(`${path}: ${i.path.join('.')}: ${i.message}`);
  }
  return parsed.data;
}

/** Loads a completed index; an incomplete one is refused rather than half-used. */
export function loadIndex(dir: string): LoadedIndex {
  const manifest = readManifest(dir);
  if (!manifest.completed) throw new IndexInvalidError(`${join(dir, 'manifest.json')}: index build ${manifest.index_build_id} is not completed; the run is invalid`);
  const invalid = (m: string) => new IndexInvalidError(m);
  const inventory = readJsonlStrict(join(dir, 'inventory.jsonl'), InventoryEntry, invalid);
  const chunks = readJsonlStrict(join(dir, 'chunks.jsonl'), Chunk, invalid);
  if (chunks.length !== manifest.chunk_count) {
    throw new IndexInvalidError(`${dir}: manifest says ${manifest.chunk_count} chunks, chunks.jsonl has ${chunks.length}`);
  }
  let vectors: Float32Array[] | null = null;
  if (manifest.embedder) {
    const buf = readFileSync(join(dir, 'vectors.f32'));
    const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    const dims = manifest.embedder.dims;
    if (all.length !== chunks.length * dims) throw new IndexInvalidError(`${dir}/vectors.f32: expected ${chunks.length}×${dims} floats, found ${all.length}`);
    vectors = chunks.map((_, i) => all.subarray(i * dims, (i + 1) * dims));
  }
  return { dir, manifest, inventory, chunks, vectors };
}
