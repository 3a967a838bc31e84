import type { GoldCase } from '../../schemas/gold.ts';
import type { CaseResult, Chunk, RankedChunk, RetrievalRecord } from '../../schemas/repoIndex.ts';
import { escapeHtml as esc } from '../report/format.ts';
import { pct, type AggregateRow } from './aggregate.ts';
import { groupMatches, sameRevision } from './evidence.ts';
import { isForbidden } from './evaluate.ts';
import { DIAGNOSES } from '../../schemas/repoIndex.ts';
import { stackedShares } from '../report/svg.ts';

/**
 * A self-contained HTML page (no scripts, no external assets) for one repository evaluation run. It opens at
 * the answer: the best configuration and every configuration's pass rate with its interval, then failures by
 * the boundary where they broke (a plot); below, collapsed, the aggregates per slice, every failed case with
 * its diagnosis, and per case and retriever the ranked chunks as the answer stage would have seen them. Chunk text is untrusted (it is
 * whatever the repository holds): every string goes through escapeHtml, attributes included.
 */

/** One case × retriever for the ranked-chunk section, with links (relative to report.html) to its files. */
export interface ReportCase {
  testCase: GoldCase;
  result: CaseResult;
  record: RetrievalRecord;
  caseHref: string;
  /** The evidence bundle (written for failures only). */
  evidenceHref: string | null;
}

/** Ranked chunks shown per case beyond the cutoff: enough to see what just missed the context. */
export const RANKS_PAST_CUTOFF = 5;
/** Excerpt of a chunk: its first lines, at most this many lines and characters. */
export const EXCERPT_LINES = 6;
export const EXCERPT_CHARS = 400;

export function excerptOf(text: string): string {
  const lines = text.split('\n').slice(0, EXCERPT_LINES).join('\n');
  return lines.length > EXCERPT_CHARS ? `${lines.slice(0, EXCERPT_CHARS)}…` : lines;
}

/** What a ranked chunk is to its case: the evidence groups it satisfies, forbidden, from another revision. */
export function chunkVerdict(testCase: GoldCase, c: RankedChunk): { groups: string[]; forbidden: boolean; otherRevision: boolean } {
  return {
    groups: testCase.evidence.filter((g) => groupMatches(c, g)).map((g) => g.id),
    forbidden: isForbidden(testCase, c),
    otherRevision: !sameRevision(c.revision, testCase.repositoryRevision),
  };
}

/**
 * Wilson score interval for a pass rate of `passed` of `n` cases (95%: z = 1.96): unlike the normal
 * approximation it stays inside [0, 1] and is not zero-width at 0% or 100%, which small gold sets hit.
 */
export function wilsonInterval(passed: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 1];
  const p = passed / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Configurations over all cases, best first: pass rate, then MRR, then name. */
export function rankedConfigurations(aggregates: readonly AggregateRow[]): AggregateRow[] {
  return aggregates
    .filter((a) => a.dimension === 'all')
    .sort((a, b) => b.pass_rate - a.pass_rate || b.mrr - a.mrr || (a.retriever < b.retriever ? -1 : a.retriever > b.retriever ? 1 : 0));
}

const BOUNDARY_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

/** The answer first: best configuration, pass rates with intervals, failures by boundary. */
function overview(aggregates: readonly AggregateRow[], results: readonly CaseResult[]): string {
  const ranked = rankedConfigurations(aggregates);
  if (!ranked.length) return '<p>No case results.</p>';
  const ci = (a: AggregateRow) => {
    const [lo, hi] = wilsonInterval(Math.round(a.pass_rate * a.n), a.n);
    return `${pct(a.pass_rate)} <span class="ci">[${pct(lo)}, ${pct(hi)}]</span>`;
  };
  const best = ranked[0];
  const rows = ranked
    .map((a, i) => `<tr${i === 0 ? ' class="best"' : ''} data-retriever="${esc(a.retriever)}"><td>${esc(a.retriever)}</td><td>${ci(a)}</td><td>${a.n}</td><td>${a.mrr.toFixed(3)}</td><td>${pct(a.required_evidence_rate)}</td><td>${pct(a.forbidden_rate)}</td><td>${a.context_tokens_mean.toFixed(0)}</td></tr>`)
    .join('\n');
  const boundaries = DIAGNOSES.filter((d) => d !== 'passed' && results.some((r) => !r.passed && r.diagnosis === d));
  const failing = ranked.filter((a) => results.some((r) => r.retriever === a.retriever && !r.passed));
  const plot = boundaries.length
    ? stackedShares(
        'failures-by-boundary',
        failing.map((a) => ({ label: a.retriever, counts: boundaries.map((d) => results.filter((r) => r.retriever === a.retriever && !r.passed && r.diagnosis === d).length) })),
        boundaries,
        BOUNDARY_COLORS,
        'share of failed cases',
      )
    : '<p>No failures.</p>';
  return `<h2 id="best">Best configuration</h2>
<p class="answer"><b>${esc(best.retriever)}</b> passes ${ci(best)} of ${best.n} cases (MRR ${best.mrr.toFixed(3)}, ~${best.context_tokens_mean.toFixed(0)} context tokens a case). Intervals: 95% Wilson intervals over cases.</p>
<div class="scroll"><table id="overview"><tr><th>configuration</th><th>pass rate [95%]</th><th>cases</th><th>MRR</th><th>required evidence</th><th>forbidden</th><th>context tokens (mean)</th></tr>
${rows}
</table></div>
<h2 id="failures-by-boundary">Failures by boundary</h2>
<p>Each failed case at the first pipeline boundary where it broke (index, gold label, path policy, chunking, metadata, candidate set, ranking, reranking, context).</p>
<div class="scroll">${plot}</div>`;
}

function caseSection(rc: ReportCase, chunkOf: (id: string) => Chunk | undefined): string {
  const { testCase: tc, result: r, record } = rc;
  const beforeRank = new Map(record.candidates_before_rerank.map((c) => [c.chunk_id, c.rank]));
  const shown = record.candidates_after_rerank.slice(0, tc.cutoff + RANKS_PAST_CUTOFF);
  const rows = shown
    .map((c, i) => {
      const v = chunkVerdict(tc, c);
      const inContext = i < tc.cutoff;
      const marks = [...v.groups.map((g) => `evidence ${g}`), v.forbidden ? 'FORBIDDEN' : '', v.otherRevision ? 'other revision' : ''].filter(Boolean).join(', ') || '–';
      const chunk = chunkOf(c.chunk_id);
      const lines = chunk ? `${chunk.start_line}-${chunk.end_line}` : '?';
      const excerpt = chunk ? esc(excerptOf(chunk.text)) : '(chunk not in this index)';
      const cls = [inContext ? 'ctx' : 'past', v.groups.length ? 'ev' : '', v.forbidden ? 'forb' : ''].filter(Boolean).join(' ');
      return `<tr class="chunk ${cls}" data-chunk="${esc(c.chunk_id)}" data-rank="${c.rank}" data-rank-before="${beforeRank.get(c.chunk_id) ?? ''}" data-in-context="${inContext ? 1 : 0}"><td>${c.rank}</td><td>${beforeRank.get(c.chunk_id) ?? '–'}</td><td>${esc(c.file)}:${lines}</td><td>${esc(c.symbols.join(', ')) || '–'}</td><td>${esc(c.role)}</td><td>${esc(marks)}</td><td><pre>${excerpt}</pre></td></tr>`;
    })
    .join('\n');
  const verdict = r.passed ? 'PASS' : `FAIL: ${r.diagnosis}`;
  const links = [`<a href="${esc(rc.caseHref)}">case record</a>`, rc.evidenceHref ? `<a href="${esc(rc.evidenceHref)}">evidence bundle</a>` : ''].filter(Boolean).join(' · ');
  const ctx = tc.context ? Object.entries(tc.context).map(([k, v]) => `${k}=${v}`).join(', ') : 'none';
  const applied = Object.entries(record.filters).map(([k, v]) => `${k}=${v}`).join(', ') || 'none';
  return `<section class="case ${r.passed ? 'pass' : 'fail'}" data-case="${esc(r.case_id)}" data-retriever="${esc(r.retriever)}" data-passed="${r.passed ? 1 : 0}"><details>
<summary>${esc(r.case_id)} × ${esc(r.retriever)} — <span class="verdict">${esc(verdict)}</span></summary>
<p class="query">${esc(r.query)}</p>
<p>cutoff ${tc.cutoff}; first relevant rank ${r.first_relevant_rank ?? '–'}; group recall ${r.group_recall.toFixed(2)}; context ${r.context_lines ?? '–'} lines, ~${r.context_tokens ?? '–'} tokens; reliable context: ${esc(ctx)} (applied: <span class="filters">${esc(applied)}</span>); ${links}</p>
<div class="scroll"><table><tr><th>rank</th><th>before rerank</th><th>file:lines</th><th>symbols</th><th>role</th><th>verdict</th><th>excerpt</th></tr>
${rows}
</table></div>
</details></section>`;
}

export function renderReport(args: {
  title: string;
  meta: Record<string, string>;
  aggregates: readonly AggregateRow[];
  results: readonly CaseResult[];
  refused: readonly { case_id: string; reason: string }[];
  /** Per case × retriever, the ranked chunks (omitted: no such section). */
  cases?: readonly ReportCase[];
  chunkOf?: (id: string) => Chunk | undefined;
}): string {
  const chunkOf = args.chunkOf ?? (() => undefined);
  const sections = [...(args.cases ?? [])]
    .sort((a, b) => (a.result.case_id < b.result.case_id ? -1 : a.result.case_id > b.result.case_id ? 1 : a.result.retriever < b.result.retriever ? -1 : a.result.retriever > b.result.retriever ? 1 : 0))
    .map((c) => caseSection(c, chunkOf))
    .join('\n');
  const rows = args.aggregates
    .map(
      (a) =>
        `<tr><td>${esc(a.retriever)}</td><td>${esc(a.dimension)}</td><td>${esc(a.slice)}</td><td>${a.n}</td><td>${pct(a.pass_rate)}</td><td>${pct(a.required_evidence_rate)}</td><td>${pct(a.hit_rate)}</td><td>${a.mrr.toFixed(3)}</td><td>${a.group_recall.toFixed(3)}</td><td>${pct(a.forbidden_rate)}</td><td>${pct(a.revision_mismatch_rate)}</td><td>${a.context_lines_mean.toFixed(0)}</td><td>${a.context_tokens_mean.toFixed(0)}</td></tr>`,
    )
    .join('\n');
  const failures = args.results
    .filter((r) => !r.passed)
    .map(
      (r) =>
        `<tr><td>${esc(r.retriever)}</td><td>${esc(r.case_id)}</td><td>${esc(r.query)}</td><td>${r.first_relevant_rank ?? '–'}</td><td>${esc(r.diagnosis)}</td><td>${esc(r.group_diagnoses.map((g) => `${g.group_id}: ${g.detail}`).join('; ') || r.forbidden_chunk_ids.join(', '))}</td></tr>`,
    )
    .join('\n');
  const meta = Object.entries(args.meta).map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('');
  const refused = args.refused.map((r) => `<li>${esc(r.case_id)}: ${esc(r.reason)}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(args.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>.scroll{overflow-x:auto;max-width:100%}.ci{color:#555}tr.best td{font-weight:600;background:#fff8e1}p.answer{font-size:16px}summary{cursor:pointer}section.case summary{font-weight:600;margin:6px 0}
@media (max-width:600px){body{margin:12px!important}}
body{font:14px system-ui,sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f4f4f4}pre{margin:0;font-size:12px;white-space:pre-wrap;max-width:60em}section.case{border-top:2px solid #ddd;margin-top:1.5em}section.fail .verdict{color:#b00}section.pass .verdict{color:#070}tr.past{opacity:.6}tr.ev td:nth-child(6){background:#e6f6e6}tr.forb td:nth-child(6){background:#fbe3e3}</style>
</head><body>
<h1>${esc(args.title)}</h1>
${overview(args.aggregates, args.results)}
<h2>Details</h2>
<details><summary>Run settings</summary><div class="scroll"><table>${meta}</table></div></details>
<details><summary>Aggregates per slice (from ${args.results.length} case results)</summary>
<div class="scroll"><table><tr><th>retriever</th><th>dimension</th><th>slice</th><th>n</th><th>pass</th><th>required evidence</th><th>hit</th><th>MRR</th><th>group recall</th><th>forbidden</th><th>revision mismatch</th><th>context lines (mean)</th><th>context tokens (mean)</th></tr>
${rows}
</table></div></details>
${refused ? `<h2>Refused cases</h2><ul>${refused}</ul>` : ''}
<details><summary>Failures (${args.results.filter((r) => !r.passed).length})</summary>
<div class="scroll"><table><tr><th>retriever</th><th>case</th><th>query</th><th>first relevant rank</th><th>diagnosis</th><th>detail</th></tr>
${failures}
</table></div></details>
${sections ? `<h2>Ranked chunks per case and retriever</h2>\n<p>Each case collapsed: open one to see its ranked chunks. Rows past the cutoff (greyed) were not passed to the answer stage. Verdict: the evidence groups a chunk satisfies, FORBIDDEN, other revision.</p>\n${sections}` : ''}
</body></html>
`;
}
