import type { GoldCase } from '../../schemas/gold.ts';
import type { CaseResult, IndexManifest, InventoryEntry, RetrievalRecord } from '../../schemas/repoIndex.ts';
import { definesSymbol } from '../../core/repo/diagnose.ts';
import { fileMatches } from '../../core/repo/evidence.ts';

/**
 * The reproducible evidence bundle the guide asks to hand an owner: queries, filters, revisions, index
 * identity and versions, cutoff, the searchable-inventory entry of each target file, candidates before and
 * after reranking, excerpts around the expected symbols, the label rationale and the final context ids.
 */
export const EVALUATOR_VERSION = 'repo-eval-1';
const EXCERPT_RADIUS = 6;

function excerpt(text: string, symbol: string | undefined): { line: number; text: string } | null {
  const lines = text.split('\n');
  let at = 0;
  if (symbol) {
    const name = symbol.slice(symbol.lastIndexOf('.') + 1);
    at = lines.findIndex((l) => definesSymbol(l, symbol));
    if (at === -1) at = lines.findIndex((l) => l.includes(name));
    if (at === -1) return null;
  }
  const from = Math.max(0, at - EXCERPT_RADIUS);
  return { line: from + 1, text: lines.slice(from, at + EXCERPT_RADIUS + 1).join('\n') };
}

export function evidenceBundle(args: {
  testCase: GoldCase;
  result: CaseResult;
  record: RetrievalRecord;
  manifest: IndexManifest;
  inventory: (path: string) => InventoryEntry | undefined;
  paths: readonly string[];
  text: (path: string) => string | undefined;
}) {
  const { testCase, result, record, manifest } = args;
  const targets = testCase.evidence.flatMap((g) =>
    g.anyOf.map((t) => {
      const files = args.paths.filter((p) => fileMatches(p, t.file));
      return {
        group_id: g.id,
        target: t,
        missing: result.missing_group_ids.includes(g.id),
        inventory: files.map((f) => args.inventory(f) ?? { path: f, included: false, reason: 'not in inventory' }),
        excerpts: files.flatMap((f) => {
          const e = excerpt(args.text(f) ?? '', t.symbol);
          return e ? [{ file: f, ...e }] : [];
        }),
      };
    }),
  );
  return {
    case_id: testCase.id,
    retriever: result.retriever,
    mode: result.mode,
    query: record.query,
    searched_query: record.searched_query,
    reliable_context: testCase.context ?? null,
    filters: record.filters,
    case_revision: testCase.repositoryRevision,
    index_revision: manifest.revision,
    index_build_id: manifest.index_build_id,
    chunker_version: manifest.chunker_version,
    evaluator_version: EVALUATOR_VERSION,
    versions: manifest.versions,
    policy: manifest.policy,
    cutoff: testCase.cutoff,
    diagnosis: result.diagnosis,
    group_diagnoses: result.group_diagnoses,
    first_relevant_rank: result.first_relevant_rank,
    forbidden_chunk_ids: result.forbidden_chunk_ids,
    revision_mismatches: result.revision_mismatches,
    targets,
    candidates_before_rerank: record.candidates_before_rerank,
    candidates_after_rerank: record.candidates_after_rerank,
    final_context_ids: record.final_context_ids,
    rationale: testCase.rationale,
  };
}
