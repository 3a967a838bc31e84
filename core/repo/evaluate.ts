import type { GoldCase } from '../../schemas/gold.ts';
import { fileMatches, groupMatches, sameRevision, type ChunkIdentity } from './evidence.ts';

/**
 * Per-case metrics at the case's production cutoff (the guide's `evaluateRetrieval` and `groupRecallAtK`,
 * combined). Only the first `cutoff` chunks are visible: a definition at rank 6 with a cutoff of 5 is a
 * miss, however good recall@20 looks.
 *
 * - first_relevant_rank: 1-based rank of the first visible chunk satisfying any evidence group, else null;
 * - reciprocal_rank: 1 / first_relevant_rank, 0 when null;
 * - group_recall: satisfied groups / all groups; missing_group_ids in the case's group order;
 * - forbidden_chunk_ids: visible chunks under a forbidden path prefix, or matching a `forbidden` rule (file
 *   path or glob, and the symbol when the rule names one);
 * - revision_mismatches: visible chunks from a revision other than the case's;
 * - passed: every group satisfied, no forbidden chunk, no revision mismatch.
 */
export interface CaseMetrics {
  case_id: string;
  required_evidence: boolean;
  hit: boolean;
  first_relevant_rank: number | null;
  reciprocal_rank: number;
  group_recall: number;
  missing_group_ids: string[];
  /** Per group, the 1-based rank of its first satisfying visible chunk (null when missing). */
  group_ranks: Record<string, number | null>;
  forbidden_chunk_ids: string[];
  revision_mismatches: string[];
  passed: boolean;
}

/** A chunk the case forbids: under a forbidden path prefix, or matching a `forbidden` rule (file or glob, and the symbol when named). */
export function isForbidden(testCase: GoldCase, c: ChunkIdentity): boolean {
  return (
    testCase.forbiddenPathPrefixes.some((p) => c.file.startsWith(p)) ||
    (testCase.forbidden ?? []).some((f) => fileMatches(c.file, f.file) && (f.symbol === undefined || c.symbols.includes(f.symbol)))
  );
}

export function evaluateCase(testCase: GoldCase, ranked: readonly ChunkIdentity[]): CaseMetrics {
  if (!Number.isInteger(testCase.cutoff) || testCase.cutoff < 1) {
    throw new Error(`case ${testCase.id}: cutoff must be a positive integer`);
  }
  const visible = ranked.slice(0, testCase.cutoff);
  const groupRanks: Record<string, number | null> = {};
  for (const g of testCase.evidence) {
    const i = visible.findIndex((c) => groupMatches(c, g));
    groupRanks[g.id] = i === -1 ? null : i + 1;
  }
  const firstIndex = visible.findIndex((c) => testCase.evidence.some((g) => groupMatches(c, g)));
  const missing = testCase.evidence.filter((g) => groupRanks[g.id] === null).map((g) => g.id);
  const forbidden = visible.filter((c) => isForbidden(testCase, c)).map((c) => c.chunk_id);
  const mismatches = visible
    .filter((c) => !sameRevision(c.revision, testCase.repositoryRevision))
    .map((c) => c.chunk_id);
  const first = firstIndex === -1 ? null : firstIndex + 1;
  const n = testCase.evidence.length;
  return {
    case_id: testCase.id,
    required_evidence: missing.length === 0,
    hit: first !== null,
    first_relevant_rank: first,
    reciprocal_rank: first === null ? 0 : 1 / first,
    group_recall: (n - missing.length) / n,
    missing_group_ids: missing,
    group_ranks: groupRanks,
    forbidden_chunk_ids: forbidden,
    revision_mismatches: mismatches,
    passed: missing.length === 0 && forbidden.length === 0 && mismatches.length === 0,
  };
}
