import type { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import { unifiedDiff } from './diff.ts';
import type { ScoredQuery } from './types.ts';

/**
 * The compact data behind the report's per-query drill-down, embedded as JSON in report.html:
 * corpus snippets once (by index), each query with its canonical-vs-distractor diffs, per configuration the
 * executed top-10 as flat [corpusIndex, passed(0/1), score, tied(0/1)] quadruples (tied: the score exactly
 * equals a neighbour's, so the order between them is the hash tie-break), and the per-test outcomes of every
 * shown (query, snippet) pair once (the verdict depends on the pair, not on the configuration).
 */
export interface DrilldownData {
  configs: string[];
  corpus: { id: string; code: string }[];
  queries: {
    id: string;
    text: string;
    fn: string;
    domain: string | null;
    canonical: number[];
    distractors: { c: number; bug: string | null; diff: string }[];
  }[];
  /** hits[config][query] = [c0, pass0, score0, tied0, c1, ...]. */
  hits: number[][][];
  /** outcomes[`${queryIndex}:${corpusIndex}`] = per-test outcomes (`pass`, `FAIL: ..`, `not_defined`, ...). */
  outcomes: Record<string, string[]>;
}

export function buildDrilldown(
  queries: readonly QueryRecord[],
  corpus: readonly CorpusRecord[],
  configs: readonly { config_id: string; queries: readonly ScoredQuery[] }[],
): DrilldownData {
  const used = new Map<string, number>();
  const out: DrilldownData['corpus'] = [];
  const byId = new Map(corpus.map((c) => [c.corpus_id, c]));
  const idx = (id: string): number => {
    let i = used.get(id);
    if (i === undefined) {
      i = out.length;
      used.set(id, i);
      out.push({ id, code: byId.get(id)?.code ?? '' });
    }
    return i;
  };
  const qs = queries.map((q) => {
    const canon = byId.get(q.correct_corpus_ids[0]);
    return {
      id: q.query_id,
      text: q.query,
      fn: q.function_name,
      domain: q.domain,
      canonical: q.correct_corpus_ids.map(idx),
      distractors: q.distractor_corpus_ids.map((d) => ({
        c: idx(d),
        bug: byId.get(d)?.bug_type ?? null,
        diff: canon ? unifiedDiff(canon.code, byId.get(d)?.code ?? '') : '',
      })),
    };
  });
  const outcomes: Record<string, string[]> = {};
  const hits = configs.map((c) =>
    c.queries.map((q, qi) =>
      q.hits.flatMap((h, i) => {
        const ci = idx(h.corpus_id);
        outcomes[`${qi}:${ci}`] ??= h.outcomes;
        // Exact equality on the stored score (the drill-down shows it rounded): a tie with either neighbour, or
        // with the item just below the shown top-10 (the tie-aware metrics' closure says one exists).
        const next = q.hits[i + 1]?.score ?? (i === q.hits.length - 1 && (q.ties?.closure ?? 0) > q.hits.length ? h.score : undefined);
        const tied = q.hits[i - 1]?.score === h.score || next === h.score ? 1 : 0;
        return [ci, h.passed ? 1 : 0, Math.round(h.score * 1e4) / 1e4, tied];
      }),
    ),
  );
  return { configs: configs.map((c) => c.config_id), corpus: out, queries: qs, hits, outcomes };
}
