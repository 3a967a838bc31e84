/**
 * Files of a generation run under `runs/<run-id>/`:
 *   registry.jsonl          the registry (LLM generators) — triples, no implementations
 *   registry-dropped.jsonl  what deduplication removed, with the reason
 *   ledger.sqlite           the attempt ledger (activities/ledger)
 *   entries/<id>.json       one EntryResult per finished entry (accepted task + full attempt history)
 *   queries.jsonl, corpus.jsonl, benchmark-report.json, manifest.json   written by finalize
 *   audit/*.parquet         written by `execretrieval audit`
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RegistryEntry, type EntryResult } from '../../core/generation/types.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { parseJsonl } from '../../core/jsonl.ts';
import type { LoadError } from '../tasks/loadTasks.ts';

export const runPaths = (runDir: string) => ({
  registry: join(runDir, 'registry.jsonl'),
  dropped: join(runDir, 'registry-dropped.jsonl'),
  ledger: join(runDir, 'ledger.sqlite'),
  entries: join(runDir, 'entries'),
  entry: (id: string) => join(runDir, 'entries', `${id.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`),
  queries: join(runDir, 'queries.jsonl'),
  corpus: join(runDir, 'corpus.jsonl'),
  report: join(runDir, 'benchmark-report.json'),
  manifest: join(runDir, 'manifest.json'),
  audit: join(runDir, 'audit'),
});

/** A bad line of a registry or task file: the same shape the task loader reports. */
export type RecordProblem = LoadError;

/** Reads a registry JSONL; a bad line is reported (file, line, field) and skipped, the rest is kept. */
export function readRegistry(file: string): { entries: RegistryEntry[]; problems: RecordProblem[] } {
  const entries: RegistryEntry[] = [];
  const problems: RecordProblem[] = [];
  const seen = new Set<string>();
  parseJsonl(readFileSync(file, 'utf8'), RegistryEntry, {
    record: (line, entry) => {
      if (seen.has(entry.entry_id)) {
        problems.push({ file, line, field: 'entry_id', message: `duplicate entry_id "${entry.entry_id}" (first occurrence kept)` });
        return;
      }
      seen.add(entry.entry_id);
      entries.push(entry);
    },
    badJson: (line, message) => problems.push({ file, line, message: `malformed JSON: ${message}` }),
    invalid: (line, issues) => {
      for (const is of issues) problems.push({ file, line, field: is.field || '(record)', message: is.message });
    },
  });
  return { entries, problems };
}

export function readEntryResult(runDir: string, id: string): EntryResult | null {
  const p = runPaths(runDir).entry(id);
  return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as EntryResult) : null;
}

export function writeEntryResult(runDir: string, r: EntryResult): void {
  writeJsonAtomic(runPaths(runDir).entry(r.entry_id), r);
}

export function listEntryResults(runDir: string): EntryResult[] {
  const dir = runPaths(runDir).entries;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as EntryResult);
}
