import { HASH_ORDER_METRICS, TIE_AWARE_METRICS } from '../metrics/per_query.ts';
import { PRNG_NAME } from '../stats/prng.ts';
import { LANGUAGE_METRICS, type StatisticsResult } from './statistics.ts';
import { digitsFor, fmt, fmtCi, fmtP, mdTable } from './format.ts';
import { GLOSSARY } from './glossary.ts';
import { HEADLINE, headlineNote, headlineRows, sortedConfigs } from './headline.ts';
import { analysesMarkdown } from './analysesMarkdown.ts';
import type { DensityTable } from './density.ts';
import type { ResolutionRow } from './resolution.ts';
import type { SecondStageRow } from './secondStage.ts';
import type { EditPositionRow } from './editPosition.ts';
import { rerankMarkdown, type RerankStageRow } from './rerankStage.ts';

/** Pairwise tables printed in the Markdown (the full set is in pairwise.parquet). */
export const MD_PAIRWISE = ['exec@1', 'exec@10', 'ndcg@10'];

/** Why tie_rate and the _ta columns are in the headline (shared with the HTML report). */
export const TIE_NOTE =
  'Ties: a retriever that gives two snippets exactly the same score has not ordered them. The rankings break such ties by a keyed hash of ' +
  'corpus_id (blind to which snippet is the canonical); the hash-order columns are what a production system would return, the _ta columns ' +
  'are their tie-aware expectations over every order of each tied group (McSherry & Najork 2008); the headline is sorted, and its winner ' +
  'decided, on the tie-aware values. deception_rate and the bug-type shares ' +
  'are decided by score, so the toss never counts as a deception; tie_rate and bug_tie report the ties on their own.';

export interface MarkdownContext {
  run: string;
  failed: { config_id: string; error: string }[];
  rejections: number;
  /** A partial import limited scoring to these queries (scoring/manifest.json query_subset): n of all, and the imports. */
  subset?: { n: number; of: number; by: readonly string[] } | null;
  /** Queries whose text came from their code's docstring, by what became of it (summary.json query_docstrings). */
  docstrings?: Readonly<Record<string, number>>;
  /** The paper's analyses (core/report/density.ts, resolution.ts, secondStage.ts, editPosition.ts); sections are left out when absent. */
  density?: readonly DensityTable[];
  resolution?: readonly ResolutionRow[];
  secondStage?: readonly SecondStageRow[];
  editPosition?: readonly EditPositionRow[];
  /** Rerankers beside their first stage (core/report/rerankStage.ts). */
  rerank?: readonly RerankStageRow[];
}

/** report.md: headline table with CIs, deception by bug type and domain, significance tables, glossary. Pure. */
export function buildMarkdown(s: StatisticsResult, ctx: MarkdownContext): string {
  const e = s.estimates;
  const out: string[] = [];
  const pct = Math.round((1 - s.settings.alpha) * 100);
  const order = sortedConfigs(s);
  out.push(`# ExecRetrieval report — ${ctx.run}`);
  out.push('');
  out.push(
    `${s.n_queries} queries, ${s.configs.length} configuration${s.configs.length === 1 ? '' : 's'}. Intervals: ${pct}% query-level bootstrap percentile ` +
      `intervals, ${s.settings.replicates} replicates, seed ${s.settings.seed} (${PRNG_NAME}). exec@k and execp@k are ` +
      'measured by executing each top-10 snippet against the query\'s tests; nDCG uses the canonical ids. Every column is defined in the glossary at the end.',
  );
  if (s.languages) {
    // Which language each number is about: the tables below pool every query; "By language" splits them.
    const names = s.languages.join(', ');
    out.push('', s.languages.length === 1 ? `Language: ${names} (every query).` : `Languages: ${names}. The tables pool every query; "By language" gives each language's block.`);
  }
  if (ctx.failed.length) out.push('', `Configurations that failed: ${ctx.failed.map((f) => `\`${f.config_id}\` (${f.error})`).join('; ')}.`);
  if (ctx.rejections) out.push('', `${ctx.rejections} benchmark records were rejected (see scoring/manifest.json).`);
  // Said here, not only in summary.json (issue 37): both change what every number below is measured on.
  if (ctx.subset) {
    out.push('', `Every configuration is scored on the ${ctx.subset.n} of ${ctx.subset.of} benchmark queries that the partial import${ctx.subset.by.length > 1 ? 's' : ''} ${ctx.subset.by.map((b) => `\`${b}\``).join(', ')} cover${ctx.subset.by.length > 1 ? '' : 's'}: these numbers are not comparable with a run scored on all queries.`);
  }
  const removed = ctx.docstrings?.removed ?? 0;
  if (removed) out.push('', `${removed} queries were taken from their code's docstring, which was removed from the snippets (so the query text is not also in the code it retrieves).`);
  out.push('', '## Headline', '');
  out.push(
    mdTable(
      ['config', ...HEADLINE],
      headlineRows(s).map((r) => [
        `${r.winner ? '**★ ' : ''}(${r.letter}) ${r.config}${r.winner ? '**' : ''}`,
        ...r.cells.map((c) => (c.beats.length ? `${c.text}<sup>${c.beats.join('')}</sup>` : c.text)),
      ]),
    ),
  );
  out.push('', headlineNote(s), '', TIE_NOTE);
  out.push('', '## All metrics, hash order (point estimates)', '');
  out.push(mdTable(['config', ...HASH_ORDER_METRICS], order.map((c) => [c, ...HASH_ORDER_METRICS.map((m) => fmt(e[c][m].estimate, digitsFor(m)))])));
  out.push('', '## All metrics, tie-aware expectation (point estimates)', '');
  out.push(mdTable(['config', ...TIE_AWARE_METRICS], order.map((c) => [c, ...TIE_AWARE_METRICS.map((m) => fmt(e[c][m]?.estimate, digitsFor(m)))])));
  out.push('', '## Deception by bug type', '', 'bug_outscore: share of that bug type\'s distractors that score strictly above their own canonical.', '');
  out.push(mdTable(['config', ...s.bug_types], order.map((c) => [c, ...s.bug_types.map((b) => fmtCi(e[c][`bug_outscore:${b}`]))])));
  out.push('', 'bug_tie: share of that bug type\'s distractors with exactly their canonical\'s score (ordered by the hash tie-break).', '');
  out.push(mdTable(['config', ...s.bug_types], order.map((c) => [c, ...s.bug_types.map((b) => fmtCi(e[c][`bug_tie:${b}`]))])));
  out.push('', '## Deception by domain', '', 'Share of queries where an own distractor scores strictly above the canonical.', '');
  out.push(mdTable(['config', ...s.domains], order.map((c) => [c, ...s.domains.map((d) => fmtCi(e[c][`domain_deception:${d}`]))])));
  if (s.languages && s.languages.length > 1) {
    out.push('', '## By language', '', 'Each metric over one language\'s queries (with its interval); "pooled" is every query, as in the headline.');
    const cols = [...s.languages, 'pooled'];
    for (const m of LANGUAGE_METRICS) {
      out.push('', `### ${m}`, '');
      out.push(mdTable(['config', ...cols], order.map((c) => [c, ...cols.map((l) => fmtCi(e[c][l === 'pooled' ? m : `lang:${l}:${m}`]))])));
    }
  }
  out.push('', '## Significance', '');
  out.push(
    'Binary exec@k (hash order): exact McNemar test on discordant queries (b: A passes, B fails; c: the reverse), Holm-adjusted ' +
      'across all pairs of that metric. Every metric: paired-bootstrap difference A − B with its interval. The tests use the hash-order ' +
      'values, not the _ta expectations. Full table: pairwise.parquet.',
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
  out.push(...analysesMarkdown(ctx.density ?? [], ctx.resolution ?? [], ctx.secondStage ?? [], ctx.editPosition ?? []));
  out.push(...rerankMarkdown(ctx.rerank ?? []));
  out.push('', '## Glossary', '', 'One definition per column (the same text is in report.html, summary.json `definitions` and docs/metrics.md).', '');
  for (const d of GLOSSARY) out.push(`- **${d.name}**: ${d.text} (\`${d.code}\`)`);
  return out.join('\n') + '\n';
}
