// Where execretrieval keeps what it makes, in plain JavaScript so that infra/bootstrap.mjs (which runs before
// anything is installed) and activities/paths.ts agree on it.
//   A checkout (development, CI: the package folder holds .git) keeps runs/, .execretrieval/ (caches, models, the
//   Temporal database) and .venv/ in itself, as it always has.
//   An installed package (`npm install -g`, no .git) keeps runs/ under the folder the command is run in, and its
//   state in EXECRETRIEVAL_HOME, default ~/.execretrieval (the venv in its venv/): one set of models and caches
//   for every folder, and nothing written into the install prefix.
//   EXECRETRIEVAL_HOME set on a checkout moves its state there too (runs then follow the current folder).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `{ state, venv, runs, installed }` for the package at `root`. */
export function homeLayout(root, env = process.env, cwd = process.cwd(), userHome = homedir()) {
  const installed = !existsSync(join(root, '.git'));
  const home = env.EXECRETRIEVAL_HOME ? resolve(env.EXECRETRIEVAL_HOME) : installed ? join(userHome, '.execretrieval') : null;
  return home === null
    ? { installed, state: join(root, '.execretrieval'), venv: join(root, '.venv'), runs: join(root, 'runs') }
    : { installed, state: home, venv: join(home, 'venv'), runs: join(cwd, 'runs') };
}
