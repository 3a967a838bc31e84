import { distinctBugTypes, selectDistractors } from './select.ts';
import type { MutationCandidate, VerifiedCandidate } from './types.ts';

/** Verification state of one task: candidates are verified a few at a time, in priority order. */
export interface TaskProgress {
  candidates: readonly MutationCandidate[];
  /** Indices into `candidates`, in verification order. */
  order: readonly number[];
  tried: Set<number>;
  /** Every verified candidate, in the order of the planned rounds (so results never depend on timing). */
  verified: VerifiedCandidate[];
  /** Tests in the task's suite (when known): with one test, the distinct-subset rule allows one distractor. */
  tests?: number;
}

export interface RoundLimits {
  /** Distractors wanted per task (the profile's maximum). */
  max: number;
  /** Candidates verified per task per round. */
  roundSize: number;
  /** Stop after this many verified candidates per task, found or not (bounds the cost of hopeless tasks). */
  cap: number;
  /** The gate's rule that the chosen distractors must not all fail the identical subset (profile setting). */
  distinctSubsets?: boolean;
}

export const kept = (p: TaskProgress) => p.verified.filter((v) => v.verdict === 'kept');

/**
 * True when more verification cannot improve the selection: as many distractors as the task can hold are
 * chosen (`max`, see `attainable`) and they cover as many bug types as that many can (given the types the task
 * can still offer, kept or untried), or nothing is left to try, or the cap is hit.
 */
export function isDone(p: TaskProgress, limits: RoundLimits): boolean {
  if (exhausted(p, limits)) return true;
  const k = kept(p);
  return selectionComplete(p, limits, k, selectDistractors(k, limits.max, limits.distinctSubsets));
}

const exhausted = (p: TaskProgress, limits: RoundLimits) => p.tried.size >= Math.min(limits.cap, p.candidates.length);

/**
 * How many distractors the selection can ever hold: `max`, except that with the distinct-subset rule a
 * one-test suite has a single possible failing subset, so one distractor is all it can get (verifying on to
 * the cap would buy nothing).
 */
export function attainable(p: TaskProgress, limits: RoundLimits): number {
  return limits.distinctSubsets && p.tests === 1 ? Math.min(1, limits.max) : limits.max;
}

/** Takes the kept list and its selection from the caller, so nextRound computes each once per round. */
function selectionComplete(p: TaskProgress, limits: RoundLimits, keptNow: readonly VerifiedCandidate[], sel: readonly VerifiedCandidate[]): boolean {
  const want = attainable(p, limits);
  if (sel.length < want) return false;
  return distinctBugTypes(sel) >= Math.min(want, availableTypes(p, keptNow).size);
}

function availableTypes(p: TaskProgress, keptNow: readonly VerifiedCandidate[]): Set<string> {
  const types = new Set(keptNow.map((v) => v.candidate.bug_type));
  p.order.forEach((i) => {
    if (!p.tried.has(i)) types.add(p.candidates[i].bug_type);
  });
  return types;
}

/**
 * The next candidates to verify for one task ([] when done): first the next untried candidate of each bug type
 * not yet among the kept, then (only while fewer than `max` are selectable) more in priority order.
 */
export function nextRound(p: TaskProgress, limits: RoundLimits): number[] {
  if (exhausted(p, limits)) return [];
  const keptNow = kept(p);
  const sel = selectDistractors(keptNow, limits.max, limits.distinctSubsets);
  if (selectionComplete(p, limits, keptNow, sel)) return [];
  const budget = Math.min(limits.roundSize, limits.cap - p.tried.size);
  const have = new Set(keptNow.map((v) => v.candidate.bug_type));
  const picked: number[] = [];
  const seenType = new Set<string>();
  for (const i of p.order) {
    if (picked.length >= budget) break;
    const t = p.candidates[i].bug_type;
    if (!p.tried.has(i) && !have.has(t) && !seenType.has(t)) {
      picked.push(i);
      seenType.add(t);
    }
  }
  // Fewer than `max` selectable, or the types still wanted are all represented among the kept but the
  // selection had to give one up (identical failing subsets): go on in priority order.
  if (picked.length === 0 || sel.length < attainable(p, limits)) {
    for (const i of p.order) {
      if (picked.length >= budget) break;
      if (!p.tried.has(i) && !picked.includes(i)) picked.push(i);
    }
  }
  // Keep verification order within the round, so `verified` is in priority order.
  const rank = new Map(p.order.map((i, r) => [i, r]));
  return picked.sort((a, b) => rank.get(a)! - rank.get(b)!);
}
