import { join } from 'node:path';
import { projectRoot } from '../paths.ts';
import type { CodeFactsLike, TestFactLike } from '../../core/gate/rules.ts';
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
