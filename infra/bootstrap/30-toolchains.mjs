// The runners of the functional benchmark's other languages (core/languages/functional.ts): Node (JavaScript,
// TypeScript) where the sandbox's read-only view shows it, and the Go toolchain. Neither comes from a package
// registry here: this step names what is missing (a warning: only that language's tasks need it) and, with Go
// present, compiles the harness's and the usual candidates' standard packages once into the oracle's build cache
// (<state>/go-build, as activities/exec/callsBuild.ts's goCacheDir), so the first Go build pays the link only (~0.3 s instead of ~20 s).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const name = 'toolchains (node, go)';

export async function run({ root, state, log }) {
  const node = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p));
  log(node ? `node for JavaScript/TypeScript tasks: ${node}` : 'WARNING: no node under /usr/bin or /usr/local/bin: JavaScript/TypeScript tasks cannot run (install Node >= 20 into /usr)');
  const go = process.env.EXECRETRIEVAL_GO ?? 'go';
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GOCACHE: process.env.EXECRETRIEVAL_GOCACHE ?? join(process.env.EXECRETRIEVAL_STATE_DIR ?? state, 'go-build'), GOPROXY: 'off', GOFLAGS: '-mod=mod', GOWORK: 'off', GOTOOLCHAIN: 'local', GOTELEMETRY: 'off', CGO_ENABLED: '0' };
  let version;
  try {
    version = execFileSync(go, ['version'], { encoding: 'utf8', env }).trim();
  } catch {
    log('WARNING: no Go toolchain (`go`, or EXECRETRIEVAL_GO): Go tasks cannot run (install Go >= 1.22 from go.dev/dl or the distribution\'s golang package)');
    return;
  }
  log(`go for Go tasks: ${version}`);
  const dir = mkdtempSync(join(tmpdir(), 'execretrieval-go-warm-'));
  try {
    writeFileSync(join(dir, 'go.mod'), 'module candidate\n\ngo 1.22\n');
    const pkgs = ['errors', 'fmt', 'math', 'sort', 'strconv', 'strings', 'unicode', 'time', 'slices', 'maps', 'bytes', 'regexp'];
    writeFileSync(join(dir, 'candidate.go'), `package main\n\nimport (\n${pkgs.map((p) => `\t_ "${p}"\n`).join('')})\n\nfunc Warm() int {\n\treturn 0\n}\n`);
    writeFileSync(join(dir, 'xr_harness.go'), readFileSync(join(root, 'infra', 'runner', 'calls_harness.go'), 'utf8').replace('XR_ENTRY_POINT', 'Warm'));
    execFileSync(go, ['build', '-trimpath', '-ldflags=-s -w', '-o', 'prog', '.'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    log(`go build cache warm: ${env.GOCACHE}`);
  } catch (e) {
    log(`WARNING: warming the Go build cache failed: ${String(e.stderr ?? e.message).split('\n')[0]}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
