import { join } from 'node:path';
import { projectRoot } from '../paths.ts';
import type { CodeFactsLike, TestFactLike } from '../../core/gate/rules.ts';
import type { SnippetNameFacts, SuiteNameFacts } from '../../core/scoring/notDefined.ts';
import type { CheckProgramFacts } from '../../core/suites/splitCheck.ts';
import type { DocstringSpanFacts } from '../../core/importers/docstringSplice.ts';
import type { TestSuite } from '../../schemas/exec.ts';
import { runJsonLines } from './jsonLines.ts';

type Req =
  | { id: string; kind: 'code'; code: string }
  | { id: string; kind: 'tests'; tests: string[]; target: string }
  | { id: string; kind: 'suite'; suite: TestSuite; target: string }
  | { id: string; kind: 'docstring'; code: string; target?: string }
  | { id: string; kind: 'check_program'; program: string }
  | { id: string; kind: 'docstring_span'; code: string; target?: string };

export interface DocstringFacts {
  docstring: string | null;
  syntax_error: string | null;
}
type Facts = CodeFactsLike | { tests: TestFactLike[] } | DocstringFacts | CheckProgramFacts | DocstringSpanFacts | { error: string };

const SCRIPT = () => join(projectRoot(), 'infra', 'python', 'ast_facts.py');

/**
 * Static facts from Python's own `ast` for a whole batch in one interpreter start (parsing never executes
 * the input, so this does not need the sandbox).
 */
export async function astFacts(reqs: Req[]): Promise<Map<string, Facts>> {
  const records = await runJsonLines<{ id: string }>(SCRIPT(), reqs);
  const result = new Map<string, Facts>();
  for (const rec of records) result.set(rec.id, rec as never);
  return result;
}

/**
 * Name facts for scoring's not_defined rule (core/scoring/notDefined.ts), one interpreter start for the batch:
 * what each snippet spells and whether it is dynamic; what each suite's tests bind and certainly look up.
 * A record the script could not analyse comes back as undefined (the caller then runs the pair).
 */
export async function nameFacts(
  snippets: readonly { id: string; code: string }[],
  suites: readonly { id: string; suite: TestSuite }[],
): Promise<{ snippets: Map<string, SnippetNameFacts>; suites: Map<string, SuiteNameFacts> }> {
  const reqs = [
    ...snippets.map((s) => ({ id: `c:${s.id}`, kind: 'names', code: s.code })),
    ...suites.map((s) => ({ id: `s:${s.id}`, kind: 'suite_names', suite: s.suite })),
  ];
  const records = await runJsonLines<{ id: string; error?: string }>(SCRIPT(), reqs);
  const out = { snippets: new Map<string, SnippetNameFacts>(), suites: new Map<string, SuiteNameFacts>() };
  for (const rec of records) {
    if (rec.error) continue;
    if (rec.id.startsWith('c:')) out.snippets.set(rec.id.slice(2), rec as unknown as SnippetNameFacts);
    else out.suites.set(rec.id.slice(2), rec as unknown as SuiteNameFacts);
  }
  return out;
}

/** Facts of one kind for a list of requests, in order; a record the script could not analyse throws. */
async function factsInOrder<T>(reqs: Req[]): Promise<T[]> {
  if (!reqs.length) return [];
  const m = await astFacts(reqs);
  return reqs.map((r) => {
    const f = m.get(r.id) as T | { error: string };
    if (f && typeof f === 'object' && 'error' in f) throw new Error(`ast_facts.py could not analyse record ${r.id}: ${f.error}`);
    return f as T;
  });
}

/**
 * Per test of each suite: does it parse, does it call `target`. For a `check` program the single test calls the
 * target when check uses its parameter or the program names the target (the oracle calls `check(<entry
 * point>)` itself). The build's pre-check and the gate's AST stage both ask this, so they agree.
 */
export function suiteFacts(items: readonly { suite: TestSuite; target: string }[]): Promise<TestFactLike[][]> {
  return factsInOrder<{ tests: TestFactLike[] }>(items.map((it, i) => ({ id: String(i), kind: 'suite', suite: it.suite, target: it.target }))).then((r) => r.map((x) => x.tests));
}

export function codeFacts(codes: readonly string[]): Promise<CodeFactsLike[]> {
  return factsInOrder<CodeFactsLike>(codes.map((code, i) => ({ id: String(i), kind: 'code', code })));
}

/** The docstring of `target` in each source (else of its last top-level function or class, else the module's). */
export function docstrings(items: readonly { code: string; target?: string }[]): Promise<DocstringFacts[]> {
  return factsInOrder<DocstringFacts>(items.map((it, i) => ({ id: String(i), kind: 'docstring', code: it.code, ...(it.target ? { target: it.target } : {}) })));
}

/** Where the docstring `docstrings` would take sits in each source (infra/python/ast_facts.py `docstring_span`). */
export function docstringSpans(items: readonly { code: string; target?: string }[]): Promise<DocstringSpanFacts[]> {
  return factsInOrder<DocstringSpanFacts>(items.map((it, i) => ({ id: String(i), kind: 'docstring_span', code: it.code, ...(it.target ? { target: it.target } : {}) })));
}

export function checkProgramFacts(programs: readonly string[]): Promise<CheckProgramFacts[]> {
  return factsInOrder<CheckProgramFacts>(programs.map((program, i) => ({ id: String(i), kind: 'check_program', program })));
}
