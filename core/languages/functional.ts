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
}

export const FUNCTIONAL_LANGUAGES = {
  python: { id: 'python', extension: '.py', grammar: 'python', runner: 'python', toolchain: 'python', suites: ['asserts', 'check'], curated: 'data/tasks/curated' },
  javascript: { id: 'javascript', extension: '.js', grammar: 'javascript', runner: 'node', toolchain: 'node', suites: ['calls'], curated: 'data/tasks/curated-javascript' },
  typescript: { id: 'typescript', extension: '.ts', grammar: 'typescript', runner: 'node', toolchain: 'node', suites: ['calls'], curated: 'data/tasks/curated-javascript' },
  go: { id: 'go', extension: '.go', grammar: 'go', runner: 'go', toolchain: 'go', suites: ['calls'], curated: 'data/tasks/curated-go' },
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
