import { LANGUAGES, type Language } from '../../schemas/task.ts';
import type { TestSuite } from '../../schemas/exec.ts';

/**
 * The functional benchmark's languages, one row each: a language with no row is refused with one line
 * (UnknownLanguageError), never treated as Python. Adding a language is a row here, its runner in the sandbox
 * (infra/runner/sandbox_calls.py) and its fixtures.
 */
export interface FunctionalLanguage {
  id: Language;
  /** A snippet's file extension (exports, the Go build). */
  extension: string;
  /** The tree-sitter grammar in @repomix/tree-sitter-wasms that parses it (mutation, reachability). */
  grammar: 'python' | 'javascript' | 'typescript' | 'go';
  /** What runs it in the sandbox's child: the Python interpreter, `node` (TypeScript transpiled first), a Go binary. */
  runner: 'python' | 'node' | 'go';
  /** The toolchain `doctor` checks for it (besides Python, which every run needs). */
  toolchain: 'python' | 'node' | 'go';
  /** The suite kinds its tasks may carry. */
  suites: readonly TestSuite['kind'][];
  /** Default folder of its curated tasks (`run --source curated --language <id>`), relative to the project root. */
  curated: string;
  /** Where the tree-sitter mutator (activities/mutation/treeMutator.ts) finds each operator's site; null for
   * python, whose mutants come from its own `ast` (infra/python/mutate.py). */
  mutation: TreeMutationNodes | null;
}

/** The grammar's node types and tokens the six bug types edit (tree-sitter names). */
export interface TreeMutationNodes {
  /** Top-level function definitions, and (JS/TS) declarators whose value is a function. */
  functions: readonly string[];
  /** Methods (Go): reachable when their name is used as a selector. */
  methods: readonly string[];
  binary: string;
  /** An assignment with an operator (`+=`), and where its operator token is. */
  augmented: string;
  ifStatement: string;
  call: string;
  /** `xs[i]` and the field of its index. */
  index: { type: string; field: string };
  integer: string;
  /** Statements that leave the block early: an `if` whose body ends in one is a guard (remove_guard). */
  earlyExits: readonly string[];
  /** Identifier-like node types whose text names a definition (reachability). */
  names: readonly string[];
  /** `!` applied to a parenthesised condition: how a negated test is written. */
  negate: (condition: string) => string;
  /** Binary operators by precedence class: an operator swapped within its class keeps the tree's shape. */
  precedence: readonly (readonly string[])[];
  /** Mirror calls (wrong_operator): `Math.min` -> `Math.max`. */
  mirrors: Readonly<Record<string, string>>;
}

const JS_NODES: TreeMutationNodes = {
  functions: ['function_declaration', 'generator_function_declaration'],
  methods: [],
  binary: 'binary_expression',
  augmented: 'augmented_assignment_expression',
  ifStatement: 'if_statement',
  call: 'call_expression',
  index: { type: 'subscript_expression', field: 'index' },
  integer: 'number',
  earlyExits: ['return_statement', 'throw_statement', 'break_statement', 'continue_statement'],
  names: ['identifier', 'property_identifier'],
  negate: (c) => `!(${c})`,
  precedence: [['||', '??'], ['&&'], ['|'], ['^'], ['&'], ['==', '!=', '===', '!=='], ['<', '>', '<=', '>=', 'instanceof', 'in'], ['<<', '>>', '>>>'], ['+', '-'], ['*', '/', '%'], ['**']],
  mirrors: { 'Math.min': 'Math.max', 'Math.max': 'Math.min', 'Math.floor': 'Math.ceil', 'Math.ceil': 'Math.floor' },
};

const GO_NODES: TreeMutationNodes = {
  functions: ['function_declaration'],
  methods: ['method_declaration'],
  binary: 'binary_expression',
  augmented: 'assignment_statement',
  ifStatement: 'if_statement',
  call: 'call_expression',
  index: { type: 'index_expression', field: 'index' },
  integer: 'int_literal',
  earlyExits: ['return_statement', 'break_statement', 'continue_statement'],
  names: ['identifier', 'field_identifier'],
  negate: (c) => `!(${c})`,
  precedence: [['||'], ['&&'], ['==', '!=', '<', '<=', '>', '>='], ['+', '-', '|', '^'], ['*', '/', '%', '<<', '>>', '&', '&^']],
  mirrors: { min: 'max', max: 'min', 'math.Floor': 'math.Ceil', 'math.Ceil': 'math.Floor', 'math.Min': 'math.Max', 'math.Max': 'math.Min' },
};

export const FUNCTIONAL_LANGUAGES = {
  python: { id: 'python', extension: '.py', grammar: 'python', runner: 'python', toolchain: 'python', suites: ['asserts', 'check'], curated: 'data/tasks/curated', mutation: null },
  javascript: { id: 'javascript', extension: '.js', grammar: 'javascript', runner: 'node', toolchain: 'node', suites: ['calls'], curated: 'data/tasks/curated-javascript', mutation: JS_NODES },
  typescript: { id: 'typescript', extension: '.ts', grammar: 'typescript', runner: 'node', toolchain: 'node', suites: ['calls'], curated: 'data/tasks/curated-javascript', mutation: JS_NODES },
  go: { id: 'go', extension: '.go', grammar: 'go', runner: 'go', toolchain: 'go', suites: ['calls'], curated: 'data/tasks/curated-go', mutation: GO_NODES },
} as const satisfies Record<Language, FunctionalLanguage>;

/** Thrown for a language name with no row; the message is the one line the user sees. */
export class UnknownLanguageError extends Error {
  readonly code = 'UNKNOWN_LANGUAGE';
}

export function functionalLanguage(name: string): FunctionalLanguage {
  if (!Object.hasOwn(FUNCTIONAL_LANGUAGES, name)) {
    throw new UnknownLanguageError(`unknown language "${name}": the functional benchmark supports ${LANGUAGES.join(', ')}`);
  }
  return FUNCTIONAL_LANGUAGES[name as Language];
}
