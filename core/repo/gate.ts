import type { CaseResult } from '../../schemas/repoIndex.ts';
import { QUERY_CLASSES } from '../../schemas/gold.ts';
import { pct, sliceValue, summarise, type SliceDimension } from './aggregate.ts';
import { sameRevision } from './evidence.ts';

/**
 * The CI gate (the guide's "Gate on required evidence at the real cutoff, forbidden sources, revision
 * integrity, and proven high-risk slices"; rank metrics are for trends, not gates).
 */
export interface SliceMinimum {
  dimension: Exclude<SliceDimension, 'all'>;
  slice: string;
  minRequiredEvidenceRate: number;
  /** A slice with fewer cases than this is itself a failure (too thin to gate on). */
  minCases: number;
}

export interface GateThresholds {
  minRequiredEvidenceRate: number;
  maxForbiddenCases: number;
  requireRevisionIntegrity: boolean;
  sliceMinimums: SliceMinimum[];
  /** Most code lines (a share) the index may hold as plain text; 1 shows the share without gating on it. */
  maxTextCodeShare?: number;
}

export const DEFAULT_GATE: GateThresholds = {
  minRequiredEvidenceRate: 0.8,
  maxForbiddenCases: 0,
  requireRevisionIntegrity: true,
  sliceMinimums: [],
  maxTextCodeShare: 1,
};

/**
 * What the gate reads from a run. It fails closed: anything it cannot vouch for (a gold case the run
 * rejected, a configuration the run does not have, a slice no case belongs to, a result from another
 * index or revision) is a failed check with its reason, never a silent pass.
 */
export interface GateInput {
  /** The configuration that ships, and its results (the run's results with this retriever name). */
  retriever: string;
  results: readonly CaseResult[];
  /** Every configuration name the run has results for. */
  retrieversInRun: readonly string[];
  /** Gold cases the run rejected as malformed, formatted (`file:line (id) field: message`). */
  goldErrors: readonly string[];
  /** Evidence targets absent at their case's pinned revision, formatted as gold errors. */
  staleGold?: readonly string[];
  /** `--allow-stale-gold`: list stale targets without failing on them (a relabelling in progress). */
  allowStaleGold?: boolean;
  /** The run's index manifest identity. */
  index: { revision: string; index_build_id: string; completed: boolean };
  /** The commit the caller requires the index to be of (`--expect-rev`), when given. */
  expectRevision?: string;
  /** Cases refused before evaluation (revision other than the index's), with reasons. */
  refused: readonly { case_id: string; reason: string }[];
  /** Recorded mode: replayed records refused by verification (core/repo/replay.ts), with reasons. */
  rejectedRecords?: readonly { case_id: string; retriever: string; reason: string }[];
  /** Index chunks whose text did not match the revision's blobs (activities/repo/indexVerify.ts); undefined: the run did not verify. */
  refusedChunks?: readonly { chunk_id: string; reason: string }[];
  /** Code lines the index holds as plain text (its manifest's `code_as_text`); undefined: not recorded. */
  codeAsText?: { lines: number; code_lines: number; languages: readonly string[] };
  /** The sha256 of results.jsonl as the run recorded it in summary.json, and as the file hashes now. */
  resultsSha256?: { recorded: string; actual: string };
}

export interface GateVerdict {
  ok: boolean;
  checks: { name: string; ok: boolean; actual: string; required: string }[];
}

const list = (xs: readonly string[], n = 3) => `${xs.slice(0, n).join('; ')}${xs.length > n ? `; … ${xs.length - n} more` : ''}`;

export function evaluateGate(input: GateInput, t: GateThresholds): GateVerdict {
  const checks: GateVerdict['checks'] = [];
  const s = summarise(input.results);
  checks.push({
    name: 'gold cases valid',
    ok: input.goldErrors.length === 0,
    actual: input.goldErrors.length ? `${input.goldErrors.length} rejected: ${list(input.goldErrors)}` : 'none rejected',
    required: 'none rejected',
  });
  const stale = input.staleGold ?? [];
  checks.push({
    name: 'gold targets exist at their revision',
    ok: stale.length === 0 || input.allowStaleGold === true,
    actual: stale.length ? `${stale.length} stale: ${list(stale)}${input.allowStaleGold ? ' (allowed by --allow-stale-gold)' : ''}` : 'none stale',
    required: input.allowStaleGold ? 'listed (--allow-stale-gold)' : 'none stale',
  });
  checks.push({
    name: 'configuration in run',
    ok: input.retrieversInRun.includes(input.retriever),
    actual: input.retrieversInRun.includes(input.retriever) ? input.retriever : `no results for ${input.retriever}; the run has ${input.retrieversInRun.join(', ') || 'none'}`,
    required: 'results for the named configuration (names list their components)',
  });
  if (input.resultsSha256) {
    const { recorded, actual } = input.resultsSha256;
    checks.push({
      name: 'results as the run wrote them',
      ok: recorded === actual,
      actual: recorded === actual ? 'results.jsonl matches summary.json' : `results.jsonl hashes to ${actual.slice(0, 12)}…, the run recorded ${recorded.slice(0, 12)}… (edited after the run)`,
      required: 'unchanged since the run',
    });
  }
  const rejected = input.rejectedRecords ?? [];
  checks.push({
    name: 'replayed records verified',
    ok: rejected.length === 0,
    actual: rejected.length ? `${rejected.length} rejected: ${list(rejected.map((r) => `${r.case_id} [${r.retriever}]: ${r.reason}`))}` : 'none rejected',
    required: 'none rejected',
  });
  const refusedChunks = input.refusedChunks;
  checks.push({
    name: 'index text matches the revision',
    ok: refusedChunks !== undefined && refusedChunks.length === 0,
    actual: refusedChunks === undefined ? 'not verified (run written before index verification; re-run repo eval)' : refusedChunks.length ? `${refusedChunks.length} chunk(s) refused: ${list(refusedChunks.map((c) => `${c.chunk_id}: ${c.reason}`))}` : 'every chunk verified',
    required: 'every chunk verified',
  });
  const t2 = input.codeAsText;
  const share = t2 && t2.code_lines ? t2.lines / t2.code_lines : 0;
  const maxShare = t.maxTextCodeShare ?? 1;
  checks.push({
    name: 'code indexed as plain text',
    ok: t2 !== undefined ? share <= maxShare : maxShare >= 1,
    actual: t2 ? `${pct(share)} (${t2.lines} of ${t2.code_lines} code lines${t2.languages.length ? `: ${t2.languages.join(', ')}` : ''})` : 'not recorded (index built before languages were counted)',
    required: `<= ${pct(maxShare)}`,
  });
  checks.push({ name: 'cases evaluated', ok: input.results.length > 0, actual: String(input.results.length), required: '> 0' });
  checks.push({
    name: 'required evidence at cutoff',
    ok: s.required_evidence_rate >= t.minRequiredEvidenceRate,
    actual: `${pct(s.required_evidence_rate)} (${input.results.filter((r) => r.required_evidence).length}/${s.n})`,
    required: `>= ${pct(t.minRequiredEvidenceRate)}`,
  });
  const forbidden = input.results.filter((r) => r.forbidden_chunk_ids.length > 0);
  checks.push({
    name: 'forbidden sources in context',
    ok: forbidden.length <= t.maxForbiddenCases,
    actual: `${forbidden.length} case(s)${forbidden.length ? `: ${forbidden.map((r) => r.case_id).join(', ')}` : ''}`,
    required: `<= ${t.maxForbiddenCases}`,
  });
  if (t.requireRevisionIntegrity) {
    const ix = input.index;
    const problems = [
      ...(ix.completed ? [] : [`index build ${ix.index_build_id} is incomplete`]),
      ...(input.expectRevision && !sameRevision(input.expectRevision, ix.revision) ? [`index built from ${ix.revision}, expected ${input.expectRevision}`] : []),
      ...input.refused.map((r) => `${r.case_id} refused: ${r.reason}`),
      ...input.results.flatMap((r) => {
        if (r.index_build_id !== ix.index_build_id || r.index_revision !== ix.revision) return [`${r.case_id}: scored against index ${r.index_build_id} at ${r.index_revision}, the run's index is ${ix.index_build_id} at ${ix.revision}`];
        if (!sameRevision(r.case_revision, r.index_revision)) return [`${r.case_id}: pinned to ${r.case_revision}, scored at ${r.index_revision}`];
        return r.revision_mismatches.length ? [`${r.case_id}: ${r.revision_mismatches.length} chunk(s) of another revision`] : [];
      }),
    ];
    checks.push({ name: 'revision integrity', ok: problems.length === 0, actual: problems.length ? list(problems, 5) : 'intact', required: 'intact' });
  }
  for (const m of t.sliceMinimums) {
    const rs = input.results.filter((r) => sliceValue(r, m.dimension) === m.slice);
    const ss = summarise(rs);
    const present = [...new Set(input.results.map((r) => sliceValue(r, m.dimension)))].sort();
    checks.push({
      name: `slice ${m.dimension}=${m.slice}`,
      ok: rs.length > 0 && rs.length >= m.minCases && ss.required_evidence_rate >= m.minRequiredEvidenceRate,
      actual: rs.length ? `${pct(ss.required_evidence_rate)} over ${rs.length} case(s)` : `no case has ${m.dimension}=${m.slice} (the run's ${m.dimension} slices: ${present.join(', ') || 'none'})`,
      required: `>= ${pct(m.minRequiredEvidenceRate)} over >= ${m.minCases} case(s)`,
    });
  }
  return { ok: checks.every((c) => c.ok), checks };
}

export function formatGate(v: GateVerdict): string {
  const lines = v.checks.map((c) => `${c.ok ? 'PASS' : 'FAIL'}  ${c.name}: ${c.actual} (required ${c.required})`);
  lines.push(v.ok ? 'gate: passed' : `gate: FAILED (${v.checks.filter((c) => !c.ok).length} check(s) missed)`);
  return lines.join('\n');
}

/** Parse `dimension=slice:minRate[:minCases]`, e.g. `query_class=exact_identifier:0.9:3`. */
export function parseSliceMinimum(spec: string): SliceMinimum {
  const m = /^(query_class|language|area|split|context)=([^:]+):([0-9.]+)(?::(\d+))?$/.exec(spec);
  if (!m) throw new Error(`slice minimum ${JSON.stringify(spec)}: expected dimension=slice:minRate[:minCases], dimension one of query_class, language, area, split, context`);
  const rate = Number(m[3]);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`slice minimum ${JSON.stringify(spec)}: rate must be within [0, 1]`);
  // Dimensions with a closed set of values are checked here: a typo is a usage error, not an empty slice.
  const closed: Partial<Record<string, readonly string[]>> = { query_class: QUERY_CLASSES, split: ['train', 'test'], context: ['with', 'without'] };
  const known = closed[m[1]];
  if (known && !known.includes(m[2])) throw new Error(`slice minimum ${JSON.stringify(spec)}: unknown ${m[1]} ${JSON.stringify(m[2])} (one of ${known.join(', ')})`);
  return { dimension: m[1] as SliceMinimum['dimension'], slice: m[2], minRequiredEvidenceRate: rate, minCases: m[4] ? Number(m[4]) : 1 };
}
