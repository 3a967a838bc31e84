import type { CaseResult } from '../../schemas/repoIndex.ts';
import { pct, summarise, type SliceDimension } from './aggregate.ts';

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
}

export const DEFAULT_GATE: GateThresholds = {
  minRequiredEvidenceRate: 0.8,
  maxForbiddenCases: 0,
  requireRevisionIntegrity: true,
  sliceMinimums: [],
};

export interface GateInput {
  results: readonly CaseResult[];
  /** The index manifest was complete and every case's revision matched it. */
  indexValid: boolean;
  /** Cases refused before evaluation (revision other than the index's), with reasons. */
  refused: readonly { case_id: string; reason: string }[];
}

export interface GateVerdict {
  ok: boolean;
  checks: { name: string; ok: boolean; actual: string; required: string }[];
}

export function evaluateGate(input: GateInput, t: GateThresholds): GateVerdict {
  const checks: GateVerdict['checks'] = [];
  const s = summarise(input.results);
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
    const mism = input.results.filter((r) => r.revision_mismatches.length > 0);
    const problems = [
      ...(input.indexValid ? [] : ['index manifest incomplete or of another revision']),
      ...input.refused.map((r) => `${r.case_id} refused: ${r.reason}`),
      ...mism.map((r) => `${r.case_id}: ${r.revision_mismatches.length} chunk(s) of another revision`),
    ];
    checks.push({ name: 'revision integrity', ok: problems.length === 0, actual: problems.length ? problems.join('; ') : 'intact', required: 'intact' });
  }
  for (const m of t.sliceMinimums) {
    const rs = input.results.filter((r) => String(r[m.dimension]) === m.slice);
    const ss = summarise(rs);
    checks.push({
      name: `slice ${m.dimension}=${m.slice}`,
      ok: rs.length >= m.minCases && ss.required_evidence_rate >= m.minRequiredEvidenceRate,
      actual: `${pct(ss.required_evidence_rate)} over ${rs.length} case(s)`,
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
  const m = /^(query_class|language|area|split)=([^:]+):([0-9.]+)(?::(\d+))?$/.exec(spec);
  if (!m) throw new Error(`slice minimum ${JSON.stringify(spec)}: expected dimension=slice:minRate[:minCases], dimension one of query_class, language, area, split`);
  const rate = Number(m[3]);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`slice minimum ${JSON.stringify(spec)}: rate must be within [0, 1]`);
  return { dimension: m[1] as SliceMinimum['dimension'], slice: m[2], minRequiredEvidenceRate: rate, minCases: m[4] ? Number(m[4]) : 1 };
}
