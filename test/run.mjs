#!/usr/bin/env node
// Node 20's test runner takes no globs: collect test/**/*.test.ts (or the paths given) and hand them over.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'fixtures' ? [] : collect(p);
    return name.endsWith('.test.ts') ? [p] : [];
  });
}
const args = process.argv.slice(2);
const files = (args.length ? args : collect(join(root, 'test'))).sort();
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(r.status ?? 1);
