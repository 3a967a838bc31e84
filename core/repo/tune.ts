import type { CaseResult } from '../../schemas/repoIndex.ts';
import { summarise } from './aggregate.ts';

/**
 * Tune configuration weights on the train split, report on the held-out split (the guide: "if you tune and
 * report on the same small set, the score describes your tuning effort"). Candidates are tried in order;
 * the best by train pass rate, then train MRR, then the earlier candidate wins (deterministic).
 */
export interface TuneOutcome<W> {
  best: W;
  bestIndex: number;
  train: ReturnType<typeof summarise>;
  test: ReturnType<typeof summarise>;
  tried: { weights: W; train_pass_rate: number; train_mrr: number }[];
}

export async function tuneOnTrain<W>(candidates: readonly W[], evaluate: (w: W) => Promise<readonly CaseResult[]>): Promise<TuneOutcome<W>> {
  if (candidates.length === 0) throw new Error('tune: no candidate weights');
  let bestIndex = -1;
  let bestKey: [number, number] = [-1, -1];
  let bestResults: readonly CaseResult[] = [];
  const tried: TuneOutcome<W>['tried'] = [];
  for (let i = 0; i < candidates.length; i++) {
    const results = await evaluate(candidates[i]);
    const train = summarise(results.filter((r) => r.split === 'train'));
    tried.push({ weights: candidates[i], train_pass_rate: train.pass_rate, train_mrr: train.mrr });
    if (train.pass_rate > bestKey[0] || (train.pass_rate === bestKey[0] && train.mrr > bestKey[1])) {
      bestKey = [train.pass_rate, train.mrr];
      bestIndex = i;
      bestResults = results;
    }
  }
  return {
    best: candidates[bestIndex],
    bestIndex,
    train: summarise(bestResults.filter((r) => r.split === 'train')),
    test: summarise(bestResults.filter((r) => r.split === 'test')),
    tried,
  };
}

/** The cartesian grid of the given per-key values, keys in the order given. */
export function grid<K extends string>(values: Record<K, readonly number[]>): Record<K, number>[] {
  let out: Record<string, number>[] = [{}];
  for (const [k, vs] of Object.entries(values) as [K, readonly number[]][]) out = out.flatMap((o) => vs.map((v) => ({ ...o, [k]: v })));
  return out as Record<K, number>[];
}
