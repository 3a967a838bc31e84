import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import type { TestSuite } from '../../schemas/exec.ts';
import { parseJsonl, type SafeParser } from '../../core/jsonl.ts';
import { assertBenchmarkIntact } from '../benchmark/complete.ts';

/** A record the scorer could not use: file, line, field and why. The rest of the benchmark is still scored. */
export interface ScoringRejection {
  file: string;
  line?: number;
  record?: string;
  field: string;
  message: string;
}

export interface LoadedBenchmark {
  dir: string;
  queries: QueryRecord[];
  corpus: CorpusRecord[];
  corpusIndex: Map<string, number>;
  rejections: ScoringRejection[];
}

function readRecords<T>(file: string, schema: SafeParser<T>, rejections: ScoringRejection[]): { line: number; value: T }[] {
  const out: { line: number; value: T }[] = [];
  parseJsonl(readFileSync(file, 'utf8'), schema, {
    record: (line, value) => out.push({ line, value }),
    badJson: (line, message) => rejections.push({ file, line, field: '(record)', message: `invalid JSON: ${message}` }),
    invalid: (line, issues, raw) => {
      const id = (raw as Record<string, unknown> | null)?.query_id ?? (raw as Record<string, unknown> | null)?.corpus_id;
      rejections.push({ file, line, record: typeof id === 'string' ? id : undefined, field: issues[0].path.map(String).join('.') || '(record)', message: issues[0].message });
    },
  });
  return out;
}

/**
 * Reads `queries.jsonl` + `corpus.jsonl` (the release format) from a benchmark directory. Bad lines, duplicate
 * ids and queries whose `correct_corpus_ids` / `distractor_corpus_ids` point at nothing are rejected with
 * file, line and field; every other record is kept.
 */
export function loadBenchmark(dir: string): LoadedBenchmark {
  const qFile = join(dir, 'queries.jsonl');
  const cFile = join(dir, 'corpus.jsonl');
  for (const f of [qFile, cFile]) if (!existsSync(f)) throw new Error(`benchmark: ${f} not found (run \`execretrieval build\` first)`);
  assertBenchmarkIntact(dir, ['queries.jsonl', 'corpus.jsonl']);
  const rejections: ScoringRejection[] = [];
  const corpus: CorpusRecord[] = [];
  const corpusIndex = new Map<string, number>();
  for (const { line, value } of readRecords(cFile, CorpusRecord, rejections)) {
    if (corpusIndex.has(value.corpus_id)) {
      rejections.push({ file: cFile, line, record: value.corpus_id, field: 'corpus_id', message: 'duplicate corpus_id (first one kept)' });
      continue;
    }
    corpusIndex.set(value.corpus_id, corpus.length);
    corpus.push(value);
  }
  const queries: QueryRecord[] = [];
  const seen = new Set<string>();
  for (const { line, value } of readRecords(qFile, QueryRecord, rejections)) {
    const bad = (field: string, message: string) => rejections.push({ file: qFile, line, record: value.query_id, field, message });
    if (seen.has(value.query_id)) {
      bad('query_id', 'duplicate query_id (first one kept)');
      continue;
    }
    const missing = (ids: string[], field: string) => {
      const i = ids.findIndex((id) => !corpusIndex.has(id));
      if (i >= 0) bad(`${field}[${i}]`, `corpus id ${ids[i]} is not in corpus.jsonl`);
      return i >= 0;
    };
    if (missing(value.correct_corpus_ids, 'correct_corpus_ids') || missing(value.distractor_corpus_ids, 'distractor_corpus_ids')) continue;
    if (!value.test_program && value.tests.length === 0 && !value.test_calls?.length) {
      bad('tests', 'no tests, test_program or test_calls: the query cannot be scored by execution');
      continue;
    }
    if (value.test_program && !value.entry_point) {
      bad('entry_point', 'test_program needs an entry_point');
      continue;
    }
    seen.add(value.query_id);
    queries.push(value);
  }
  // Corpus first, then queries, each in line order: the order a person fixes them in.
  rejections.sort((x, y) => (x.file === y.file ? (x.line ?? 0) - (y.line ?? 0) : x.file === cFile ? -1 : 1));
  if (queries.length === 0) throw new Error(`benchmark: no usable queries in ${qFile} (${rejections.length} rejected)`);
  return { dir, queries, corpus, corpusIndex, rejections };
}

/** The benchmark with only `queryIds` among its queries (a partial import's coverage); the corpus stays whole. */
export function restrictQueries(bench: LoadedBenchmark, queryIds: readonly string[]): LoadedBenchmark {
  const keep = new Set(queryIds);
  return { ...bench, queries: bench.queries.filter((q) => keep.has(q.query_id)) };
}

/** The oracle's suite for a release-format query. */
export function suiteOf(q: QueryRecord): TestSuite {
  if (q.test_calls) return { kind: 'calls', language: q.language ?? 'javascript', entry_point: q.function_name, calls: q.test_calls };
  if (q.test_program) return { kind: 'check', program: q.test_program, entry_point: q.entry_point! };
  return q.test_setup_code ? { kind: 'asserts', tests: q.tests, setup: q.test_setup_code } : { kind: 'asserts', tests: q.tests };
}
