import { Bool, Field, List, Table, Utf8, vectorFromArray, type DataType, type Vector } from 'apache-arrow';
import type { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import { writeParquet } from '../storage/parquet.ts';
import { inferredColumn } from '../storage/inferredColumn.ts';

const utf8 = () => new Utf8();
const utf8List = () => new List(new Field('item', new Utf8(), false));

function column(values: unknown[], type: DataType): Vector {
  return vectorFromArray(values, type);
}

/**
 * `metadata` as a struct of the keys the records carry (activities/storage/inferredColumn.ts), typed from the
 * values; JSON text (before 2026-12-02 always) only when no record has a key, since Parquet has no empty struct.
 */
function metadataColumn(values: readonly Record<string, unknown>[]): Vector {
  return inferredColumn(values) ?? column(values.map((v) => JSON.stringify(v)), utf8());
}

/**
 * Parquet copies of queries.jsonl / corpus.jsonl for DuckDB, pandas and polars. Same columns as the JSONL;
 * lists stay lists; `metadata` (free-form) a struct typed from its values; `test_calls` JSON text.
 */
export function writeQueriesParquet(path: string, rows: readonly QueryRecord[], meta: Record<string, string>): void {
  const table = new Table({
    query_id: column(rows.map((r) => r.query_id), utf8()),
    query: column(rows.map((r) => r.query), utf8()),
    function_name: column(rows.map((r) => r.function_name), utf8()),
    domain: column(rows.map((r) => r.domain), utf8()),
    tests: column(rows.map((r) => r.tests), utf8List()),
    test_setup_code: column(rows.map((r) => r.test_setup_code), utf8()),
    test_program: column(rows.map((r) => r.test_program), utf8()),
    entry_point: column(rows.map((r) => r.entry_point), utf8()),
    correct_corpus_ids: column(rows.map((r) => r.correct_corpus_ids), utf8List()),
    distractor_corpus_ids: column(rows.map((r) => r.distractor_corpus_ids), utf8List()),
    source: column(rows.map((r) => r.source), utf8()),
    metadata: metadataColumn(rows.map((r) => r.metadata)),
    ...languageColumns(rows, true),
  });
  writeParquet(path, table, meta);
}

/**
 * `language` (null: python) and, for queries, `test_calls` (each query's calls as JSON text: arguments and
 * expected values of any shape), present only when some record is in another language, so a Python release keeps
 * its bytes.
 */
function languageColumns(rows: readonly (QueryRecord | CorpusRecord)[], calls: boolean): Record<string, Vector> {
  if (!rows.some((r) => r.language)) return {};
  return {
    language: column(rows.map((r) => r.language ?? null), utf8()),
    ...(calls ? { test_calls: column(rows.map((r) => ('test_calls' in r && r.test_calls ? JSON.stringify(r.test_calls) : null)), utf8()) } : {}),
  };
}

export function writeCorpusParquet(path: string, rows: readonly CorpusRecord[], meta: Record<string, string>): void {
  const table = new Table({
    corpus_id: column(rows.map((r) => r.corpus_id), utf8()),
    query_id: column(rows.map((r) => r.query_id), utf8()),
    function_name: column(rows.map((r) => r.function_name), utf8()),
    code: column(rows.map((r) => r.code), utf8()),
    is_canonical: column(rows.map((r) => r.is_canonical), new Bool()),
    bug_type: column(rows.map((r) => r.bug_type), utf8()),
    bug_description: column(rows.map((r) => r.bug_description), utf8()),
    metadata: metadataColumn(rows.map((r) => r.metadata)),
    ...languageColumns(rows, false),
  });
  writeParquet(path, table, meta);
}
