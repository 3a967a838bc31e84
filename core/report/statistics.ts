import { BUG_TYPES } from '../../schemas/task.ts';
import { BINARY_METRICS, HASH_ORDER_METRICS, METRICS } from '../metrics/per_query.ts';
import { estimateAll, type BootstrapSettings, type RatioStat, type StatEstimate } from '../stats/engine.ts';
import { pairwiseComparisons, type PairwiseRow } from '../stats/pairwise.ts';
import { stablePairwise, type StableRow } from '../stats/stablePairwise.ts';
import type { ConfigScores } from './types.ts';

/**
 * Every number the report prints, with its query-level bootstrap interval, and every pairwise comparison.
 * Statistic names (per configuration; each one's definition, tie rule included, is in core/report/glossary.ts
 * and docs/metrics.md):
 *   METRICS (exec@k, execp@k, ndcg@k, rr_exec@10, canonical_rank, and their tie-aware `_ta` twins)  mean over all queries
 *   deception_rate           share of queries (with distractors) where an own distractor scores strictly above the canonical
 *   tie_rate                 share of queries (with distractors) where none scores above but one scores exactly the canonical's score
 *   rank1_own_share          of the rank-1 misses (hash order), the share that are the query's own distractors: a ratio of sums
 *   pref_accuracy            canonical-vs-distractor preference accuracy over all pairs (ties 1/2): a ratio of sums
 *   bug_outscore:<bug_type>  share of that bug type's distractors that score strictly above their canonical
 *   bug_tie:<bug_type>       share of that bug type's distractors that score exactly their canonical's score
 *   domain_deception:<d>     deception_rate restricted to one domain
 *   lang:<l>:<m>             for a benchmark with a non-Python language: LANGUAGE_METRICS restricted to language l
 *                            (absent for Python-only benchmarks, whose results keep their bytes)
 */
export const LANGUAGE_METRICS = ['exec@1', 'exec@10', 'ndcg@10', 'deception_rate'] as const;
export const UNKNOWN_DOMAIN = 'unknown';
/**
 * Compared pairwise (paired bootstrap for all, McNemar for the binary ones). Hash-order values only: McNemar
 * needs 0/1 outcomes, and one family of tests keeps the Holm correction meaningful.
 */
export const PAIRWISE_METRICS: readonly string[] = [...HASH_ORDER_METRICS, 'deception_rate', 'pref_accuracy'];
/**
 * Compared on settled outcomes only (core/stats/stablePairwise.ts): the headline's order, winner and letters
 * are decided on these, so no winner rests on the tie-break's toss.
 */
export const STABLE_METRICS: readonly string[] = ['exec@1_ta', 'exec@10_ta'];

export interface StatisticsResult {
  settings: BootstrapSettings;
  n_queries: number;
  configs: string[];
  bug_types: string[];
  domains: string[];
  /** Languages of the queries, sorted; absent when every query is Python. */
  languages?: string[];
  /** estimates[config][stat name]. */
  estimates: Record<string, Record<string, StatEstimate>>;
  pairwise: PairwiseRow[];
  /** Tie-stable comparisons of STABLE_METRICS (absent in results built before issue 28: no winner is then declared). */
  stable?: StableRow[];
}

export interface StatSpecs {
  n: number;
  stats: RatioStat[];
  /** Per-query vectors by stat key (for McNemar on the binary metrics). */
  binary: Map<string, Float64Array>;
  bugTypes: string[];
  domains: string[];
  languages?: string[];
}

export const statKey = (config: string, stat: string) => `${config}\u0000${stat}`;

/** Every ratio statistic of every configuration, as num/den columns over the shared query order. */
export function buildStatSpecs(configs: readonly ConfigScores[]): StatSpecs {
  if (configs.length === 0) throw new Error('statistics: no configurations to summarise');
  const ref = configs[0].queries;
  const n = ref.length;
  for (const c of configs) {
    if (c.queries.length !== n || c.queries.some((q, i) => q.query_id !== ref[i].query_id)) {
      throw new Error(`statistics: configuration ${c.config_id} does not cover the same queries in the same order as ${configs[0].config_id}`);
    }
  }
  const domainOf = ref.map((q) => q.domain ?? UNKNOWN_DOMAIN);
  const domains = [...new Set(domainOf)].sort();
  const languageOf = ref.map((q) => q.language ?? 'python');
  const languages = languageOf.some((l) => l !== 'python') ? [...new Set(languageOf)].sort() : undefined;
  const seenBugs = new Set<string>();
  for (const q of ref) for (const b of Object.keys(q.deception.by_bug_type)) seenBugs.add(b);
  // Known bug types first in the paper's order, then any imported label alphabetically.
  const bugTypes = [...BUG_TYPES.filter((b) => seenBugs.has(b)), ...[...seenBugs].filter((b) => !(BUG_TYPES as readonly string[]).includes(b)).sort()];

  // Denominators that depend only on the benchmark (shared by every configuration: one column each).
  // A plain loop: Float64Array.from({ length }, f) goes through the iterator protocol and is ~10× slower.
  const vec = (f: (i: number) => number) => {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = f(i);
    return v;
  };
  const hasDistractor = vec((i) => ref[i].deception.has_distractor);
  const prefPairs = vec((i) => ref[i].deception.pref_pairs);
  const bugTotal = new Map(bugTypes.map((b) => [b, vec((i) => ref[i].deception.by_bug_type[b]?.total ?? 0)]));
  const inDomain = new Map(domains.map((d) => [d, vec((i) => (domainOf[i] === d ? 1 : 0))]));
  const distractorInDomain = new Map(domains.map((d) => [d, vec((i) => (domainOf[i] === d ? hasDistractor[i] : 0))]));
  const inLanguage = new Map((languages ?? []).map((l) => [l, vec((i) => (languageOf[i] === l ? 1 : 0))]));
  const distractorInLanguage = new Map((languages ?? []).map((l) => [l, vec((i) => (languageOf[i] === l ? hasDistractor[i] : 0))]));

  const key = statKey;
  const stats: RatioStat[] = [];
  const binary = new Map<string, Float64Array>();
  for (const c of configs) {
    const qs = c.queries;
    const cvec = vec;
    for (const m of METRICS) {
      const v = cvec((i) => qs[i].metrics[m]);
      stats.push({ key: key(c.config_id, m), num: v, den: null });
      binary.set(key(c.config_id, m), v);
    }
    const deceived = cvec((i) => qs[i].deception.deceived);
    stats.push({ key: key(c.config_id, 'deception_rate'), num: deceived, den: hasDistractor });
    stats.push({ key: key(c.config_id, 'tie_rate'), num: cvec((i) => qs[i].deception.tied), den: hasDistractor });
    stats.push({
      key: key(c.config_id, 'rank1_own_share'),
      num: cvec((i) => qs[i].deception.rank1_own_distractor),
      den: cvec((i) => qs[i].deception.rank1_miss),
    });
    stats.push({ key: key(c.config_id, 'pref_accuracy'), num: cvec((i) => qs[i].deception.pref_wins), den: prefPairs });
    for (const b of bugTypes) {
      stats.push({ key: key(c.config_id, `bug_outscore:${b}`), num: cvec((i) => qs[i].deception.by_bug_type[b]?.outscores ?? 0), den: bugTotal.get(b)! });
      stats.push({ key: key(c.config_id, `bug_tie:${b}`), num: cvec((i) => qs[i].deception.by_bug_type[b]?.ties ?? 0), den: bugTotal.get(b)! });
    }
    for (const d of domains) {
      const ind = inDomain.get(d)!;
      stats.push({ key: key(c.config_id, `domain_deception:${d}`), num: cvec((i) => deceived[i] * ind[i]), den: distractorInDomain.get(d)! });
    }
    // Each language's block: the same means over its own queries (the pooled ones are the plain names above).
    for (const l of languages ?? []) {
      const ind = inLanguage.get(l)!;
      for (const m of LANGUAGE_METRICS) {
        if (m === 'deception_rate') stats.push({ key: key(c.config_id, `lang:${l}:${m}`), num: cvec((i) => deceived[i] * ind[i]), den: distractorInLanguage.get(l)! });
        else stats.push({ key: key(c.config_id, `lang:${l}:${m}`), num: cvec((i) => qs[i].metrics[m] * ind[i]), den: ind });
      }
    }
  }

  return { n, stats, binary, bugTypes, domains, ...(languages ? { languages } : {}) };
}

/** `phases`, when given, receives the milliseconds spent in each stage (for bench/stats.ts). */
export function computeStatistics(
  configs: readonly ConfigScores[],
  settings: BootstrapSettings,
  phases?: (name: string, ms: number) => void,
): StatisticsResult {
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    phases?.(name, now - t);
    t = now;
  };
  const { n, stats, binary, bugTypes, domains, languages } = buildStatSpecs(configs);
  lap('columns');
  const key = statKey;
  const { estimates, replicates } = estimateAll(n, stats, settings);
  lap('bootstrap + intervals');
  const byConfig: Record<string, Record<string, StatEstimate>> = {};
  for (const e of estimates) {
    const [config, stat] = e.key.split('\u0000');
    (byConfig[config] ??= {})[stat] = { ...e, key: stat };
  }
  const configIds = configs.map((c) => c.config_id);
  const pairwise = pairwiseComparisons(configIds, PAIRWISE_METRICS, new Set(BINARY_METRICS), {
    estimate: (c, m) => byConfig[c][m].estimate,
    replicates: (c, m) => replicates.get(key(c, m))!,
    binary: (c, m) => binary.get(key(c, m))!,
  }, settings.alpha);
  const stable = stablePairwise(configIds, STABLE_METRICS, {
    estimate: (c, m) => byConfig[c][m].estimate,
    replicates: (c, m) => replicates.get(key(c, m))!,
    binary: (c, m) => binary.get(key(c, m))!,
  }, settings.alpha);
  lap('pairwise');
  return { settings, n_queries: n, configs: configIds, bug_types: bugTypes, domains, ...(languages ? { languages } : {}), estimates: byConfig, pairwise, stable };
}
