import type { BugType } from '../../schemas/task.ts';

/** One mechanical single-edit candidate, as `infra/python/mutate.py` enumerates it (byte offsets, UTF-8). */
export interface MutationCandidate {
  operator: string;
  bug_type: BugType;
  /** The edited span of the canonical: [start, end) in UTF-8 bytes, and its 1-based line. */
  start: number;
  end: number;
  line: number;
  /** Canonical text of the span and what replaced it. */
  original: string;
  replacement: string;
  /** The whole mutant: the canonical with only [start, end) replaced. */
  code: string;
  /** Inside a `while` loop: the likeliest place for a mutant to loop forever, so it is tried last. */
  in_while: boolean;
}

/**
 * What verification made of a candidate:
 * - `kept`: fails at least one test and at least one of them by a bare assertion failure (wrong output);
 * - `equivalent`: passes every test (indistinguishable by this suite);
 * - `crash_only`: fails, but only by exceptions or timeouts.
 */
export type Verdict = 'kept' | 'equivalent' | 'crash_only';

export interface VerifiedCandidate {
  candidate: MutationCandidate;
  verdict: Verdict;
  /** Indices of the tests whose outcome is not `pass`. */
  failing_tests: number[];
  /** Some test hit the time limit (timeouts are the dearest verifications; the yield report counts them). */
  timed_out?: boolean;
}
