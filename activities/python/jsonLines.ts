import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pythonExecutable } from './interpreter.ts';

/**
 * Runs `python -I script` over a batch: requests as JSON lines on stdin, exactly one response line each on
 * stdout, in order. For scripts that only parse their input (never execute it), so no sandbox. Rejects unless
 * every request got its response.
 *
 * stdin and stdout are files, not pipes: a pipe holds 64 KiB, so a batch of megabytes would need this thread's
 * event loop to keep feeding and draining it, and the child would wait whenever the thread is busy. With files
 * it runs to the end on its own core while the caller computes (scoring ranks, synchronously, while ast_facts.py
 * proves its not_defined pairs: activities/scoring/execute.ts). The files live in a private temporary folder,
 * removed once the child is done. `onSpawn` hands out the child's pid (test/scoring/jsonLines.test.ts watches it).
 */
export function runJsonLines<T>(script: string, reqs: readonly object[], opts: { onSpawn?: (pid: number | undefined) => void } = {}): Promise<T[]> {
  const dir = mkdtempSync(join(tmpdir(), 'er-jsonl-'));
  const inPath = join(dir, 'requests.jsonl');
  const outPath = join(dir, 'responses.jsonl');
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  let input = -1;
  let output = -1;
  try {
    writeFileSync(inPath, reqs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    input = openSync(inPath, 'r');
    output = openSync(outPath, 'w');
    const child = spawn(pythonExecutable(), ['-I', script], { stdio: [input, output, 'pipe'] });
    opts.onSpawn?.(child.pid);
    return new Promise<T[]>((resolve, reject) => {
      const err: Buffer[] = [];
      child.stderr?.on('data', (b: Buffer) => err.push(b));
      child.on('error', (e) => {
        cleanup();
        reject(e);
      });
      // 'close', not 'exit': stderr is drained by then, and the child has closed its copy of the output file.
      child.on('close', (code) => {
        let text: string;
        try {
          text = readFileSync(outPath, 'utf8');
        } catch (e) {
          cleanup();
          reject(e);
          return;
        }
        cleanup();
        const lines = text.split('\n').filter((l) => l.trim());
        if (code !== 0 || lines.length !== reqs.length) {
          reject(new Error(`${basename(script)} exited ${code} after ${lines.length}/${reqs.length} responses: ${Buffer.concat(err).toString('utf8').slice(-2000)}`));
          return;
        }
        resolve(lines.map((l) => JSON.parse(l) as T));
      });
    });
  } catch (e) {
    cleanup();
    return Promise.reject(e);
  } finally {
    // The child holds its own copies of both descriptors.
    if (input >= 0) closeSync(input);
    if (output >= 0) closeSync(output);
  }
}
