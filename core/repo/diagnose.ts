import type { EvidenceGroup, EvidenceTarget, GoldCase } from '../../schemas/gold.ts';
import type { Chunk, Diagnosis, GroupDiagnosis, InventoryEntry, RankedChunk } from '../../schemas/repoIndex.ts';
import type { CaseMetrics } from './evaluate.ts';
import { fileMatches, sameRevision, targetMatches } from './evidence.ts';

/**
 * Diagnosis at the first broken boundary (the guide's "Diagnose ranking, indexing, and label failures
 * separately" and its ownership hand-off). The pipeline, in order, and what breaks at each boundary:
 *
 *   index identity   → invalid_index (manifest incomplete) | stale_revision (other commit)
 *   gold label       → stale_gold_label (target file or symbol absent at the pinned revision)
 *   path policy      → excluded_by_path_policy
 *   chunking         → not_chunked (included, but no chunk covers the target text, or the chunk labelled
 *                      with the target's symbol holds other bytes: a wrong span)
 *   chunk metadata   → metadata_wrong (a chunk holds the text but its role/symbol fields reject it)
 *   candidate set    → not_a_candidate (a matching chunk is indexed but was not retrieved)
 *   ranking          → ranked_below_cutoff (a candidate, already below the cutoff before reranking)
 *   reranking        → demoted_by_reranker (inside the cutoff before reranking, outside after)
 *   context          → forbidden_source_in_context (evidence complete, but a forbidden chunk got in)
 *
 * A group is satisfied by any of its targets, so a group's diagnosis is that of the target that got
 * furthest; the case's diagnosis is the earliest boundary among its failing groups.
 */
export interface RepoView {
  /** Every path in the tree at the *case's* revision (for the stale-label check). */
  paths: readonly string[];
  /** A file's text at the case's revision, or undefined when absent. */
  text(path: string): string | undefined;
  inventory(path: string): InventoryEntry | undefined;
  chunksOf(path: string): readonly Chunk[];
  /**
   * The names a file's syntax tree defines at the case's revision (the structural chunker's symbols: an
   * import, a re-export or a mention defines nothing), or null for a file without a grammar (then the
   * text is searched for a definition's usual forms).
   */
  definitions?(path: string): ReadonlySet<string> | null;
}

export interface DiagnoseInput {
  testCase: GoldCase;
  metrics: CaseMetrics;
  index: { revision: string; completed: boolean };
  repo: RepoView;
  before: readonly RankedChunk[];
  after: readonly RankedChunk[];
}

export interface DiagnoseOutput {
  diagnosis: Diagnosis;
  detail: string;
  groups: GroupDiagnosis[];
}

const STAGE: Record<Diagnosis, number> = {
  invalid_index: 0,
  stale_revision: 1,
  stale_gold_label: 2,
  excluded_by_path_policy: 3,
  not_chunked: 4,
  metadata_wrong: 5,
  not_a_candidate: 6,
  ranked_below_cutoff: 7,
  demoted_by_reranker: 8,
  forbidden_source_in_context: 9,
  passed: 10,
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const lastName = (symbol: string) => symbol.slice(symbol.lastIndexOf('.') + 1);

/**
 * Text that defines `symbol`, as opposed to merely mentioning it, by the usual forms of the languages the
 * index parses (`function f`, `def f`, `func (r *T) f(`, `fn f`, `struct S`, `int f(`…). Only a fallback and
 * a cross-check of a chunk's bytes: whether a file defines a symbol is decided by its syntax tree
 * (RepoView.definitions) wherever it has a grammar.
 */
export function definesSymbol(text: string, symbol: string): boolean {
  const s = escape(lastName(symbol));
  return new RegExp(
    [
      `\\b(function\\*?|class|interface|type|enum|def|const|let|var|namespace|func|fn|struct|union|trait|mod|module|protocol|extension|typedef|record|macro_rules!|static)\\s+(self\\.)?${s}\\b`,
      `\\bfunc\\s*\\([^)]*\\)\\s*${s}\\b`,
      `^\\s*(export\\s+)?(async\\s+)?(public\\s+|private\\s+|protected\\s+|internal\\s+|static\\s+|readonly\\s+|final\\s+|abstract\\s+|override\\s+|virtual\\s+)*${s}\\s*[(<=:]`,
      `^(?!\\s*(return|else|new|throw|await|yield|case|delete)\\b)[\\w\\s*&:<>,\\[\\]]*[\\w*&>\\]]\\s+\\**(\\w+::)?${s}\\s*\\(`,
    ].join('|'),
    'm',
  ).test(text);
}

/** Whether a file defines `symbol`: by its syntax tree where it has a grammar, else by its text. */
function fileDefines(repo: Pick<RepoView, 'text' | 'definitions'>, path: string, symbol: string): boolean {
  const defs = repo.definitions?.(path);
  if (!defs) return definesSymbol(repo.text(path) ?? '', symbol);
  if (defs.has(symbol)) return true;
  const last = lastName(symbol);
  for (const d of defs) if (lastName(d) === last) return true;
  return false;
}

function mentions(text: string, symbol: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9_$])${escape(lastName(symbol))}($|[^A-Za-z0-9_$])`).test(text);
}

const isDefining = (target: EvidenceTarget) => target.roles.every((r) => r === 'definition' || r === 'declaration');

function textFits(text: string, target: EvidenceTarget): boolean {
  if (target.symbol === undefined) return true;
  return isDefining(target) ? definesSymbol(text, target.symbol) : mentions(text, target.symbol);
}

/** A file holds what `target` asks for: defines its symbol (by the syntax tree) or mentions it (usage roles). */
function fileFits(repo: Pick<RepoView, 'text' | 'definitions'>, path: string, target: EvidenceTarget): boolean {
  if (target.symbol === undefined) return true;
  return isDefining(target) ? fileDefines(repo, path, target.symbol) : mentions(repo.text(path) ?? '', target.symbol);
}

/**
 * Why `target` is a stale gold label at `revision` (its file, or its symbol in that file, is absent), or
 * null. The run checks every case's targets with this, passed or failed: a stale target is a gold error
 * (the gate fails on it unless --allow-stale-gold), not only a diagnosis of the cases it made fail.
 */
export function staleTarget(target: EvidenceTarget, revision: string, repo: Pick<RepoView, 'paths' | 'text' | 'definitions'>): string | null {
  const files = repo.paths.filter((p) => fileMatches(p, target.file));
  if (files.length === 0) return `${target.file} does not exist at ${revision}`;
  if (files.some((f) => fileFits(repo, f, target))) return null;
  return `${target.symbol} is not ${target.roles.includes('definition') ? 'defined' : 'mentioned'} in ${files.join(', ')} at ${revision}`;
}

function rankOf(list: readonly RankedChunk[], ids: ReadonlySet<string>): number | null {
  const i = list.findIndex((c) => ids.has(c.chunk_id));
  return i === -1 ? null : i + 1;
}

function diagnoseTarget(target: EvidenceTarget, input: DiagnoseInput): { diagnosis: Diagnosis; detail: string } {
  const { repo, testCase } = input;
  const cutoff = testCase.cutoff;
  const files = repo.paths.filter((p) => fileMatches(p, target.file));
  const want = `${target.file}${target.symbol ? `#${target.symbol}` : ''} [${target.roles.join('|')}]`;
  const stale = staleTarget(target, testCase.repositoryRevision, repo);
  if (stale) return { diagnosis: 'stale_gold_label', detail: stale };
  const withText = files.filter((f) => fileFits(repo, f, target));
  const included = withText.filter((f) => repo.inventory(f)?.included);
  if (included.length === 0) {
    const reasons = withText.map((f) => `${f}: ${repo.inventory(f)?.reason ?? 'not in inventory'}`);
    return { diagnosis: 'excluded_by_path_policy', detail: `excluded by path policy (${reasons.join('; ')})` };
  }
  const chunks = included.flatMap((f) => repo.chunksOf(f));
  const matching = chunks.filter((c) => targetMatches(c, target));
  if (matching.length === 0) {
    const holding = chunks.filter((c) => textFits(c.text, target));
    if (holding.length === 0) return { diagnosis: 'not_chunked', detail: `no chunk of ${included.join(', ')} covers ${want}` };
    const h = holding[0];
    return {
      diagnosis: 'metadata_wrong',
      detail: `chunk ${h.chunk_id} (lines ${h.start_line}-${h.end_line}) holds the text of ${want} but is labelled role=${h.role} symbols=[${h.symbols.join(', ')}]`,
    };
  }
  // Wrong span: the metadata matches but the chunk's bytes do not hold the definition (the parser attached
  // the symbol to a neighbouring reference). The evaluator, which trusts metadata, cannot see this.
  const sound = matching.filter((c) => textFits(c.text, target));
  if (sound.length === 0) {
    const m = matching[0];
    return { diagnosis: 'not_chunked', detail: `wrong span: chunk ${m.chunk_id} (lines ${m.start_line}-${m.end_line}) is labelled ${want} but its text does not hold it` };
  }
  const ids = new Set(matching.map((c) => c.chunk_id));
  const rb = rankOf(input.before, ids);
  if (rb === null) return { diagnosis: 'not_a_candidate', detail: `${[...ids].join(', ')} indexed but not among the ${input.before.length} candidates` };
  const ra = rankOf(input.after, ids);
  if (rb <= cutoff && (ra === null || ra > cutoff)) {
    return { diagnosis: 'demoted_by_reranker', detail: `rank ${rb} before reranking, ${ra ?? 'dropped'} after (cutoff ${cutoff})` };
  }
  return { diagnosis: 'ranked_below_cutoff', detail: `candidate at rank ${rb} before reranking, ${ra ?? 'dropped'} after (cutoff ${cutoff})` };
}

function diagnoseGroup(group: EvidenceGroup, input: DiagnoseInput): GroupDiagnosis {
  let best: { diagnosis: Diagnosis; detail: string } | null = null;
  for (const t of group.anyOf) {
    const d = diagnoseTarget(t, input);
    if (!best || STAGE[d.diagnosis] > STAGE[best.diagnosis]) best = d;
  }
  return { group_id: group.id, diagnosis: best!.diagnosis, detail: best!.detail };
}

export function diagnoseCase(input: DiagnoseInput): DiagnoseOutput {
  const { testCase, metrics, index } = input;
  if (!index.completed) return { diagnosis: 'invalid_index', detail: 'index manifest is not marked completed', groups: [] };
  if (!sameRevision(index.revision, testCase.repositoryRevision)) {
    return { diagnosis: 'stale_revision', detail: `index built from ${index.revision}, case pinned to ${testCase.repositoryRevision}`, groups: [] };
  }
  if (metrics.revision_mismatches.length) {
    return { diagnosis: 'stale_revision', detail: `chunks from another revision in context: ${metrics.revision_mismatches.join(', ')}`, groups: [] };
  }
  const groups = testCase.evidence.filter((g) => metrics.missing_group_ids.includes(g.id)).map((g) => diagnoseGroup(g, input));
  if (groups.length) {
    const first = groups.reduce((a, b) => (STAGE[b.diagnosis] < STAGE[a.diagnosis] ? b : a));
    return { diagnosis: first.diagnosis, detail: `group ${first.group_id}: ${first.detail}`, groups };
  }
  if (metrics.forbidden_chunk_ids.length) {
    return {
      diagnosis: 'forbidden_source_in_context',
      detail: `forbidden chunks within cutoff ${testCase.cutoff}: ${metrics.forbidden_chunk_ids.join(', ')}`,
      groups: [],
    };
  }
  return { diagnosis: 'passed', detail: '', groups: [] };
}
