import type { VerifiedCandidate } from './types.ts';

const subsetKey = (v: VerifiedCandidate) => v.failing_tests.join(',');

/**
 * Picks up to `max` distractors from the kept mutants (given in verification order):
 * 1. one per distinct bug type, in order of first appearance;
 * 2. remaining slots: mutants whose failing-test subset is not yet among the chosen, then any;
 * 3. when `distinctSubsets` (the gate profile's rule), two or more chosen must not all fail the identical
 *    subset: when they do, swap the last chosen for a kept mutant with another subset, or if none exists keep
 *    just one.
 * Deterministic: depends only on the order given.
 */
export function selectDistractors(kept: readonly VerifiedCandidate[], max: number, distinctSubsets = true): VerifiedCandidate[] {
  const chosen: VerifiedCandidate[] = [];
  const taken = new Set<VerifiedCandidate>();
  const take = (v: VerifiedCandidate) => {
    chosen.push(v);
    taken.add(v);
  };
  const types = new Set<string>();
  for (const v of kept) {
    if (chosen.length >= max) break;
    if (!types.has(v.candidate.bug_type)) {
      types.add(v.candidate.bug_type);
      take(v);
    }
  }
  const subsets = () => new Set(chosen.map(subsetKey));
  for (const v of kept) {
    if (chosen.length >= max) break;
    if (!taken.has(v) && !subsets().has(subsetKey(v))) take(v);
  }
  for (const v of kept) {
    if (chosen.length >= max) break;
    if (!taken.has(v)) take(v);
  }
  if (distinctSubsets && chosen.length >= 2 && subsets().size === 1) {
    const other = kept.find((v) => !taken.has(v) && subsetKey(v) !== subsetKey(chosen[0]));
    if (other) chosen[chosen.length - 1] = other;
    else chosen.splice(1);
  }
  return chosen;
}

/** Distinct bug types among a selection. */
export function distinctBugTypes(selection: readonly VerifiedCandidate[]): number {
  return new Set(selection.map((v) => v.candidate.bug_type)).size;
}
