import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../paths.ts';
import { pythonExecutable } from './interpreter.ts';

export interface CodeFacts {
  parses: boolean;
  syntax_error: string | null;
  top_level_functions: string[];
  all_functions: string[];
}
export interface TestFact {
  parses: boolean;
  syntax_error: string | null;
  calls_target: boolean;
  statements: number;
  is_assert?: boolean;
  called: string[];
}

type Req = { id: string; kind: 'code'; code: string } | { id: string; kind: 'tests'; tests: string[]; target: string };

/**
 * Static facts from Python's own `ast` for a whole batch in one interpreter start (parsing never executes
 * the input, so this does not need the sandbox).
 */
export async function astFacts(reqs: Req[]): Promise<Map<string, CodeFacts | { tests: TestFact[] } | { error: string }>> {
  const script = join(projectRoot(), 'infra', 'python', 'ast_facts.py');
  const child = spawn(pythonExecutable(), ['-I', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  const done = new Promise<number>((resolve, reject) => {
    child.on('exit', (c) => resolve(c ?? 1));
    child.on('error', reject);
  });
  child.stdin.on('error', () => {});
  child.stdin.end(reqs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const code = await done;
  if (code !== 0) throw new Error(`ast_facts.py exited ${code}: ${Buffer.concat(err).toString().slice(-2000)}`);
  const result = new Map<string, CodeFacts | { tests: TestFact[] } | { error: string }>();
  for (const line of Buffer.concat(out).toString('utf8').split('\n')) {
    if (!line) continue;
    const rec = JSON.parse(line) as { id: string };
    result.set(rec.id, rec as never);
  }
  return result;
}
