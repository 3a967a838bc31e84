/**
 * Two commands starting in one state folder at once (issue 37): both saw the database free, both started a dev
 * server on it, and they raced on its SQLite file (SQLITE_BUSY). The database's lock file is created exclusively:
 * of two processes starting together exactly one runs a server, the other is refused at once with one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { PROJECT_ROOT } from '../../workers/registry.ts';

/** A stand-in for a CLI: starts a server on `db`, says READY or FAIL <message>, stops it on SIGTERM. */
function starter(db: string): { child: ChildProcess; said: Promise<string> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e',
      `import { startDevServer } from ${JSON.stringify(join(PROJECT_ROOT, 'infra/temporal/devServer.ts'))};
       try {
         const s = await startDevServer({ dbFile: ${JSON.stringify(db)} });
         process.on('SIGTERM', () => void s.stop().then(() => process.exit(0)));
         console.log('READY');
         setInterval(() => {}, 1 << 30);
       } catch (e) {
         console.log('FAIL ' + e.message);
         process.exit(1);
       }`],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const said = new Promise<string>((resolve) => child.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
    if (/^(READY|FAIL .*)$/m.test(out)) resolve(out.trim());
  }));
  return { child, said };
}

test('two processes starting a dev server on one database at once: one runs it, the other is refused with one line', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-lock-'));
  const db = join(dir, 'temporal.db');
  const both = [starter(db), starter(db)];
  try {
    const said = await Promise.all(both.map((s) => s.said));
    assert.deepEqual(said.map((s) => s.split(' ')[0]).sort(), ['FAIL', 'READY'], said.join('\n'));
    const fail = said.find((s) => s.startsWith('FAIL'))!;
    assert.match(fail, /temporal\.db is in use/);
    assert.doesNotMatch(fail, /SQLITE_BUSY|\n/);
  } finally {
    for (const s of both) {
      if (s.child.exitCode === null) {
        s.child.kill('SIGTERM');
        await once(s.child, 'exit');
      }
    }
  }
  assert.equal(existsSync(`${db}.lock`), false, 'the lock goes with the server');
  rmSync(dir, { recursive: true, force: true });
});
