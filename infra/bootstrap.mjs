#!/usr/bin/env node
// Installs what is not an npm package, idempotently: the Python venv with pinned packages, then every step in
// infra/bootstrap/*.mjs in name order (each exports `name` and `run(ctx)`). Plain JavaScript so it runs before
// anything else is set up. Where things go (infra/home.js): a checkout's .venv/ and .execretrieval/; an installed
// package's EXECRETRIEVAL_HOME (default ~/.execretrieval), which `execretrieval bootstrap` runs this for.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { homeLayout } from './home.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { venv, state } = homeLayout(root);
const venvPython = join(venv, 'bin', 'python');
const quiet = process.argv.includes('--quiet');
// --tests: also the steps only the test suite needs (marked `testsOnly`), e.g. Chromium for the browser test.
const forTests = process.argv.includes('--tests');
// --all-models: every local model, also those no configuration of the default run uses (mpnet: 440 MB, ~45 s to
// fetch and export). `npm start` installs only what it runs; the tests check every model against its reference.
const allModels = forTests || process.argv.includes('--all-models');
const log = (msg) => { if (!quiet) console.error(`[bootstrap] ${msg}`); };

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...opts });
}

/** The real interpreter, not a version-manager shim (a pyenv shim costs ~50 ms a call). */
function basePython() {
  const candidates = [process.env.EXECRETRIEVAL_PYTHON, 'python3.11', 'python3', 'python'].filter(Boolean);
  for (const c of candidates) {
    try {
      const out = run(c, ['-c', 'import sys; print(sys.version_info >= (3, 10)); print(sys.executable)']).trim().split('\n');
      if (out[0] === 'True') return out[1];
    } catch { /* try the next */ }
  }
  throw new Error('bootstrap: no Python >= 3.10 found (set EXECRETRIEVAL_PYTHON to one)');
}

function ensureVenv() {
  if (!existsSync(venvPython)) {
    const py = basePython();
    log(`creating ${venv} with ${py}`);
    run(py, ['-m', 'venv', venv]);
  }
  const reqFile = join(root, 'infra', 'requirements.txt');
  const want = createHash('sha256').update(readFileSync(reqFile)).digest('hex');
  const stamp = join(venv, '.requirements.sha256');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === want) return;
  log('installing pinned Python packages (infra/requirements.txt)');
  run(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-q', '-r', reqFile], { stdio: 'inherit' });
  writeFileSync(stamp, want + '\n');
}

function verifyTemporal() {
  const bin = join(venv, 'bin', 'temporal');
  const version = run(bin, ['--version']).trim();
  log(version);
}

/**
 * Where later code finds the interpreter for untrusted code: the base interpreter, not the venv. The venv's path
 * is stored relative to the checkout (a copied or moved checkout must run its own venv, not the original's); the
 * base interpreter lies outside it and is checked again at start (activities/python/interpreter.ts).
 */
function recordPython() {
  mkdirSync(state, { recursive: true });
  const base = run(venvPython, ['-c', 'import sys; print(getattr(sys, "_base_executable", sys.executable))']).trim();
  writeFileSync(join(state, 'python.json'), JSON.stringify({ python: base, venvPython: relative(root, venvPython) }, null, 2) + '\n');
}

ensureVenv();
verifyTemporal();
recordPython();
const stepsDir = join(root, 'infra', 'bootstrap');
const ctx = { root, state, venv, venvPython, log, run, allModels };
for (const file of readdirSync(stepsDir).filter((f) => f.endsWith('.mjs')).sort()) {
  const step = await import(pathToFileURL(join(stepsDir, file)).href);
  if (step.testsOnly && !forTests) continue;
  log(`step ${step.name ?? file}`);
  await step.run(ctx);
}
log('ready');
