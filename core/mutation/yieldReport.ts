import type { MutationCandidate, VerifiedCandidate } from './types.ts';

/** Counts for one slice of a run. `verified` = equivalent + crash_only + kept; candidates never verified are
 * those the round planner did not need (the task already had enough diverse mutants). */
export interface YieldCounts {
  candidates: number;
  verified: number;
  equivalent: number;
  crash_only: number;
  kept: number;
  selected: number;
  /** Verified candidates that hit the time limit on some test (a subset of crash_only and kept). */
  timed_out: number;
}

export interface YieldReport {
  total: YieldCounts;
  by_operator: Record<string, YieldCounts>;
  by_bug_type: Record<string, YieldCounts>;
  /** How many tasks ended with 0, 1, ... selected distractors (accepted or not by the gate). */
  selected_per_task: Record<string, number>;
}

export interface TaskYield {
  candidates: readonly MutationCandidate[];
  verified: readonly VerifiedCandidate[];
  selected: readonly VerifiedCandidate[];
}

const zero = (): YieldCounts => ({ candidates: 0, verified: 0, equivalent: 0, crash_only: 0, kept: 0, selected: 0, timed_out: 0 });

function sortedRecord(m: Map<string, YieldCounts>): Record<string, YieldCounts> {
  return Object.fromEntries([...m.keys()].sort().map((k) => [k, m.get(k)!]));
}

export function buildYieldReport(tasks: readonly TaskYield[]): YieldReport {
  const total = zero();
  const byOp = new Map<string, YieldCounts>();
  const byType = new Map<string, YieldCounts>();
  const perTask = new Map<number, number>();
  const bump = (c: MutationCandidate, f: (y: YieldCounts) => void) => {
    f(total);
    for (const [m, key] of [[byOp, c.operator], [byType, c.bug_type]] as const) {
      if (!m.has(key)) m.set(key, zero());
      f(m.get(key)!);
    }
  };
  for (const t of tasks) {
    for (const c of t.candidates) bump(c, (y) => y.candidates++);
    for (const v of t.verified) {
      bump(v.candidate, (y) => {
        y.verified++;
        y[v.verdict]++;
        if (v.timed_out) y.timed_out++;
      });
    }
    for (const v of t.selected) bump(v.candidate, (y) => y.selected++);
    perTask.set(t.selected.length, (perTask.get(t.selected.length) ?? 0) + 1);
  }
  const selected_per_task = Object.fromEntries([...perTask.keys()].sort((a, b) => a - b).map((k) => [String(k), perTask.get(k)!]));
  return { total, by_operator: sortedRecord(byOp), by_bug_type: sortedRecord(byType), selected_per_task };
}
