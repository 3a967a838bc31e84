import { createHash } from 'node:crypto';
import { repositoryName } from '../../core/repo/repoName.ts';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Field, Float64, List, Table, Utf8, tableFromArrays, vectorFromArray, type Vector } from 'apache-arrow';
import type { CaseResult, Chunk, IndexManifest } from '../../schemas/repoIndex.ts';
import { renderReport } from '../../core/repo/report.ts';
import { writeFileAtomic, writeJsonAtomic } from '../storage/atomic.ts';
import { writeParquet } from '../storage/parquet.ts';
import { resolveRunDir } from '../paths.ts';
import type { EvalRunOutput } from './evalRun.ts';
import { EVALUATOR_VERSION } from './evidenceBundle.ts';

/** A retriever configuration's folder under cases/ and evidence/: its name, with anything unsafe in a path as `_`. */
export function retrieverFolder(retriever: string): string {
  return retriever.replace(/[^A-Za-z0-9._+-]/g, '_');
}

export function caseFile(dir: string, retriever: string, caseId: string): string {
  return join(dir, 'cases', retrieverFolder(retriever), `${caseId}.json`);
}

/** What `--run` names: a run directory holding results.jsonl, else a run id (its runs/<id>/repo). */
export function repoRunDir(run: string): string {
  return existsSync(join(resolve(run), 'results.jsonl')) ? resolve(run) : join(resolveRunDir(run), 'repo');
}

/**
 * Writes a run's artifacts under `dir` (runs/<run-id>/repo/): one JSON per case and retriever (result +
 * ranked record), records.jsonl (replayable in recorded mode, each record carrying the run id), evidence bundles for failures, results and
 * aggregates as Parquet, summary.json and a self-contained report.html. Every file is written atomically.
 */
export function resultsTable(results: readonly CaseResult[]) {
  const col = <T>(f: (r: CaseResult) => T) => results.map(f);
  // List-valued fields are Arrow lists of strings (JSON text before 2026-12-02): DuckDB's list functions, pandas
  // and polars read them as lists, with no json parsing per row.
  const list = (f: (r: CaseResult) => string[]) => vectorFromArray(col(f), new List(new Field('item', new Utf8(), false)));
  // NULL where there is none, not NaN: DuckDB's avg and pandas' mean skip NULLs, one NaN makes the mean NaN.
  const nullable = (f: (r: CaseResult) => number | null | undefined) => vectorFromArray(col((r) => f(r) ?? null), new Float64());
  const typed: Record<string, Vector> = {
    first_relevant_rank: nullable((r) => r.first_relevant_rank),
    context_lines: nullable((r) => r.context_lines),
    context_tokens: nullable((r) => r.context_tokens),
    missing_group_ids: list((r) => r.missing_group_ids),
    forbidden_chunk_ids: list((r) => r.forbidden_chunk_ids),
    revision_mismatches: list((r) => r.revision_mismatches),
    final_context_ids: list((r) => r.final_context_ids),
  };
  const flat = tableFromArrays({
    case_id: col((r) => r.case_id),
    retriever: col((r) => r.retriever),
    mode: col((r) => r.mode),
    query_class: col((r) => r.query_class),
    language: col((r) => r.language),
    area: col((r) => r.area),
    split: col((r) => r.split),
    case_revision: col((r) => r.case_revision),
    index_revision: col((r) => r.index_revision),
    index_build_id: col((r) => r.index_build_id),
    cutoff: Int32Array.from(col((r) => r.cutoff)),
    passed: col((r) => r.passed),
    required_evidence: col((r) => r.required_evidence),
    hit: col((r) => r.hit),
    first_relevant_rank: Float64Array.of(), // placeholders for their place: the nullable columns above
    reciprocal_rank: Float64Array.from(col((r) => r.reciprocal_rank)),
    group_recall: Float64Array.from(col((r) => r.group_recall)),
    diagnosis: col((r) => r.diagnosis),
    context_lines: Float64Array.of(),
    context_tokens: Float64Array.of(),
  });
  // The columns in their documented order: the lists after group_recall, final_context_ids after diagnosis.
  const order: string[] = flat.schema.fields.map((f) => f.name);
  order.splice(order.indexOf('group_recall') + 1, 0, 'missing_group_ids', 'forbidden_chunk_ids', 'revision_mismatches');
  order.splice(order.indexOf('diagnosis') + 1, 0, 'final_context_ids');
  return new Table(Object.fromEntries(order.map((n) => [n, typed[n] ?? (flat as Table).getChild(n)!])));
}

/** A JSONL file's text exactly as written (hashed and written from the same string). */
function jsonlText(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : '');
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** `chunks`: the index's chunks, for the report's excerpts (records carry ids, never text). */
/** The share of code lines the index holds as plain text (no grammar), for the report's header. */
function codeAsText(m: IndexManifest): string {
  const t = m.code_as_text;
  if (!t) return 'not recorded';
  return `${t.code_lines ? ((100 * t.lines) / t.code_lines).toFixed(1) : '0.0'}% (${t.lines} of ${t.code_lines} code lines${t.languages.length ? `: ${t.languages.join(', ')}` : ''})`;
}

export function writeRunOutput(dir: string, out: EvalRunOutput, manifest: IndexManifest, extra: Record<string, unknown> = {}, chunks: readonly Chunk[] = []): void {
  const evidenceFile = (retriever: string, caseId: string) => join('evidence', retrieverFolder(retriever), `${caseId}.json`);
  for (const e of out.evaluated) {
    writeJsonAtomic(caseFile(dir, e.result.retriever, e.result.case_id), { result: e.result, record: e.record });
    if (e.bundle) writeJsonAtomic(join(dir, evidenceFile(e.result.retriever, e.result.case_id)), e.bundle);
  }
  const byId = new Map(chunks.map((c) => [c.chunk_id, c]));
  // records.jsonl and results.jsonl are bound to the run: summary.json (the run's manifest) keeps their
  // hashes, so a replay (and the gate) can tell the files the run wrote from edited ones.
  const records = jsonlText(out.evaluated.map((e) => e.record));
  const results = jsonlText(out.results);
  writeFileAtomic(join(dir, 'records.jsonl'), records);
  writeFileAtomic(join(dir, 'results.jsonl'), results);
  const meta = { index_build_id: manifest.index_build_id, revision: manifest.revision, evaluator_version: EVALUATOR_VERSION };
  writeParquet(join(dir, 'results.parquet'), resultsTable(out.results), meta);
  writeJsonAtomic(join(dir, 'aggregates.json'), out.aggregates);
  writeJsonAtomic(join(dir, 'summary.json'), {
    ...extra,
    evaluator_version: EVALUATOR_VERSION,
    index: manifest,
    refused: out.refused,
    rejected_records: out.rejectedRecords,
    cases: out.results.length,
    records_sha256: sha256(records),
    results_sha256: sha256(results),
  });
  writeFileAtomic(
    join(dir, 'report.html'),
    renderReport({
      title: `Repository retrieval evaluation — ${repositoryName(manifest.repository)} @ ${manifest.revision.slice(0, 12)}`,
      meta: { revision: manifest.revision, 'index build': manifest.index_build_id, chunker: manifest.chunker_version, evaluator: EVALUATOR_VERSION, embedder: manifest.embedder?.config_id ?? 'none', 'code as plain text': codeAsText(manifest) },
      aggregates: out.aggregates,
      results: out.results,
      refused: out.refused,
      cases: out.evaluated.map((e) => ({
        testCase: e.testCase,
        result: e.result,
        record: e.record,
        caseHref: relative(dir, caseFile(dir, e.result.retriever, e.result.case_id)),
        evidenceHref: e.bundle ? evidenceFile(e.result.retriever, e.result.case_id) : null,
      })),
      chunkOf: (id) => byId.get(id),
    }),
  );
}
