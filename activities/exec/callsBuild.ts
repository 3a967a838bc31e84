import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import type { CallsSuite } from '../../schemas/exec.ts';
import { projectRoot, stateDir } from '../paths.ts';

/**
 * What a `calls` suite's code becomes before it is sent to the sandbox (infra/runner/sandbox_calls.py):
 * JavaScript as it is; TypeScript transpiled to JavaScript here, in-process (`ts.transpileModule`: types erased,
 * no type check and no `tsc` process per snippet; Node 20 has no --experimental-strip-types); Go compiled with
 * the harness into one static binary (`go build`, its build cache kept in the state directory, so only the
 * candidate's package and the link are paid per snippet), sent as base64. Transpiling and compiling read the
 * candidate's text but never run it. A snippet that does not transpile or compile gets its own outcome for every
 * call (`ERROR: SyntaxError`, `ERROR: CompileError`), a verdict like any other.
 */
export type Prepared = { code: string } | { outcome: string };

const RUNNER_DIR = join(projectRoot(), 'infra', 'runner');
const HARNESS_FILES = ['calls_harness.js', 'calls_harness.go'];
const GO_HARNESS = () => readFileSync(join(RUNNER_DIR, 'calls_harness.go'), 'utf8');
/** A compile that runs longer than this is the snippet's outcome (`ERROR: CompileTimeout`), not a fault. */
export const GO_BUILD_TIMEOUT_MS = 120_000;

let harnessVersion: string | null = null;
/** Hash of the harnesses the child runs (the .py sandbox files are in runnerVersion already): part of each calls suite's cache key. */
export function callsHarnessVersion(): string {
  if (harnessVersion === null) {
    const h = createHash('sha256');
    for (const f of HARNESS_FILES) h.update(`${f}\0`).update(readFileSync(join(RUNNER_DIR, f))).update('\0');
    harnessVersion = `calls-1+${h.digest('hex').slice(0, 16)}`;
  }
  return harnessVersion;
}

export async function prepareCalls(code: string, suite: CallsSuite): Promise<Prepared> {
  if (suite.language === 'javascript') return { code };
  if (suite.language === 'typescript') return transpileTs(code);
  return buildGo(code, suite.entry_point);
}

export function transpileTs(code: string): Prepared {
  const out = ts.transpileModule(code, {
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None, isolatedModules: true, removeComments: false },
  });
  if (out.diagnostics?.some((d) => d.category === ts.DiagnosticCategory.Error)) return { outcome: 'ERROR: SyntaxError' };
  return { code: out.outputText };
}

/** The Go toolchain: EXECRETRIEVAL_GO, else `go` on PATH. */
export function goExecutable(): string {
  return process.env.EXECRETRIEVAL_GO ?? 'go';
}

/** The Go build cache the oracle uses (EXECRETRIEVAL_GOCACHE, else `<state>/go-build`). */
export function goCacheDir(): string {
  return process.env.EXECRETRIEVAL_GOCACHE ?? join(stateDir(), 'go-build');
}

// go build runs several compilers at once itself: more than a core's worth of builds at a time only thrashes.
let building = 0;
const waiting: (() => void)[] = [];
async function slot<T>(f: () => Promise<T>): Promise<T> {
  if (building >= Math.max(1, availableParallelism())) await new Promise<void>((r) => waiting.push(r));
  building++;
  try {
    return await f();
  } finally {
    building--;
    waiting.shift()?.();
  }
}

/** Compiles `package main` + the candidate with the harness calling `entry`; base64 of the binary, or the outcome. */
export function buildGo(code: string, entry: string): Promise<Prepared> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(entry)) return Promise.resolve({ outcome: 'ERROR: CompileError' });
  return slot(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'execretrieval-go-'));
    try {
      writeFileSync(join(dir, 'go.mod'), 'module candidate\n\ngo 1.22\n');
      const body = /^\s*package\s+main\b/.test(code) ? code : `package main\n\n${code}`;
      writeFileSync(join(dir, 'candidate.go'), body);
      writeFileSync(join(dir, 'xr_harness.go'), GO_HARNESS().replace('XR_ENTRY_POINT', entry));
      const res = await run(goExecutable(), ['build', '-trimpath', '-ldflags=-s -w', '-o', 'prog', '.'], dir);
      if (res.timedOut) return { outcome: 'ERROR: CompileTimeout' };
      // Exit 1 with the compiler's messages is the snippet's error; anything else (no toolchain, a signal) is ours.
      if (res.code === 1) return { outcome: 'ERROR: CompileError' };
      if (res.code !== 0) throw new Error(`go build failed (exit ${res.code}, signal ${res.signal}): ${res.stderr.trim().split('\n')[0] ?? ''}`);
      return { code: readFileSync(join(dir, 'prog')).toString('base64') };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  timedOut: boolean;
}

function run(exe: string, args: string[], cwd: string): Promise<RunResult> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: cwd,
    GOCACHE: goCacheDir(),
    GOPATH: join(stateDir(), 'gopath'),
    GOPROXY: 'off',
    GOFLAGS: '-mod=mod',
    GOWORK: 'off',
    GOTOOLCHAIN: 'local',
    GOTELEMETRY: 'off',
    CGO_ENABLED: '0',
  };
  return new Promise((resolve, reject) => {
    const child = execFile(exe, args, { cwd, env, timeout: GO_BUILD_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 1 << 22 }, (err, _stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { killed?: boolean; code?: number | string; signal?: NodeJS.Signals }) | null;
      if (e && typeof e.code === 'string') return reject(new Error(`cannot run ${exe}: ${e.message.split('\n')[0]}`));
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, signal: e?.signal ?? null, stderr: String(stderr), timedOut: Boolean(e?.killed) });
    });
    child.stdin?.end();
  });
}
