import type { GoldCase } from '../../schemas/gold.ts';
import type { Chunk, RankedChunk, RetrievalRecord } from '../../schemas/repoIndex.ts';
import { sameRevision } from './evidence.ts';

/**
 * Verification of a replayed RetrievalRecord (recorded mode). A record is an input, not evidence: what it
 * may say is only which chunk ids were ranked, in which order, with which scores. Everything the evaluator
 * judges by — file, symbols, references, role, revision (and lines, via the chunk) — is taken from the index
 * build the record names; a record that claims anything else, names a chunk the build does not have, was
 * ranked on another build, belongs to another run, asks another question than its gold case, or whose
 * ranking is not a ranking (ranks out of order, scores rising down the list, a final context that is not
 * its top `cutoff`) is refused with its reason. (A replay that trusted the record let a chunk claiming
 * another file, or an id the index lacks, turn a failing case into a pass: issue 29.)
 */
export interface ReplayContext {
  /** The run the replay names (its summary's run_id): every record must carry it. */
  runId: string;
  indexBuildId: string;
  indexRevision: string;
  chunkOf: (id: string) => Chunk | undefined;
}

export type Verified = { ok: true; record: RetrievalRecord } | { ok: false; reason: string };

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The first way `claimed` differs from the index's chunk, or null. */
function claimMismatch(claimed: RankedChunk, c: Chunk): string | null {
  if (claimed.file !== c.file) return `claims file ${claimed.file}, the index has ${c.file}`;
  if (!sameList(claimed.symbols, c.symbols)) return `claims symbols [${claimed.symbols.join(', ')}], the index has [${c.symbols.join(', ')}]`;
  if (claimed.role !== c.role) return `claims role ${claimed.role}, the index has ${c.role}`;
  if (claimed.revision !== c.revision) return `claims revision ${claimed.revision}, the index has ${c.revision}`;
  if (!sameList(claimed.references ?? [], c.references)) return `claims other references than the index's`;
  return null;
}

/** Re-derives a ranked list from the index, or the reason it cannot be trusted. */
function fromIndex(list: readonly RankedChunk[], which: string, ctx: ReplayContext): RankedChunk[] | string {
  const out: RankedChunk[] = [];
  for (let i = 0; i < list.length; i++) {
    const r = list[i];
    if (r.rank !== i + 1) return `${which}[${i}]: rank ${r.rank}, expected ${i + 1} (ranks must run 1, 2, … in list order)`;
    if (i > 0 && r.score > list[i - 1].score) return `${which}: rank ${r.rank} (${r.chunk_id}) scores ${r.score}, above rank ${i} (${list[i - 1].score}): not a ranking`;
    const c = ctx.chunkOf(r.chunk_id);
    if (!c) return `${which}: chunk ${r.chunk_id} (rank ${r.rank}) is not in index build ${ctx.indexBuildId}`;
    const bad = claimMismatch(r, c);
    if (bad) return `${which}: chunk ${r.chunk_id} (rank ${r.rank}) ${bad}`;
    out.push({ rank: r.rank, chunk_id: c.chunk_id, file: c.file, symbols: c.symbols, references: c.references, role: c.role, revision: c.revision, score: r.score });
  }
  return out;
}

export function verifyRecord(r: RetrievalRecord, testCase: GoldCase, ctx: ReplayContext): Verified {
  const no = (reason: string): Verified => ({ ok: false, reason });
  if (r.run_id !== ctx.runId) return no(r.run_id === undefined ? `carries no run id (not written by run ${ctx.runId})` : `written by run ${r.run_id}, not by run ${ctx.runId} that is replayed`);
  if (r.index_build_id !== ctx.indexBuildId) return no(`ranked on index build ${r.index_build_id}, this index is build ${ctx.indexBuildId}: replay against the index it was ranked on`);
  if (!sameRevision(r.index_revision, ctx.indexRevision)) return no(`recorded against ${r.index_revision}, index is ${ctx.indexRevision}`);
  if (r.query !== testCase.query) return no(`query ${JSON.stringify(r.query)} is not the gold case's ${JSON.stringify(testCase.query)}`);
  const before = fromIndex(r.candidates_before_rerank, 'candidates_before_rerank', ctx);
  if (typeof before === 'string') return no(before);
  const after = fromIndex(r.candidates_after_rerank, 'candidates_after_rerank', ctx);
  if (typeof after === 'string') return no(after);
  const top = after.slice(0, testCase.cutoff).map((c) => c.chunk_id);
  if (!sameList(r.final_context_ids, top)) return no(`final_context_ids are not the first ${testCase.cutoff} of candidates_after_rerank`);
  return { ok: true, record: { ...r, candidates_before_rerank: before, candidates_after_rerank: after, final_context_ids: top } };
}
