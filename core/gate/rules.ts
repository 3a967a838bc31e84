import type { Task } from '../../schemas/task.ts';
import { BUG_TYPES } from '../../schemas/task.ts';
import { isBareFailure } from '../../schemas/exec.ts';
import type { GateProfile } from './profiles.ts';

/** The paper's five sequential gates, in order. */
export const STAGES = ['schema', 'ast_semantics', 'canonical_execution', 'distractor_execution', 'corpus_integrity'] as const;
export type StageName = (typeof STAGES)[number];

export interface GateIssue {
  stage: StageName;
  /** Stable reason code, e.g. CANONICAL_FAILS. */
  code: string;
  /** Where in the record, e.g. `distractors[2].code`. */
  field?: string;
  message: string;
}

export interface CodeFactsLike {
  parses: boolean;
  syntax_error: string | null;
  top_level_functions: string[];
}
export interface TestFactLike {
  parses: boolean;
  syntax_error: string | null;
  calls_target: boolean;
  statements: number;
  /** The sandbox's judge runs this test itself (infra/runner/sandbox_judge.py; every test that parses, since issue 36): the expected value never enters the candidate's process. */
  parent_judged: boolean;
  /** `assert <always true>` alone (infra/python/ast_facts.py): no candidate can fail it. The build drops such tests. */
  no_op?: boolean;
}

const issue = (stage: StageName, code: string, message: string, field?: string): GateIssue => ({ stage, code, message, ...(field ? { field } : {}) });

/** Stage 1: counts and labels within the profile's bounds (field presence is the zod schema's job). */
export function schemaStage(task: Task, profile: GateProfile): GateIssue[] {
  const out: GateIssue[] = [];
  const nd = task.distractors.length;
  if (nd < profile.distractors.min || nd > profile.distractors.max) {
    const want = profile.distractors.min === profile.distractors.max ? `exactly ${profile.distractors.min}` : `${profile.distractors.min}–${profile.distractors.max}`;
    out.push(issue('schema', 'DISTRACTOR_COUNT', `${nd} distractors, profile "${profile.name}" wants ${want}`, 'distractors'));
  }
  if (task.tests.kind !== 'check') {
    const nt = task.tests.kind === 'asserts' ? task.tests.tests.length : task.tests.calls.length;
    if (nt < profile.tests.min || nt > profile.tests.max) {
      out.push(issue('schema', 'TEST_COUNT', `${nt} tests, profile "${profile.name}" wants ${profile.tests.min}–${profile.tests.max}`, task.tests.kind === 'asserts' ? 'tests.tests' : 'tests.calls'));
    }
  }
  if (profile.restrictBugTypes) {
    task.distractors.forEach((d, i) => {
      if (!(BUG_TYPES as readonly string[]).includes(d.bug_type)) {
        out.push(issue('schema', 'BUG_TYPE_NOT_ALLOWED', `bug_type "${d.bug_type}" is not one of ${BUG_TYPES.join(', ')}`, `distractors[${i}].bug_type`));
      }
    });
  }
  return out;
}

/**
 * Stage 2: canonical and every distractor define the target function; every test calls it; at least
 * `profile.parentJudgedTests.min` tests are judged outside the candidate's process (a suite judged only by
 * the child leaves the verdict to code that can fake it).
 */
export function astStage(
  task: Task,
  canonical: CodeFactsLike,
  distractors: CodeFactsLike[],
  tests: TestFactLike[],
  profile: Pick<GateProfile, 'name' | 'parentJudgedTests'>,
): { issues: GateIssue[]; multiStatementTests: number } {
  const out: GateIssue[] = [];
  const fn = task.function_name;
  const defines = (facts: CodeFactsLike, field: string, who: string) => {
    if (!facts.parses) out.push(issue('ast_semantics', `${who}_SYNTAX`, `does not parse: ${facts.syntax_error}`, field));
    else if (!facts.top_level_functions.includes(fn)) out.push(issue('ast_semantics', `${who}_MISSING_FUNCTION`, `does not define ${fn}() at module level`, field));
  };
  defines(canonical, 'canonical', 'CANONICAL');
  // A distractor that does not parse is judged by stage 4 ("no pure syntax error") with its own code.
  distractors.forEach((d, i) => {
    if (d.parses) defines(d, `distractors[${i}].code`, 'DISTRACTOR');
  });
  let multi = 0;
  tests.forEach((t, i) => {
    const field = task.tests.kind === 'asserts' ? `tests.tests[${i}]` : 'tests.program';
    if (!t.parses) out.push(issue('ast_semantics', 'TEST_SYNTAX', `test does not parse: ${t.syntax_error}`, field));
    // A test no candidate can fail tests nothing, and costs nothing either: never a reason to reject the task
    // (the build drops it before the gate, activities/benchmark/noOpTests.ts).
    else if (!t.calls_target && !t.no_op) {
      const what = task.tests.kind === 'asserts' ? `test does not call ${fn}()` : `check() never uses its parameter and the program never names ${fn}()`;
      out.push(issue('ast_semantics', 'TEST_DOES_NOT_CALL', what, field));
    }
    if (t.statements > 1) multi++;
  });
  const parentJudged = tests.filter((t) => t.parent_judged).length;
  if (parentJudged < profile.parentJudgedTests.min) {
    out.push(issue('ast_semantics', 'TOO_FEW_PARENT_JUDGED',
      `${parentJudged} of ${tests.length} tests parse, so the sandbox's judge can run them outside the candidate's process; profile "${profile.name}" wants at least ${profile.parentJudgedTests.min}`,
      task.tests.kind === 'asserts' ? 'tests.tests' : 'tests.program'));
  }
  return { issues: out, multiStatementTests: multi };
}

/**
 * Stage 3: the canonical passes every test, and at least `profile.parentJudgedTests.min` of those passes were
 * decided by the sandbox's judge (`judged`, from the execution or its cache row): stage 2 counts the tests that can
 * be (by their form), this counts the ones that were for this canonical (a canonical that rebinds `abs` or `math`
 * has its tests using them judged in the child). A result without a judged list counts none: failing closed.
 */
export function canonicalStage(
  outcomes: readonly string[],
  judged?: readonly ('parent' | 'child')[],
  profile?: Pick<GateProfile, 'name' | 'parentJudgedTests'>,
): GateIssue[] {
  const bad = outcomes.map((o, i) => [o, i] as const).filter(([o]) => o !== 'pass');
  if (bad.length) {
    const detail = bad.slice(0, 3).map(([o, i]) => `test ${i}: ${o}`).join('; ');
    return [issue('canonical_execution', 'CANONICAL_FAILS', `canonical fails ${bad.length} of ${outcomes.length} tests (${detail})`, 'canonical')];
  }
  const min = profile?.parentJudgedTests.min ?? 0;
  const parent = judged && judged.length === outcomes.length ? judged.filter((j) => j === 'parent').length : 0;
  if (parent < min) {
    return [issue('canonical_execution', 'TOO_FEW_PARENT_JUDGED',
      `${parent} of ${outcomes.length} passes were judged outside the canonical's process; profile "${profile?.name}" wants at least ${min}`, 'canonical')];
  }
  return [];
}

/** Indices of the tests an outcome list does not pass. */
export function failingSubset(outcomes: readonly string[]): number[] {
  const out: number[] = [];
  outcomes.forEach((o, i) => {
    if (o !== 'pass') out.push(i);
  });
  return out;
}

/**
 * Stage 4: each distractor fails at least one test, is not a pure syntax error, fails at least one test by
 * wrong output (a bare assertion failure, not only crashes); and the distractors do not all fail the
 * identical subset of tests.
 */
export function distractorStage(distractorOutcomes: readonly (readonly string[])[], distinctSubsets = true): GateIssue[] {
  const out: GateIssue[] = [];
  distractorOutcomes.forEach((outcomes, i) => {
    const field = `distractors[${i}].code`;
    if (outcomes.length && outcomes.every((o) => o === 'ERROR: SyntaxError')) {
      out.push(issue('distractor_execution', 'DISTRACTOR_SYNTAX_ERROR', 'distractor is a pure syntax error', field));
    } else if (outcomes.every((o) => o === 'pass')) {
      out.push(issue('distractor_execution', 'DISTRACTOR_PASSES', 'distractor passes every test (it is not buggy)', field));
    } else if (!outcomes.some(isBareFailure)) {
      out.push(issue('distractor_execution', 'DISTRACTOR_CRASH_ONLY', `distractor only crashes or times out (${[...new Set(outcomes.filter((o) => o !== 'pass'))].join(', ')}); it must produce wrong output`, field));
    }
  });
  if (distinctSubsets && distractorOutcomes.length >= 2) {
    const subsets = distractorOutcomes.map((o) => failingSubset(o).join(','));
    if (subsets.every((s) => s === subsets[0])) {
      out.push(issue('distractor_execution', 'IDENTICAL_FAILURE_SUBSETS', `all ${distractorOutcomes.length} distractors fail the identical test subset [${subsets[0]}]`, 'distractors'));
    }
  }
  return out;
}

/** Stage 5 over a batch of tasks: ids and function names unique (the first occurrence keeps its place). */
export function batchIntegrity(tasks: readonly Pick<Task, 'task_id' | 'function_name'>[], uniqueNames = true): Map<number, GateIssue[]> {
  const out = new Map<number, GateIssue[]>();
  const ids = new Map<string, number>();
  const names = new Map<string, number>();
  tasks.forEach((t, i) => {
    const issues: GateIssue[] = [];
    const prevId = ids.get(t.task_id);
    if (prevId !== undefined) issues.push(issue('corpus_integrity', 'DUPLICATE_TASK_ID', `task_id "${t.task_id}" already used by record ${prevId + 1}`, 'task_id'));
    else ids.set(t.task_id, i);
    const prevName = names.get(t.function_name);
    if (prevName !== undefined && uniqueNames) issues.push(issue('corpus_integrity', 'DUPLICATE_FUNCTION_NAME', `function_name "${t.function_name}" already used by record ${prevName + 1}`, 'function_name'));
    else names.set(t.function_name, i);
    if (issues.length) out.set(i, issues);
  });
  return out;
}
