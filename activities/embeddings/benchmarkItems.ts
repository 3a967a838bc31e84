import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import type { EmbedItem } from './embedItems.ts';
import { parseJsonl, type SafeParser } from '../../core/jsonl.ts';
import { assertBenchmarkIntact } from '../benchmark/complete.ts';

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

function readJsonl<T>(file: string, schema: SafeParser<T>, problems: string[]): T[] {
  const out: T[] = [];
  parseJsonl(readFileSync(file, 'utf8'), schema, {
    record: (_line, value) => out.push(value),
    badJson: (line, message) => problems.push(`${file}:${line}: not JSON: ${message}`),
    invalid: (line, issues) => {
      for (const is of issues) problems.push(`${file}:${line} ${is.path.map(String).join('.')}: ${is.message}`);
    },
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
  assertBenchmarkIntact(dir, ['queries.jsonl', 'corpus.jsonl']);
  const problems: string[] = [];
  const queries = readJsonl(qf, QueryRecord, problems).map((q) => ({ id: q.query_id, text: q.query }));
  const corpus = readJsonl(cf, CorpusRecord, problems).map((c) => ({ id: c.corpus_id, text: c.code }));
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
