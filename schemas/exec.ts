import { z } from 'zod';

/**
 * A test suite in one of the two formats the oracle runs.
 * - `asserts`: each string is one test (usually one `assert` statement); `setup` runs after the code and
 *   before every test (MBPP's `test_setup_code`).
 * - `check`: one program that defines `check(candidate)`; it is called with the function named
 *   `entry_point`, and counts as a single test (HumanEval style).
 */
export const AssertSuite = z.object({
  kind: z.literal('asserts'),
  tests: z.array(z.string()).min(1),
  setup: z.string().optional(),
});
export const CheckSuite = z.object({
  kind: z.literal('check'),
  program: z.string().min(1),
  entry_point: z.string().min(1),
});
/** The languages whose tests are `calls` data (core/languages/functional.ts has a row for each). */
export const CALLS_LANGUAGES = ['javascript', 'typescript', 'go'] as const;
export const CallsLanguage = z.enum(CALLS_LANGUAGES);
export type CallsLanguage = z.infer<typeof CallsLanguage>;

/**
 * One call of a `calls` suite: the arguments (one JSON value per parameter) and either the expected return value
 * (several Go results: a JSON array; JS `undefined`: null) or the error it must raise (`throws`: a JS/TS
 * constructor name such as `RangeError`; Go: `error` for a non-nil last `error` result, `panic` for a panic).
 * `approx` is an absolute tolerance for every number in `expected`; `mutates` names the argument whose final
 * state is compared instead of the return value.
 */
export const Call = z
  .object({
    args: z.array(z.unknown()),
    expected: z.unknown().optional(),
    throws: z.string().min(1).optional(),
    approx: z.number().nonnegative().optional(),
    mutates: z.number().int().nonnegative().optional(),
  })
  .strict()
  .refine((c) => (c.throws === undefined) !== (!('expected' in c)), { message: 'a call has exactly one of expected and throws' })
  .refine((c) => c.mutates === undefined || c.mutates < c.args.length, { message: 'mutates names an argument the call does not pass' });
export type Call = z.infer<typeof Call>;

/**
 * `calls` (JavaScript, TypeScript, Go): the tests are data the judge compares, never code (docs/oracle.md): the
 * child gets the arguments only and returns plain-data results; `expected` never enters its process. `language`
 * and `entry_point` come from the task (schemas/task.ts fills them from `language` and `function_name`).
 */
export const CallsSuite = z.object({
  kind: z.literal('calls'),
  language: z.enum(CALLS_LANGUAGES, { message: 'a calls suite needs the task\'s language: javascript, typescript or go' }),
  entry_point: z.string().min(1),
  calls: z.array(Call).min(1),
});
export type CallsSuite = z.infer<typeof CallsSuite>;

export const TestSuite = z.discriminatedUnion('kind', [AssertSuite, CheckSuite, CallsSuite]);
export type TestSuite = z.infer<typeof TestSuite>;

/** The suite's test sources, one per test the oracle reports (a `check` program is a single test). */
export function suiteSources(suite: TestSuite): string[] {
  if (suite.kind === 'calls') return suite.calls.map((c) => JSON.stringify(c));
  return suite.kind === 'asserts' ? suite.tests : [suite.program];
}

/**
 * Per-test outcome, as the paper categorises it:
 * `pass`, `FAIL` (bare AssertionError), `FAIL: <message>`, `TIMEOUT`, `ERROR: <ExceptionType>`.
 * A child that dies mid-suite gives `ERROR: Exited(<code>)` or `ERROR: Signal(<NAME>)` for the test it was in
 * and every test after it.
 */
export type TestOutcome = string;

export const ExecResult = z.object({
  outcomes: z.array(z.string()),
  wall_ms: z.number(),
  /**
   * CPU time (user + system) of the child that ran the suite: unlike wall time it does not grow with the
   * machine's load, so mutants' limits derive from it (core/mutation/timeLimit.ts). Absent where nothing ran.
   */
  cpu_ms: z.number().optional(),
  /** true when every test passed. */
  passed: z.boolean(),
  /** true when the result came from the execution cache. */
  cached: z.boolean().default(false),
  /**
   * Set (a one-line reason) when the outcomes were caused by infrastructure, not by the code: a child killed
   * from outside, a dead fork server, a garbage frame, an unreadable cache row. Such a result is never
   * cached, never counted as the code's failure and never scored: callers retry it, then stop loudly.
   */
  infra_error: z.string().optional(),
  /**
   * How each outcome was judged, parallel to `outcomes`: `parent` when the sandbox's judge compared a plain-data
   * value the code returned (the code never saw the expected value), `child` when the test ran whole next to
   * the code (loops, helper functions, check programs kept whole). Also on results from the cache (its `judged`
   * column); absent only on rows stored before that column existed.
   */
  judged: z.array(z.enum(['parent', 'child'])).optional(),
});
export type ExecResult = z.infer<typeof ExecResult>;

export interface ExecRequest {
  code: string;
  suite: TestSuite;
  /**
   * Per-suite time limit in seconds (default 5): time the code spends computing or blocked, not time it waits
   * for a CPU on a loaded machine (infra/runner/sandbox_zygote.py), so verdicts near it do not follow the load.
   */
  timeout_s?: number;
  /**
   * Who pays if this runs (a pipeline run's directory): recorded with the verdict, in the same transaction, as
   * one row of the cache's payments table (activities/exec/cache.ts). Not part of any key.
   */
  paid_by?: string;
}

export function isBareFailure(outcome: TestOutcome): boolean {
  return outcome === 'FAIL' || outcome.startsWith('FAIL:');
}
