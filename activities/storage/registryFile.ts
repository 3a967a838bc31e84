import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { z } from 'zod';

/**
 * Entries of small JSON registries (`{"<key>": [...]}`: rerankers, retrieval endpoints) from the files that exist of
 * `optional` (under `root`) and every one of `files`, later entries replacing earlier ones of the same id. A bad
 * file or entry throws, naming the file and the entry: a registry entry is named on the command line, so a broken
 * one is the user's error to fix, never a silent skip.
 */
export function loadRegistryEntries<S extends z.ZodType>(
  opts: { root: string; required?: readonly string[]; optional?: readonly string[]; files?: readonly string[] },
  key: string,
  schema: S,
  idOf: (entry: z.infer<S>) => string,
): Map<string, z.infer<S>> {
  const out = new Map<string, z.infer<S>>();
  const paths = [
    ...(opts.required ?? []).map((p) => join(opts.root, p)),
    ...(opts.optional ?? []).map((p) => join(opts.root, p)).filter((p) => existsSync(p)),
    ...(opts.files ?? []).map((f) => resolve(f)),
  ];
  for (const path of paths) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new Error(`${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not valid JSON: ${(e as Error).message}`}`);
    }
    const entries = raw !== null && typeof raw === 'object' && Object.keys(raw).length === 1 ? (raw as Record<string, unknown>)[key] : undefined;
    if (!Array.isArray(entries)) throw new Error(`${path}: expected {"${key}": [...]} and nothing else`);
    entries.forEach((entry, i) => {
      const parsed = schema.safeParse(entry);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new Error(`${path}: ${key}[${i}].${issue.path.map(String).join('.')}: ${issue.message}`);
      }
      out.set(idOf(parsed.data), parsed.data);
    });
  }
  return out;
}
