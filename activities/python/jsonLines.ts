import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { pythonExecutable } from './interpreter.ts';

/**
 * Runs `python -I script` over a batch: requests as JSON lines on stdin, exactly one response line each on
 * stdout, in order. For scripts that only parse their input (never execute it), so no sandbox. Resolves on
 * 'close' (not 'exit', which can fire before stdout is drained), and rejects unless every request got its
 * response.
 */
export function runJsonLines<T>(script: string, reqs: readonly object[]): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(pythonExecutable(), ['-I', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.stdin.on('error', () => {});
    child.on('close', (code) => {
      const lines = Buffer.concat(out).toString('utf8').split('\n').filter((l) => l.trim());
      if (code !== 0 || lines.length !== reqs.length) {
        reject(new Error(`${basename(script)} exited ${code} after ${lines.length}/${reqs.length} responses: ${Buffer.concat(err).toString('utf8').slice(-2000)}`));
        return;
      }
      resolve(lines.map((l) => JSON.parse(l) as T));
    });
    child.stdin.end(reqs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  });
}
