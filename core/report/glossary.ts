/**
 * One definition per reported number, tie rule included: the same sentence is printed in report.md,
 * report.html and summary.json (`definitions`), and docs/metrics.md carries each one verbatim (a test checks).
 * The formulas live in the doc comments of the files named in `code`.
 */
export interface Definition {
  /** Column / statistic name as it appears in summary.json, scores.parquet and the report tables. */
  name: string;
  text: string;
  /** Where it is computed. */
  code: string;
}

const HASH = "Ties are broken by a keyed hash of corpus_id (SHA-256 of the run's tie key and the id, blind to which snippet is the canonical), the order a production system would return.";

export const GLOSSARY: readonly Definition[] = [
  {
    name: 'exec@k',
    text: `1 when at least one of the top-k retrieved snippets passes all of the query's tests as executed by the oracle, else 0; mean over queries. ${HASH}`,
    code: 'core/metrics/exec_at_k.ts',
  },
  {
    name: 'execp@k',
    text: `Execution precision: the number of top-k snippets that pass the query's tests, divided by k (also when fewer than k were retrieved); mean over queries. ${HASH}`,
    code: 'core/metrics/execution_precision.ts',
  },
  {
    name: 'ndcg@k',
    text: `Canonical-ID nDCG@k: binary gain on the query's correct_corpus_ids, DCG@k = sum of rel_i / log2(i + 1) over ranks i <= k, over the ideal DCG (as trec_eval ndcg_cut_k); labels, not execution; mean over queries. ${HASH}`,
    code: 'core/metrics/ndcg.ts',
  },
  {
    name: 'rr_exec@10',
    text: `Reciprocal rank of the first top-10 snippet that passes the query's tests (0 when none passes); mean over queries (MRR@10 with execution as relevance). ${HASH}`,
    code: 'core/metrics/reciprocal_rank.ts',
  },
  {
    name: 'canonical_rank',
    text: `Rank of the best-ranked correct item in the full ranking (not only the stored top-100); mean over queries (lower is better). ${HASH}`,
    code: 'core/metrics/canonical_rank.ts',
  },
  {
    name: '<metric>_ta',
    text:
      'Tie-aware expected value of <metric> (McSherry & Najork 2008): the mean of the metric over every order of each group of exactly tied scores, ' +
      'all orders equally likely; equal to the hash-order value when no two scores in the ranking tie. The gap between the two is how much of a number is the tie-break.',
    code: 'core/metrics/tie_aware.ts',
  },
  {
    name: 'deception_rate',
    text: 'Share of queries (with at least one own distractor) where an own buggy distractor scores strictly above the canonical (the paper: "the canonical scores below at least one of its paired distractors"). Exact ties are not counted here; they are tie_rate.',
    code: 'core/deception/per_query.ts',
  },
  {
    name: 'tie_rate',
    text: 'Share of queries (with at least one own distractor) where no own distractor scores above the canonical but at least one has exactly its score: the ranking between them is the hash tie-break, a coin toss. deception_rate + tie_rate is the share where a distractor scores at least as high as the canonical.',
    code: 'core/deception/per_query.ts',
  },
  {
    name: 'rank1_own_share',
    text: "Of the queries whose rank-1 snippet (hash order) fails the query's tests, the share where that snippet is one of the query's own distractors; a ratio of sums (own-distractor misses / all rank-1 misses).",
    code: 'core/deception/per_query.ts',
  },
  {
    name: 'pref_accuracy',
    text: 'Over all (canonical, own distractor) pairs, the share where the canonical scores strictly higher, an exact tie counting 1/2 (an indifferent retriever scores 0.5); a ratio of sums over pairs, not a mean of per-query ratios.',
    code: 'core/deception/per_query.ts',
  },
  {
    name: 'bug_outscore:<bug_type>',
    text: "Of all distractors of that bug type, the share that score strictly above their own query's canonical; exact ties are bug_tie.",
    code: 'core/deception/per_query.ts',
  },
  {
    name: 'bug_tie:<bug_type>',
    text: "Of all distractors of that bug type, the share that have exactly their own query's canonical's score (ranked by the hash tie-break).",
    code: 'core/deception/per_query.ts',
  },
  {
    name: 'domain_deception:<domain>',
    text: 'deception_rate restricted to the queries of one domain (strict score, ties not counted).',
    code: 'core/report/statistics.ts',
  },
  {
    name: 'density_scaling',
    text:
      'exec@1_ta, execp@k_ta (k = 5; tie-aware, as the headline) and deception_rate when the pool holds at most L = 0..4 paired twins per query: of each query\'s own distractors a seeded uniform choice of min(L, its count) stays, the rest leave the pool for every query, and the stored rankings are re-read without them (no re-embedding). ' +
      'Each value is a mean over several seeded draws, with a query-level bootstrap interval over the per-query means; at L = 4 every query keeps all its twins when none has more than four (the paper\'s design), so that row repeats the headline values.',
    code: 'core/report/density.ts',
  },
  {
    name: 'rank_resolution',
    text:
      'For each adjacent pair in the sorted headline (upper, lower): upper - lower with its paired-bootstrap interval, resolved when the interval excludes 0; for exec@k also resolved when the Holm-adjusted exact McNemar p < alpha. ' +
      'queries_needed: the smallest query count at which the observed discordance (b and c scaled with the count, rounded) gives an unadjusted exact McNemar p < alpha for that pair alone; none when b = c.',
    code: 'core/report/resolution.ts',
  },
  {
    name: 'second_stage',
    text:
      'exec@1 after an oracle-free second stage: reciprocal rank fusion (k = 60) of the configuration\'s executed top 10 with BM25\'s order of the same snippets (a snippet outside BM25\'s stored top 100 gets no BM25 term; exact fused ties keep the first-stage order), against exec@10 as the ceiling any reranker of that list can reach. ' +
      'recovered: (fused exec@1 - exec@1) / (exec@10 - exec@1), a ratio of sums over queries; negative when fusion loses more rank-1 passes than it wins.',
    code: 'core/report/secondStage.ts',
  },
  {
    name: 'edit_position',
    text:
      'For a model with a token limit: the twins whose edit lies past it, decided exactly by the model\'s own tokenizer (the truncated token ids of twin and canonical are identical, so the embedder never saw the edit), their share of all twins, ' +
      'and deception_rate and tie_rate over all twins and over the seen twins only (a query with no seen twin leaves that denominator).',
    code: 'core/report/editPosition.ts',
  },
  {
    name: 'interval',
    text: 'Every [low, high] is a query-level bootstrap percentile interval: queries are resampled with replacement, the same resamples for every configuration and statistic, and a ratio statistic is recomputed as a ratio of sums per resample.',
    code: 'core/stats/engine.ts',
  },
  {
    name: 'significance',
    text:
      'exec@k (hash order): exact McNemar test on the discordant queries (b: A passes, B fails; c: the reverse), Holm-adjusted across all configuration pairs of that metric. ' +
      'Every compared metric: paired-bootstrap difference A - B with its interval. The tests use the hash-order values, never the _ta expectations.',
    code: 'core/stats/mcnemar.ts',
  },
];

/** name → definition text (what summary.json carries). */
export function definitionsByName(): Record<string, string> {
  return Object.fromEntries(GLOSSARY.map((d) => [d.name, d.text]));
}
