/** Bounds the schema stage checks. The paper's own: exactly 4 distractors and 7–10 tests. */
export interface GateProfile {
  name: string;
  distractors: { min: number; max: number };
  tests: { min: number; max: number };
  /** Only the paper's six single-edit bug types are accepted. */
  restrictBugTypes: boolean;
  /** Stage 4: the distractors must not all fail the identical subset of tests... */
  distinctFailureSubsets: boolean;
  /**
   * ...applied only to suites of at least this many tests; unset: to every suite (the paper's rule, which a
   * one-test suite can never meet with two or more distractors).
   */
  distinctSubsetsMinTests?: number;
  /** Stage 5: function names unique across the batch (the paper's registry rule). */
  uniqueFunctionNames: boolean;
  /**
   * Parent-judged tests a task needs: tests of the form `assert <expr> <op> <literal>` whose verdict the sandbox's
   * judge decides from a plain-data value, out of the code's reach (ExecResult.judged). Tests judged in the child
   * (several statements, pytest.raises, computed expected values, check programs) can be faked by the code.
   */
  parentJudgedTests: { min: number };
}

export const PROFILES = {
  /** Five of the paper's 7–10 tests must be parent-judged, leaving room for exception tests (pytest.raises). */
  default: { name: 'default', distractors: { min: 4, max: 4 }, tests: { min: 7, max: 10 }, restrictBugTypes: true, distinctFailureSubsets: true, uniqueFunctionNames: true, parentJudgedTests: { min: 5 } },
  /**
   * MBPP ships 3 asserts per task, so most single-edit mutants fail all three and "not all fail the identical
   * subset" would leave most tasks one distractor; and 55 MBPP tasks reuse another task's function name. Both
   * rules are relaxed here. Scoring is unaffected: every retrieved snippet is executed against the query's
   * tests, and the cross-canonical sweep still reports any snippet that passes another query's tests.
   */
  // parentJudgedTests 0: MBPP tasks 436 and 596 have no parent-judged test (`assert f(x) == -1,-6` is a message,
  // `sys.getsizeof(...)` a computed expectation); any minimum above 0 would drop them from the accepted set.
  mbpp: { name: 'mbpp', distractors: { min: 1, max: 4 }, tests: { min: 3, max: 3 }, restrictBugTypes: true, distinctFailureSubsets: false, uniqueFunctionNames: false, parentJudgedTests: { min: 0 } },
  /**
   * Suites of any size, e.g. check(candidate) programs split into one test per assert (or kept whole: one
   * test). One to four distractors; the distinct-subset rule only where a suite has 5 or more tests: with
   * fewer, single-edit mutants mostly fail every test (MBPP's 3 asserts, above), so the rule would cut twins
   * instead of showing that they differ. parentJudgedTests 0: a program kept whole is one child-judged test.
   * Function names may repeat: public check-program benchmarks have different tasks named `add`, `solve`,
   * `sort_array` (six were rejected for it alone, issue 38); scoring runs every retrieved snippet that defines the
   * query's function against the query's tests, whichever task it came from.
   */
  check: { name: 'check', distractors: { min: 1, max: 4 }, tests: { min: 1, max: 100 }, restrictBugTypes: true, distinctFailureSubsets: true, distinctSubsetsMinTests: 5, uniqueFunctionNames: false, parentJudgedTests: { min: 0 } },
  /** Tasks before distractors exist (curated sources, registries): the gate's canonical stages only. */
  canonical: { name: 'canonical', distractors: { min: 0, max: 4 }, tests: { min: 1, max: 100 }, restrictBugTypes: true, distinctFailureSubsets: true, uniqueFunctionNames: true, parentJudgedTests: { min: 1 } },
} as const satisfies Record<string, GateProfile>;

/** Does the distinct-failing-subset rule apply to a suite of `tests` tests under this profile? */
export function distinctSubsetsApply(profile: GateProfile, tests: number): boolean {
  return profile.distinctFailureSubsets && tests >= (profile.distinctSubsetsMinTests ?? 0);
}

export function getProfile(name: string): GateProfile {
  const p = (PROFILES as Record<string, GateProfile>)[name];
  if (!p) throw new Error(`unknown gate profile "${name}" (known: ${Object.keys(PROFILES).join(', ')})`);
  return p;
}
