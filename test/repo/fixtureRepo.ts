import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Real git repositories for tests: `git init` in a temp dir, commits with a fixed author, committer and
 * date, so commit ids are the same on every machine and every run.
 */
const ENV = {
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.invalid',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.invalid',
  GIT_AUTHOR_DATE: '2025-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2025-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: tmpdir(),
};

export class FixtureRepo {
  readonly dir: string;
  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'execretrieval-repo-'));
    this.git('init', '-q', '-b', 'main');
  }
  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, env: { ...process.env, ...ENV }, encoding: 'utf8' }).trim();
  }
  write(files: Record<string, string>): void {
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(dirname(join(this.dir, p)), { recursive: true });
      writeFileSync(join(this.dir, p), text);
    }
  }
  remove(paths: string[]): void {
    this.git('rm', '-q', '--', ...paths);
  }
  /** Stages everything and commits; returns the full commit id. */
  commit(message: string, files: Record<string, string> = {}): string {
    this.write(files);
    this.git('add', '-A');
    this.git('commit', '-q', '-m', message);
    return this.git('rev-parse', 'HEAD');
  }
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
