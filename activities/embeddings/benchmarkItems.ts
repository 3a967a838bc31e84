import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import type { EmbedItem } from './embedItems.ts';

export interface BenchmarkItems {
  queries: EmbedItem[];
  corpus: EmbedItem[];
  /** `file:line field: message` for each record that could not be used; the rest is embedded. */
  problems: string[];
}

/** Where a run keeps its benchmark: `<run>/` itself (a release directory) or `<run>/benchmark/` (what `build --out` writes). */
export function benchmarkDirOf(runDir: string): string {
  return existsSync(join(runDir, 'queries.jsonl')) ? runDir : join(runDir, 'benchmark');
}

const memo = new Map<string, { key: string; value: BenchmarkItems }>();

function readJsonl<T>(file: string, parse: (x: unknown) => { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } }, problems: string[]): T[] {
  const out: T[] = [];
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      problems.push(`${file}:${i + 1}: not JSON: ${(e as Error).message}`);
      return;
    }
    const r = parse(raw);
    if (r.success) out.push(r.data);
    else for (const is of r.error.issues) problems.push(`${file}:${i + 1} ${is.path.map(String).join('.')}: ${is.message}`);
  });
  return out;
}

/**
 * The texts a sweep embeds, from a built benchmark (`queries.jsonl`, `corpus.jsonl`, the release format, in
 * `benchmarkDirOf(runDir)`): queries by `query_id` → `query`, corpus by `corpus_id` → `code`. Sorted by id, so batch
 * ranges planned by one process mean the same items in another. Memoised per file size + mtime (workers load
 * it once per run, not once per batch).
 */
export function loadBenchmarkItems(runDir: string): BenchmarkItems {
  const dir = benchmarkDirOf(runDir);
  const qf = join(dir, 'queries.jsonl');
  const cf = join(dir, 'corpus.jsonl');
  const key = [qf, cf].map((f) => { const s = statSync(f); return `${s.size}:${s.mtimeMs}`; }).join('|');
  const hit = memo.get(runDir);
  if (hit && hit.key === key) return hit.value;
  const problems: string[] = [];
  const queries = readJsonl(qf, (x) => QueryRecord.safeParse(x), problems).map((q) => ({ id: q.query_id, text: q.query }));
  const corpus = readJsonl(cf, (x) => CorpusRecord.safeParse(x), problems).map((c) => ({ id: c.corpus_id, text: c.code }));
  const byId = (a: EmbedItem, b: EmbedItem) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  for (const [name, list] of [['queries.jsonl', queries], ['corpus.jsonl', corpus]] as const) {
    list.sort(byId);
    for (let i = 1; i < list.length; i++) if (list[i].id === list[i - 1].id) problems.push(`${join(dir, name)}: duplicate id ${list[i].id} (first kept)`);
  }
  const value = { queries: dedupe(queries), corpus: dedupe(corpus), problems };
  memo.set(runDir, { key, value });
  return value;
}

function dedupe(list: EmbedItem[]): EmbedItem[] {
  return list.filter((x, i) => i === 0 || list[i - 1].id !== x.id);
}
