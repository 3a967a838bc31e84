import { estimateAll, type BootstrapSettings, type StatEstimate } from '../stats/engine.ts';
import type { ScoredQuery } from './types.ts';

/**
 * Deception by edit position: a twin whose edit lies past the model's token limit is, to the embedder, the
 * canonical itself (the truncated inputs are identical, so the vectors are too, up to batch padding noise). Such
 * a twin can only tie the canonical, or beat it by floating-point noise; counting it as a deception or a tie says
 * nothing about the model. `unseen` holds those twins (activities/scoring/editPosition.ts decides it exactly, by
 * comparing the model's truncated token ids of twin and canonical). This reports their share and deception_rate
 * and tie_rate with and without them (without: a query counts over its seen twins only; queries with no seen
 * twin leave the denominator). Same strict-score rule as core/deception/per_query.ts.
 */
export interface EditPositionRow {
  config_id: string;
  max_tokens: number;
  twins: number;
  unseen: number;
  deception_all: StatEstimate;
  deception_seen: StatEstimate;
  tie_all: StatEstimate;
  tie_seen: StatEstimate;
}

export function deceptionByEditPosition(
  config_id: string,
  queries: readonly ScoredQuery[],
  unseen: ReadonlySet<string>,
  maxTokens: number,
  settings: BootstrapSettings,
): EditPositionRow {
  const n = queries.length;
  const cols = { dAll: new Float64Array(n), tAll: new Float64Array(n), hasAll: new Float64Array(n), dSeen: new Float64Array(n), tSeen: new Float64Array(n), hasSeen: new Float64Array(n) };
  let twins = 0;
  let hidden = 0;
  queries.forEach((q, i) => {
    const canon = Math.max(...q.own.filter((o) => o.is_canonical).map((o) => o.score));
    const all = q.own.filter((o) => !o.is_canonical);
    const seen = all.filter((o) => !unseen.has(o.corpus_id));
    twins += all.length;
    hidden += all.length - seen.length;
    const mark = (list: typeof all, d: Float64Array, t: Float64Array, has: Float64Array) => {
      if (!list.length) return;
      has[i] = 1;
      const above = list.some((o) => o.score > canon);
      d[i] = above ? 1 : 0;
      t[i] = !above && list.some((o) => o.score === canon) ? 1 : 0;
    };
    mark(all, cols.dAll, cols.tAll, cols.hasAll);
    mark(seen, cols.dSeen, cols.tSeen, cols.hasSeen);
  });
  const est = new Map(
    estimateAll(
      n,
      [
        { key: 'dAll', num: cols.dAll, den: cols.hasAll },
        { key: 'dSeen', num: cols.dSeen, den: cols.hasSeen },
        { key: 'tAll', num: cols.tAll, den: cols.hasAll },
        { key: 'tSeen', num: cols.tSeen, den: cols.hasSeen },
      ],
      settings,
    ).estimates.map((e) => [e.key, e]),
  );
  return {
    config_id,
    max_tokens: maxTokens,
    twins,
    unseen: hidden,
    deception_all: est.get('dAll')!,
    deception_seen: est.get('dSeen')!,
    tie_all: est.get('tAll')!,
    tie_seen: est.get('tSeen')!,
  };
}
