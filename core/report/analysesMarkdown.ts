import type { DensityTable } from './density.ts';
import type { ResolutionRow } from './resolution.ts';
import type { SecondStageRow } from './secondStage.ts';
import type { EditPositionRow } from './editPosition.ts';
import { fmt, fmtCi, fmtP, mdTable } from './format.ts';

/** The paper's analyses that need no new data, as report.md sections (definitions in the glossary). Pure. */
export function analysesMarkdown(density: readonly DensityTable[], resolution: readonly ResolutionRow[], second: readonly SecondStageRow[] = [], edits: readonly EditPositionRow[] = []): string[] {
  const out: string[] = [];
  if (density.length) {
    const d0 = density[0];
    out.push('', '## Density scaling', '');
    out.push(
      `Twins (own buggy distractors) per query kept in the pool, 0 to ${d0.points[d0.points.length - 1].twins}; the others are removed from the pool ` +
        `for every query and the stored rankings re-read (mean over ${d0.draws} seeded draws; glossary: density_scaling). ` +
        'exec@1_ta and execp@k_ta are tie-aware (every order of equal scores, as the headline). ' +
        'mean kept: twins per query actually in the pool (queries with fewer twins keep all of theirs). short: (query, draw) cases with ' +
        'fewer than k executed snippets left after the removal, or a tied group at k reaching unexecuted snippets; their unseen positions count as failing, so execp@k there (and exec@1 when none is left) is a lower bound, marked ≥.',
    );
    for (const t of density) {
      out.push('', `### ${t.config_id}`, '');
      out.push(
        mdTable(
          ['twins', 'mean kept', 'exec@1_ta', `execp@${t.k}_ta`, 'deception_rate', 'short'],
          t.points.map((p) => [
            String(p.twins),
            fmt(p.mean_kept, 2),
            fmtCi(p.exec_at_1),
            // A lower bound when some top list ran out of executed snippets (see the note above).
            `${p.short ? '≥ ' : ''}${fmtCi(p.execp_at_k)}`,
            p.deception_rate.ci_low === null ? '–' : fmtCi(p.deception_rate),
            String(p.short),
          ]),
        ),
      );
    }
  }
  if (resolution.length) {
    out.push('', '## Rank resolution', '');
    out.push(
      'Adjacent configurations in the headline order: is the difference resolved at this query count (bootstrap: interval excludes 0; ' +
        'McNemar: Holm-adjusted p < alpha), and how many queries the observed discordance would need (glossary: rank_resolution).',
    );
    for (const metric of [...new Set(resolution.map((r) => r.metric))]) {
      out.push('', `### ${metric}`, '');
      out.push(
        mdTable(
          ['upper', 'lower', 'upper − lower [CI]', 'resolved (bootstrap)', 'b', 'c', 'p (Holm)', 'resolved (McNemar)', 'queries needed'],
          resolution
            .filter((r) => r.metric === metric)
            .map((r) => [
              r.upper,
              r.lower,
              `${fmt(r.diff)} [${fmt(r.ci_low)}, ${fmt(r.ci_high)}]`,
              r.resolved_bootstrap ? 'yes' : 'no',
              r.b === null ? '–' : String(r.b),
              r.c === null ? '–' : String(r.c),
              fmtP(r.p_holm),
              r.resolved_mcnemar === null ? '–' : r.resolved_mcnemar ? 'yes' : 'no',
              r.queries_needed === null ? (r.b !== null && r.b === r.c ? 'none (b = c)' : '–') : String(r.queries_needed),
            ]),
        ),
      );
    }
  }
  if (second.length) {
    out.push('', '## Where the first stage leaves the work', '');
    out.push(
      `exec@1 of each configuration, then after an oracle-free second stage: reciprocal rank fusion of its top ${second[0].depth} with ` +
        `${second[0].second}'s order of the same snippets; exec@${second[0].depth} is the ceiling any reranker of that list can reach (glossary: second_stage).`,
    );
    out.push(
      '',
      mdTable(
        ['config', 'exec@1', `exec@1 after RRF with ${second[0].second}`, `exec@${second[0].depth} (ceiling)`, 'recovered'],
        second.map((r) => [r.config_id, fmtCi(r.first_exec_at_1), fmtCi(r.fused_exec_at_1), fmtCi(r.ceiling_exec_at_k), fmtCi(r.recovered)]),
      ),
    );
  }
  if (edits.length) {
    out.push('', '## Deception by edit position', '');
    out.push(
      "Twins whose edit lies past the model's token limit (the truncated input equals the canonical's, so the embedder never saw the edit), " +
        'and deception_rate / tie_rate over all twins and over the seen ones only (glossary: edit_position).',
    );
    out.push(
      '',
      mdTable(
        ['config', 'max tokens', 'twins', 'edit unseen', 'deception_rate (all)', 'deception_rate (seen)', 'tie_rate (all)', 'tie_rate (seen)'],
        edits.map((r) => [
          r.config_id,
          String(r.max_tokens),
          String(r.twins),
          `${r.unseen} (${fmt(r.twins ? (100 * r.unseen) / r.twins : NaN, 1)}%)`,
          fmtCi(r.deception_all),
          fmtCi(r.deception_seen),
          fmtCi(r.tie_all),
          fmtCi(r.tie_seen),
        ]),
      ),
    );
  }
  return out;
}
