import type { TestSuite } from '../../schemas/exec.ts';

/** Statement layout of a check(candidate) program, as infra/python/ast_facts.py (`check_program`) reports it. */
export interface CheckProgramFacts {
  parses: boolean;
  syntax_error: string | null;
  /** Top-level statements: 1-based inclusive lines; `check_call` is a module-level `check(...)` call. */
  module?: { kind: 'check_def' | 'check_call' | 'other'; start: number; end: number }[];
  /** check's first parameter (`candidate`), null when check is missing or takes none. */
  param?: string | null;
  body?: {
    kind: 'assert' | 'other';
    start: number;
    end: number;
    /** Character column of the statement (its indentation inside check). */
    col: number;
    /** A non-assert statement that holds an assert (a loop, a helper, a `with`). */
    nested_assert: boolean;
    /** The statement rebinds the parameter (assignment, lambda or comprehension variable). */
    binds_param: boolean;
    /** [line, startCol, endCol] (characters) of each read of the parameter inside an assert. */
    param_uses: [number, number, number][];
  }[];
}

export type CheckSplit =
  | { split: true; suite: Extract<TestSuite, { kind: 'asserts' }> }
  | { split: false; reason: string };

/** Cuts lines [start, end] out of the program and removes `indent` leading whitespace characters from each. */
function cut(lines: readonly string[], start: number, end: number, indent: number): string {
  return lines
    .slice(start - 1, end)
    .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
    .join('\n');
}

/** Statements in source order: does one start on the line the previous one ends on (`a; b`)? */
const sharesLine = (stmts: readonly { start: number; end: number }[]) => stmts.some((s, i) => i > 0 && s.start <= stmts[i - 1].end);

/**
 * One test per top-level assert of `check(candidate)`, so per-test outcomes and failing subsets work as for an
 * assert list. The statements before the first assert (setup lines, helpers) and the module's other statements
 * (imports, METADATA, helpers) become the suite's `setup`, which binds the parameter to the entry point; in each
 * assert the parameter is renamed to the entry point, so the test calls the function by name as an MBPP assert
 * does. A module-level `check(...)` call is dropped (the oracle runs each test itself).
 *
 * Splitting is refused (the suite keeps its program form, and says why) when it could change what is tested:
 * an assert inside a loop, a helper or any other statement (the split would drop it); a statement after the
 * first assert that is not an assert (later asserts could depend on it); an assert that rebinds the parameter;
 * two statements on one line; no top-level assert at all.
 */
export function planCheckSplit(program: string, entryPoint: string, facts: CheckProgramFacts): CheckSplit {
  const no = (reason: string): CheckSplit => ({ split: false, reason });
  if (!facts.parses) return no(`program does not parse: ${facts.syntax_error}`);
  const module = facts.module ?? [];
  const body = facts.body ?? [];
  if (!module.some((m) => m.kind === 'check_def')) return no('no top-level def check(...)');
  if (!facts.param) return no('check takes no parameter');
  if (body.some((s) => s.nested_assert)) return no('an assert inside a loop, helper or block');
  const firstAssert = body.findIndex((s) => s.kind === 'assert');
  if (firstAssert < 0) return no('check has no top-level assert');
  if (body.slice(firstAssert).some((s) => s.kind !== 'assert')) return no('a statement between asserts');
  if (body.some((s) => s.kind === 'assert' && s.binds_param)) return no(`an assert rebinds ${facts.param}`);
  if (sharesLine(module) || sharesLine(body)) return no('two statements on one line');

  const lines = program.split('\n');
  const prefix = body.slice(0, firstAssert).map((s) => cut(lines, s.start, s.end, s.col));
  const setup: string[] = [];
  for (const m of module) {
    if (m.kind === 'check_call') continue;
    if (m.kind === 'check_def') setup.push(`${facts.param} = ${entryPoint}`, ...prefix);
    else setup.push(cut(lines, m.start, m.end, 0));
  }
  const tests = body.slice(firstAssert).map((s) => {
    const own = lines.slice(s.start - 1, s.end);
    // Right to left, so earlier columns on the same line stay valid.
    for (const [line, a, b] of [...s.param_uses].sort((x, y) => y[0] - x[0] || y[1] - x[1])) {
      const k = line - s.start;
      own[k] = own[k].slice(0, a) + entryPoint + own[k].slice(b);
    }
    return cut(own, 1, own.length, s.col);
  });
  return { split: true, suite: { kind: 'asserts', tests, setup: setup.join('\n') + '\n' } };
}
