import type { CaseResult } from '../../schemas/repoIndex.ts';
import { escapeHtml as esc } from '../report/format.ts';
import { pct, type AggregateRow } from './aggregate.ts';

/**
 * A self-contained HTML page (no scripts, no external assets) for one repository evaluation run:
 * aggregates per retriever and slice with case counts, then every failed case with its diagnosis.
 */

export function renderReport(args: {
  title: string;
  meta: Record<string, string>;
  aggregates: readonly AggregateRow[];
  results: readonly CaseResult[];
  refused: readonly { case_id: string; reason: string }[];
}): string {
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
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f4f4f4}</style>
</head><body>
<h1>${esc(args.title)}</h1>
<table>${meta}</table>
<h2>Aggregates (from ${args.results.length} case results)</h2>
<table><tr><th>retriever</th><th>dimension</th><th>slice</th><th>n</th><th>pass</th><th>required evidence</th><th>hit</th><th>MRR</th><th>group recall</th><th>forbidden</th><th>revision mismatch</th><th>context lines (mean)</th><th>context tokens (mean)</th></tr>
${rows}
</table>
${refused ? `<h2>Refused cases</h2><ul>${refused}</ul>` : ''}
<h2>Failures</h2>
<table><tr><th>retriever</th><th>case</th><th>query</th><th>first relevant rank</th><th>diagnosis</th><th>detail</th></tr>
${failures}
</table>
</body></html>
`;
}
