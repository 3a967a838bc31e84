import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

/**
 * Read-only access to a git repository at a pinned commit: `git ls-tree -r` and `git cat-file --batch`
 * read the commit's tree and blobs from the object store, never the working tree (which may hold
 * uncommitted edits or another branch). Arguments are arrays and `cwd` is explicit (vitest's
 * node/vcs/git.ts does the same), so no path or revision is ever parsed by a shell.
 */
export class GitError extends Error {
  readonly code = 'GIT_FAILED';
  constructor(message: string) {
    super(message);
    this.name = 'GitError';
  }
}

export interface TreeEntry {
  mode: string;
  oid: string;
  path: string;
  bytes: number;
}

export class GitRepo {
  constructor(readonly cwd: string) {}

  private async git(args: string[]): Promise<string> {
    try {
      const { stdout } = await execFileP('git', args, { cwd: this.cwd, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' });
      return stdout;
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new GitError(`git ${args.join(' ')} (in ${this.cwd}): ${(err.stderr || err.message).trim()}`);
    }
  }

  /** The full commit id a revision names; fails clearly when it names no commit. */
  async resolve(revision: string): Promise<string> {
    if (revision.startsWith('-')) throw new GitError(`revision ${JSON.stringify(revision)} may not start with "-"`);
    return (await this.git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`]).catch(() => {
      throw new GitError(`${JSON.stringify(revision)} is not a commit in ${this.cwd}`);
    })).trim();
  }

  /** Where the repository came from (remote origin URL), else its directory. */
  async identity(): Promise<string> {
    try {
      return (await this.git(['config', '--get', 'remote.origin.url'])).trim() || this.cwd;
    } catch {
      return this.cwd;
    }
  }

  /** Every blob of the commit's tree, with sizes (`-l`), NUL-separated so odd file names survive. */
  async lsTree(commit: string): Promise<TreeEntry[]> {
    const out = await this.git(['ls-tree', '-r', '-l', '-z', '--full-tree', commit]);
    const entries: TreeEntry[] = [];
    for (const rec of out.split('\0')) {
      if (!rec) continue;
      const tab = rec.indexOf('\t');
      const [mode, type, oid, size] = rec.slice(0, tab).split(/\s+/);
      if (type !== 'blob') continue; // submodules (commit) carry no text here
      entries.push({ mode, oid, path: rec.slice(tab + 1), bytes: Number(size) });
    }
    return entries;
  }

  /** Blob contents by object id, through one `git cat-file --batch` process. */
  async readBlobs(oids: readonly string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(oids)];
    const result = new Map<string, Buffer>();
    if (unique.length === 0) return result;
    const child = spawn('git', ['cat-file', '--batch'], { cwd: this.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code ?? 1));
    });
    child.stdin.end(unique.join('\n') + '\n');
    const code = await done;
    if (code !== 0) throw new GitError(`git cat-file --batch (in ${this.cwd}) exited ${code}: ${stderr.trim()}`);
    const buf = Buffer.concat(chunks);
    let pos = 0;
    for (const oid of unique) {
      const nl = buf.indexOf(0x0a, pos);
      const header = buf.subarray(pos, nl).toString();
      const [gotOid, type, size] = header.split(' ');
      if (type === 'missing' || gotOid !== oid) throw new GitError(`object ${oid} missing from ${this.cwd}`);
      const n = Number(size);
      result.set(oid, buf.subarray(nl + 1, nl + 1 + n));
      pos = nl + 1 + n + 1; // content, then a newline
    }
    return result;
  }

  /**
   * The paths among `paths` that the `.gitignore` files committed in `tree` ignore, each with the rule that
   * did (`build/.gitignore:3:*.js`). Git's own matching, not a re-implementation: the commit's .gitignore
   * files are written into an empty scratch repository and `git check-ignore --no-index` asked there (the
   * working tree's ignore files, the user's global excludes and .git/info/exclude play no part). A path
   * whose last matching rule is a negation (`!keep.js`) is not ignored.
   */
  async ignoredAt(tree: readonly TreeEntry[], paths: readonly string[]): Promise<Map<string, string>> {
    const ignoreFiles = tree.filter((e) => e.path === '.gitignore' || e.path.endsWith('/.gitignore'));
    const out = new Map<string, string>();
    if (!ignoreFiles.length || !paths.length) return out;
    const blobs = await this.readBlobs(ignoreFiles.map((e) => e.oid));
    const scratch = mkdtempSync(join(tmpdir(), 'execretrieval-ignore-'));
    try {
      await execFileP('git', ['init', '-q'], { cwd: scratch });
      writeFileSync(join(scratch, '.git', 'info', 'exclude'), '');
      for (const e of ignoreFiles) {
        mkdirSync(dirname(join(scratch, e.path)), { recursive: true });
        writeFileSync(join(scratch, e.path), blobs.get(e.oid)!);
      }
      const child = spawn('git', ['-c', 'core.excludesFile=/dev/null', 'check-ignore', '--no-index', '-v', '-z', '--stdin'], { cwd: scratch, stdio: ['pipe', 'pipe', 'pipe'] });
      const chunks: Buffer[] = [];
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => chunks.push(d));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (c) => resolve(c ?? 1));
        child.stdin.end(paths.join('\0') + '\0');
      });
      // Exit 1: nothing ignored. Anything else but 0 is a failure.
      if (code !== 0 && code !== 1) throw new GitError(`git check-ignore (for ${this.cwd}'s .gitignore files) exited ${code}: ${stderr.trim()}`);
      const f = Buffer.concat(chunks).toString('utf8').split('\0');
      for (let i = 0; i + 3 < f.length; i += 4) {
        const [source, line, pattern, path] = f.slice(i, i + 4);
        if (!pattern.startsWith('!')) out.set(path, `${source}:${line}:${pattern}`);
      }
      return out;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
}
