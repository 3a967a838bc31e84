import { isBareFailure } from '../../schemas/exec.ts';
import { failingSubset } from '../gate/rules.ts';
import type { Verdict } from './types.ts';

/**
 * The paper's distractor rule applied to one mutant's per-test outcomes: it must fail a test, and at least one
 * failure must be wrong output (a bare assertion failure) rather than only a crash or a timeout.
 */
export function classifyOutcomes(outcomes: readonly string[]): { verdict: Verdict; failing_tests: number[]; timed_out?: boolean } {
  const failing_tests = failingSubset(outcomes);
  if (failing_tests.length === 0) return { verdict: 'equivalent', failing_tests };
  const verdict = outcomes.some(isBareFailure) ? 'kept' : 'crash_only';
  return outcomes.includes('TIMEOUT') ? { verdict, failing_tests, timed_out: true } : { verdict, failing_tests };
}
