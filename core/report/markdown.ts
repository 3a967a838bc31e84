import { METRICS } from '../metrics/per_query.ts';
import { PRNG_NAME } from '../stats/prng.ts';
import type { StatisticsResult } from './statistics.ts';
import { digitsFor, fmt, fmtCi, fmtP, mdTable } from './format.ts';

/** The columns of the headline table. */
export const HEADLINE = ['exec@1', 'exec@10', 'execp@10', 'ndcg@10', 'rr_exec@10', 'canonical_rank', 'deception_rate', 'tie_rate', 'rank1_own_share', 'pref_accuracy'];
/** Pairwise tables printed in the Markdown (the full set is in pairwise.parquet). */
export const MD_PAIRWISE = ['exec@1', 'exec@10', 'ndcg@10'];

/** Why tie_rate is in the headline (shared with the HTML report). */
export const TIE_NOTE =
  'tie_rate: share of queries whose canonical has exactly the score of one of its own distractors (common for BM25: ' +
  'a single-edit twin often has the same tokens). Rankings break ties by a hash of corpus_id, blind to which ' +
  'snippet is the canonical, so on those queries the order is a coin toss, not the retriever\'s doing ' +
  '(deception_rate does not count them; pref_accuracy counts a tie as 1/2).';

export interface MarkdownContext {
  run: string;
  failed: { config_id: string; error: string }[];
  rejections: number;
}

/** report.md: headline table with CIs, deception by bug type and domain, significance tables. Pure. */
export function buildMarkdown(s: StatisticsResult, ctx: MarkdownContext): string {
  const e = s.estimates;
  const out: string[] = [];
  const pct = Math.round((1 - s.settings.alpha) * 100);
  out.push(`# ExecRetrieval report — ${ctx.run}`);
  out.push('');
  out.push(
    `${s.n_queries} queries, ${s.configs.length} configuration${s.configs.length === 1 ? '' : 's'}. Intervals: ${pct}% query-level bootstrap percentile ` +
      `intervals, ${s.settings.replicates} replicates, seed ${s.settings.seed} (${PRNG_NAME}). exec@k and execp@k are ` +
      'measured by executing each top-10 snippet against the query\'s tests; nDCG uses the canonical ids.',
  );
  if (ctx.failed.length) out.push('', `Configurations that failed: ${ctx.failed.map((f) => `\`${f.config_id}\` (${f.error})`).join('; ')}.`);
  if (ctx.rejections) out.push('', `${ctx.rejections} benchmark records were rejected (see scoring/manifest.json).`);
  out.push('', '## Headline', '');
  out.push(mdTable(['config', ...HEADLINE], s.configs.map((c) => [c, ...HEADLINE.map((m) => fmtCi(e[c][m], digitsFor(m)))])));
  out.push('', '## All metrics (point estimates)', '');
  out.push(mdTable(['config', ...METRICS], s.configs.map((c) => [c, ...METRICS.map((m) => fmt(e[c][m].estimate, digitsFor(m)))])));
  out.push('', '## Deception by bug type', '', 'Share of that bug type\'s distractors ranked above their own canonical.', '');
  out.push(mdTable(['config', ...s.bug_types], s.configs.map((c) => [c, ...s.bug_types.map((b) => fmtCi(e[c][`bug_outrank:${b}`]))])));
  out.push('', TIE_NOTE);
  out.push('', '## Deception by domain', '', 'Share of queries whose canonical is outranked by at least one of its own distractors.', '');
  out.push(mdTable(['config', ...s.domains], s.configs.map((c) => [c, ...s.domains.map((d) => fmtCi(e[c][`domain_deception:${d}`]))])));
  out.push('', '## Significance', '');
  out.push(
    'Binary exec@k: exact McNemar test on discordant queries (b: A passes, B fails; c: the reverse), Holm-adjusted ' +
      'across all pairs of that metric. Every metric: paired-bootstrap difference A − B with its interval. ' +
      'Full table: pairwise.parquet.',
  );
  for (const metric of MD_PAIRWISE) {
    const rows = s.pairwise.filter((r) => r.metric === metric);
    if (!rows.length) continue;
    out.push('', `### ${metric}`, '');
    const binary = rows[0].p_value !== null;
    out.push(
      mdTable(
        ['A', 'B', 'value A', 'value B', 'A − B [CI]', ...(binary ? ['b', 'c', 'p', 'p (Holm)'] : [])],
        rows.map((r) => [
          r.config_a,
          r.config_b,
          fmt(r.value_a),
          fmt(r.value_b),
          `${fmt(r.diff)} [${fmt(r.ci_low)}, ${fmt(r.ci_high)}]`,
          ...(binary ? [String(r.b), String(r.c), fmtP(r.p_value), fmtP(r.p_holm)] : []),
        ]),
      ),
    );
  }
  return out.join('\n') + '\n';
}
