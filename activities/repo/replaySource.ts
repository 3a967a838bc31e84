import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { RetrievalRecord } from '../../schemas/repoIndex.ts';
import { readJsonlStrict } from './indexStore.ts';
import { repoRunDir, sha256 } from './runOutput.ts';

/**
 * The records a replay reads, bound to the run that wrote them. `--recorded` names a run (its directory,
 * its id, or its records.jsonl); the run's summary.json holds its id and the sha256 of the records.jsonl it
 * wrote, and a file that no longer hashes to it (a moved rank, a changed query) is refused whole, since the
 * hash cannot say which record was edited. Each record is then checked against the run id and the index
 * (core/repo/replay.ts).
 */
export interface ReplaySource {
  runId: string;
  recordsFile: string;
  recordsSha256: string;
  records: RetrievalRecord[];
}

const Binding = z.object({ run_id: z.string().min(1), records_sha256: z.string().regex(/^[0-9a-f]{64}$/) });

export function loadReplaySource(named: string): ReplaySource {
  const p = resolve(named);
  const isFile = existsSync(p) && statSync(p).isFile();
  const dir = isFile ? dirname(p) : existsSync(join(p, 'records.jsonl')) ? p : repoRunDir(named);
  const recordsFile = isFile ? p : join(dir, 'records.jsonl');
  if (!existsSync(recordsFile)) throw new Error(`--recorded ${named}: no records.jsonl there (name a run directory, a run id, or a run's records.jsonl)`);
  const summaryFile = join(dir, 'summary.json');
  if (!existsSync(summaryFile)) throw new Error(`${recordsFile}: no summary.json beside it: a replay must name the run that wrote the records`);
  const binding = Binding.safeParse(JSON.parse(readFileSync(summaryFile, 'utf8')));
  if (!binding.success) throw new Error(`${summaryFile}: ${binding.error.issues[0].path.join('.')}: ${binding.error.issues[0].message} (a run written before records were bound to their run cannot be replayed; re-run repo eval)`);
  const { run_id: runId, records_sha256: want } = binding.data;
  const got = sha256(readFileSync(recordsFile));
  if (got !== want) {
    throw new Error(`${recordsFile}: sha256 ${got.slice(0, 12)}… is not the ${want.slice(0, 12)}… run ${runId} recorded in ${basename(summaryFile)}: the records were edited after the run; refusing to replay them`);
  }
  return { runId, recordsFile, recordsSha256: got, records: readJsonlStrict(recordsFile, RetrievalRecord) };
}
