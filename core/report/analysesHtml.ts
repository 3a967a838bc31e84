import type { DensityTable } from './density.ts';
import type { ResolutionRow } from './resolution.ts';
import type { SecondStageRow } from './secondStage.ts';
import type { EditPositionRow } from './editPosition.ts';
import { RERANK_HEADER, rerankCells, type RerankStageRow } from './rerankStage.ts';
import { escapeHtml, fmt, fmtCi, fmtP } from './format.ts';
import { densityCharts, editPositionChart, resolutionCharts, secondStageChart } from './analysisCharts.ts';

export interface Analyses {
  density: readonly DensityTable[];
  resolution: readonly ResolutionRow[];
  secondStage: readonly SecondStageRow[];
  editPosition: readonly EditPositionRow[];
  /** Rerankers beside their first stage (absent in reports built before rerankers existed). */
  rerank?: readonly RerankStageRow[];
}

/** An HTML table; `id` lets a reader find it, each row's `data-row` names it. */
function table(id: string, header: readonly string[], rows: readonly { key: string; cells: readonly string[] }[]): string {
  return (
    `<table class="t" id="${escapeHtml(id)}"><thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>` +
    rows.map((r) => `<tr data-row="${escapeHtml(r.key)}">${r.cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('') +
    '</tbody></table>'
  );
}

/**
 * The four analyses as report.html sections: a plot (analysisCharts.ts) next to the table of the same numbers
 * (the tables report.md has). Definitions are in the glossary below them. Pure.
 */
export function analysesHtml(a: Analyses): string {
  const out: string[] = [];
  if (a.density.length) {
    const k = a.density[0].k;
    const charts = densityCharts(a.density);
    out.push(
      '<h2 id="density-scaling">Density scaling</h2><p class="note">exec@1, execp@' + k + ' and deception_rate as the pool keeps 0 to ' +
        `${a.density[0].points[a.density[0].points.length - 1].twins} twins per query (mean over ${a.density[0].draws} seeded draws; whiskers: intervals). ` +
        'exec@1_ta and execp@k_ta are tie-aware. ≥: a lower bound (a top list ran short of executed snippets). Glossary: density_scaling.</p>',
    );
    a.density.forEach((t, i) => {
      out.push(
        `<div class="analysis"><div class="scroll">${charts[i]}</div><div class="scroll">` +
          table(`density-table-${t.config_id}`, ['twins', 'mean kept', 'exec@1_ta', `execp@${t.k}_ta`, 'deception_rate', 'short'], t.points.map((p) => ({
            key: String(p.twins),
            cells: [String(p.twins), fmt(p.mean_kept, 2), fmtCi(p.exec_at_1), `${p.short ? '≥ ' : ''}${fmtCi(p.execp_at_k)}`, p.deception_rate.ci_low === null ? '–' : fmtCi(p.deception_rate), String(p.short)],
          }))) +
          '</div></div>',
      );
    });
  }
  if (a.resolution.length) {
    out.push('<h2 id="rank-resolution">Rank resolution</h2><p class="note">Adjacent configurations in the headline order: the difference with its paired-bootstrap interval (hollow: the interval includes 0, not resolved), whether Holm-adjusted McNemar resolves it, and the queries the observed discordance would need. Glossary: rank_resolution.</p>');
    for (const { metric, svg } of resolutionCharts(a.resolution)) {
      out.push(
        `<h3>${escapeHtml(metric)}</h3><div class="scroll">${svg}</div><div class="scroll">` +
          table(`resolution-table-${metric}`, ['upper', 'lower', 'upper − lower [CI]', 'resolved (bootstrap)', 'b', 'c', 'p (Holm)', 'resolved (McNemar)', 'queries needed'], a.resolution.filter((r) => r.metric === metric).map((r) => ({
            key: `${r.upper} − ${r.lower}`,
            cells: [
              r.upper,
              r.lower,
              `${fmt(r.diff)} [${fmt(r.ci_low)}, ${fmt(r.ci_high)}]`,
              r.resolved_bootstrap ? 'yes' : 'no',
              r.b === null ? '–' : String(r.b),
              r.c === null ? '–' : String(r.c),
              fmtP(r.p_holm),
              r.resolved_mcnemar === null ? '–' : r.resolved_mcnemar ? 'yes' : 'no',
              r.queries_needed === null ? (r.b !== null && r.b === r.c ? 'none (b = c)' : '–') : String(r.queries_needed),
            ],
          }))) +
          '</div>',
      );
    }
  }
  if (a.secondStage.length) {
    const s = a.secondStage[0];
    out.push(
      `<h2 id="second-stage">Where the first stage leaves the work</h2><p class="note">exec@1, exec@1 after reciprocal rank fusion of the top ${s.depth} with ${escapeHtml(s.second)}'s order of the same snippets, and exec@${s.depth}, the ceiling any reranker of that list can reach. Glossary: second_stage.</p>` +
        `<div class="scroll">${secondStageChart(a.secondStage)}</div><div class="scroll">` +
        table('second-stage-table', ['config', 'exec@1', `exec@1 after RRF with ${s.second}`, `exec@${s.depth} (ceiling)`, 'recovered'], a.secondStage.map((r) => ({
          key: r.config_id,
          cells: [r.config_id, fmtCi(r.first_exec_at_1), fmtCi(r.fused_exec_at_1), fmtCi(r.ceiling_exec_at_k), fmtCi(r.recovered)],
        }))) +
        '</div>',
    );
  }
  if (a.editPosition.length) {
    out.push(
      "<h2 id=\"edit-position\">Deception by edit position</h2><p class=\"note\">Share of twins whose edit lies past the model's token limit (the embedder never saw it), and deception_rate over all twins and over the seen ones. Glossary: edit_position.</p>" +
        `<div class="scroll">${editPositionChart(a.editPosition)}</div><div class="scroll">` +
        table('edit-position-table', ['config', 'max tokens', 'twins', 'edit unseen', 'deception_rate (all)', 'deception_rate (seen)', 'tie_rate (all)', 'tie_rate (seen)'], a.editPosition.map((r) => ({
          key: r.config_id,
          cells: [r.config_id, String(r.max_tokens), String(r.twins), `${r.unseen} (${fmt(r.twins ? (100 * r.unseen) / r.twins : NaN, 1)}%)`, fmtCi(r.deception_all), fmtCi(r.deception_seen), fmtCi(r.tie_all), fmtCi(r.tie_seen)],
        }))) +
        '</div>',
    );
  }
  if (a.rerank?.length) {
    out.push(
      '<h2 id="rerank">Rerankers beside their first stage</h2><p class="note">exec@1 of the first stage and of the reranker over its top list, the paired gain with the exact McNemar test (b: reranker passes, first stage fails; c: the reverse), the first stage\'s exec@10 as the ceiling, and the share of that room the reranker recovers. Glossary: second_stage.</p>' +
        `<div class="scroll">${table('rerank-table', RERANK_HEADER, a.rerank.map((r) => ({ key: r.config_id, cells: rerankCells(r) })))}</div>`,
    );
  }
  return out.join('\n');
}
