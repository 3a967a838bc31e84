import { join } from 'node:path';
import { projectRoot } from '../paths.ts';
import type { CodeFactsLike, TestFactLike } from '../../core/gate/rules.ts';
import type { SnippetNameFacts, SuiteNameFacts } from '../../core/scoring/notDefined.ts';
import type { TestSuite } from '../../schemas/exec.ts';
import { runJsonLines } from './jsonLines.ts';

type Req = { id: string; kind: 'code'; code: string } | { id: string; kind: 'tests'; tests: string[]; target: string };

/**
 * Static facts from Python's own `ast` for a whole batch in one interpreter start (parsing never executes
 * the input, so this does not need the sandbox).
 */
export async function astFacts(reqs: Req[]): Promise<Map<string, CodeFactsLike | { tests: TestFactLike[] } | { error: string }>> {
  const records = await runJsonLines<{ id: string }>(join(projectRoot(), 'infra', 'python', 'ast_facts.py'), reqs);
  const result = new Map<string, CodeFactsLike | { tests: TestFactLike[] } | { error: string }>();
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
  const records = await runJsonLines<{ id: string; error?: string }>(join(projectRoot(), 'infra', 'python', 'ast_facts.py'), reqs);
  const out = { snippets: new Map<string, SnippetNameFacts>(), suites: new Map<string, SuiteNameFacts>() };
  for (const rec of records) {
    if (rec.error) continue;
    if (rec.id.startsWith('c:')) out.snippets.set(rec.id.slice(2), rec as unknown as SnippetNameFacts);
    else out.suites.set(rec.id.slice(2), rec as unknown as SuiteNameFacts);
  }
  return out;
}
