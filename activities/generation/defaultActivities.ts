/** Activities of the `default` queue: small file and ledger reads/writes for the generation workflows. */
import { statSync } from 'node:fs';
import { assignEntryIds, dedupRegistry, type Dropped } from '../../core/generation/dedup.ts';
import type { AttemptSummary, EntryResult, EntryStatus, RegistryEntry } from '../../core/generation/types.ts';
import { ledgerAt } from '../ledger/ledger.ts';
import { writeJsonlAtomic } from '../storage/atomic.ts';
import { readEntryResult, readRegistry, runPaths, writeEntryResult, type RecordProblem } from './runFiles.ts';
import { createCallReservationActivities } from './callReservations.ts';

export interface EntryStartState {
  /** The attempt number to make next (an unjudged attempt is made again under its own number). */
  nextAttempt: number;
  lastRejection: { attempt_no: number; reasons: string[] } | null;
  previousAttempts: AttemptSummary[];
}

export type EntrySource = { kind: 'registry'; path: string };

export interface RegistryPage {
  entries: RegistryEntry[];
  total: number;
  /** Bad lines, reported on the first page only (file, line, field, message); the rest of the registry goes on. */
  problems: RecordProblem[];
}

/**
 * The source read and validated once per worker while it is unchanged (keyed by its files' mtimes), so each
 * page of a large registry does not re-parse the whole file. One slot: a worker serves one source at a time.
 */
let lastRead: { key: string; read: { entries: RegistryEntry[]; problems: RecordProblem[] } } | null = null;
function readSource(source: EntrySource): { entries: RegistryEntry[]; problems: RecordProblem[] } {
  const files = [source.path];
  const key = `${source.kind}:${source.path}:${files.map((f) => `${f}@${statSync(f).mtimeMs}`).join(',')}`;
  if (lastRead?.key !== key) {
    lastRead = { key, read: readRegistry(source.path) };
  }
  return lastRead.read;
}

export function createDefaultActivities() {
  return {
    // The ledger's side of every LLM call: reserve before sending, complete, settle a lost one, judge the gate's verdict.
    ...createCallReservationActivities(),

    async loadRegistryPage(input: { source: EntrySource; offset: number; limit: number }): Promise<RegistryPage> {
      const { entries, problems } = readSource(input.source);
      return { entries: entries.slice(input.offset, input.offset + input.limit), total: entries.length, problems: input.offset === 0 ? problems : [] };
    },

    /** The source's entry ids in registry order (what finalize numbers queries by), without the entries. */
    async registryOrder(input: { source: EntrySource }): Promise<string[]> {
      return readSource(input.source).entries.map((e) => e.entry_id);
    },

    async entryStatuses(input: { runDir: string; ids: string[] }): Promise<Record<string, EntryStatus>> {
      const out: Record<string, EntryStatus> = {};
      for (const id of input.ids) {
        const r = readEntryResult(input.runDir, id);
        if (r) out[id] = r.status;
      }
      return out;
    },

    /**
     * Where a (re)started entry continues, read from the ledger (not the entry file, which a dead workflow never
     * wrote): rows left `started` by a dead worker are reconciled first, then the attempt to make (see
     * Ledger.resumeAttempt) and the last rejection's reasons; the history of the attempts before it from the file.
     */
    async entryStartState(input: { runDir: string; runId: string; entryId: string }): Promise<EntryStartState> {
      const ledger = ledgerAt(runPaths(input.runDir).ledger);
      ledger.reconcileStarted(input.runId, 'entry', input.entryId);
      const nextAttempt = ledger.resumeAttempt(input.runId, 'entry', input.entryId);
      const prev = readEntryResult(input.runDir, input.entryId);
      return {
        nextAttempt,
        lastRejection: ledger.lastRejection(input.runId, 'entry', input.entryId, nextAttempt),
        previousAttempts: (prev?.attempts ?? []).filter((a) => a.attempt_no < nextAttempt),
      };
    },

    /**
     * A registry phase starting (a new workflow: any earlier one is gone, with its workers' calls): the calls it left
     * `started` become `lost`, so the audit shows them with their bounds. Returns how many.
     */
    async reconcileRegistryCalls(input: { runDir: string; runId: string }): Promise<number> {
      return ledgerAt(runPaths(input.runDir).ledger).reconcileStarted(input.runId, 'registry');
    },

    async recordEntryResult(input: { runDir: string; result: EntryResult }): Promise<void> {
      writeEntryResult(input.runDir, input.result);
    },

    /** Deduplicates the triples of all domains (names and near-duplicate queries), assigns ids, writes the registry. */
    async writeRegistry(input: { runDir: string; triples: Omit<RegistryEntry, 'entry_id'>[]; nearDuplicateThreshold?: number }): Promise<{ entries: number; dropped: Dropped[] }> {
      const { kept, dropped } = dedupRegistry(input.triples, { nearDuplicateThreshold: input.nearDuplicateThreshold });
      const paths = runPaths(input.runDir);
      writeJsonlAtomic(paths.registry, assignEntryIds(kept));
      writeJsonlAtomic(paths.dropped, dropped);
      return { entries: kept.length, dropped };
    },
  };
}
export type DefaultActivities = ReturnType<typeof createDefaultActivities>;
