/**
 * The `not_defined` rule: a verdict known without running. Scoring executes every top-10 snippet against the
 * query's tests, and most of those snippets belong to other queries: they never define the function the tests
 * call, so the suite fails with NameError before any of the snippet's logic matters. When the AST facts
 * (infra/python/ast_facts.py, kinds "names" / "suite_names") prove that, the pair is not executed.
 *
 * The proof, all of which must hold (anything short of it runs the snippet):
 *  - the snippet parses and is not dynamic (no exec/eval/globals()/setattr/import * …: nothing that can bind a
 *    name it does not spell);
 *  - the suite's setup parses and is not dynamic;
 *  - some test parses, is not dynamic, and certainly looks up a name (at one of its top-level statements,
 *    outside any short-circuit branch) that is not a builtin or sandbox-provided name, that the test itself
 *    binds nowhere, that the setup binds nowhere, and that the snippet does not even spell.
 * Every test runs in a fresh namespace holding only the snippet's, the setup's and its own bindings
 * (sandbox.py child_main), so that look-up raises NameError (KeyError for a `check` entry point): the suite
 * cannot pass. A name the snippet spells in any role counts as possibly bound, whatever its scope.
 */

export const NOT_DEFINED = 'not_defined';

export interface SnippetNameFacts {
  parses: boolean;
  /** Every identifier the snippet spells, in any role. */
  identifiers: readonly string[];
  dynamic: boolean;
}

export interface SourceNameFacts {
  bound: readonly string[];
  /** Names certainly looked up by its top-level statements that no builtin answers. */
  free_loads: readonly string[];
  dynamic: boolean;
}

export interface SuiteNameFacts {
  setup: SourceNameFacts | null;
  tests: readonly (SourceNameFacts | null)[];
}

/** The name the suite certainly fails to find when run with this snippet, or null when that is not proven. */
export function undefinedName(snippet: SnippetNameFacts, suite: SuiteNameFacts): string | null {
  return undefinedNameOf(spelledNames(snippet), suiteCandidates(suite));
}

/**
 * The part of the proof that depends on the snippet alone: the names it spells, or null when it cannot be used
 * (does not parse, or is dynamic). Scoring judges each snippet against many suites (its top-10 pairs): built
 * once per snippet, not per pair (a 20x MBPP has 387k pairs; a Set per pair kept its heap in the collector).
 */
export function spelledNames(snippet: SnippetNameFacts): ReadonlySet<string> | null {
  return !snippet.parses || snippet.dynamic ? null : new Set(snippet.identifiers);
}

/**
 * The part that depends on the suite alone: per usable test (parses, not dynamic), in order, the names it
 * certainly looks up that neither it nor the setup binds; null when the setup is missing or dynamic.
 */
export function suiteCandidates(suite: SuiteNameFacts): readonly (readonly string[])[] | null {
  const setup = suite.setup;
  if (!setup || setup.dynamic) return null;
  const setupBound = new Set(setup.bound);
  const out: string[][] = [];
  for (const test of suite.tests) {
    if (!test || test.dynamic) continue;
    const own = new Set(test.bound);
    out.push(test.free_loads.filter((n) => !own.has(n) && !setupBound.has(n)));
  }
  return out;
}

/** The first candidate of the first test that the snippet does not even spell (the proof's last step). */
export function undefinedNameOf(spelled: ReadonlySet<string> | null, candidates: readonly (readonly string[])[] | null): string | null {
  if (!spelled || !candidates) return null;
  for (const names of candidates) {
    const name = names.find((n) => !spelled.has(n));
    if (name !== undefined) return name;
  }
  return null;
}
