import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { lintProject } from '../../infra/lint/temporalRules.ts';

/** A throwaway project with the faults the rules exist for, and their allowed look-alikes. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'lint-'));
  const all = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, allowImportingTsExtensions: true, lib: ['es2022'], types: [] }, include: ['**/*.ts'] }),
    ...files,
  };
  for (const [p, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

test('workflow code: a Node built-in (directly or through a helper) and a value import of activities are found; type imports are not', () => {
  const root = project({
    'activities/work.ts': `export async function work(): Promise<number> { return 1; }\n`,
    'core/helper.ts': `import { join } from 'node:path';\nexport const j = (a: string) => join(a, 'x');\n`,
    'core/pure.ts': `export const twice = (n: number) => 2 * n;\n`,
    'workflows/ok.ts': `import type { work } from '../activities/work.ts';\nimport { twice } from '../core/pure.ts';\nexport type W = typeof work;\nexport const t = twice(2);\n`,
    'workflows/bad.ts': `import { readFileSync } from 'node:fs';\nimport { work } from '../activities/work.ts';\nimport { j } from '../core/helper.ts';\nexport const x = [readFileSync, work, j];\n`,
  });
  try {
    const found = lintProject(root).filter((f) => f.rule === 'workflow-import');
    assert.deepEqual(
      found.map((f) => `${f.file}:${f.line}`).sort(),
      ['core/helper.ts:1', 'workflows/bad.ts:1', 'workflows/bad.ts:2'],
    );
    assert.match(found.find((f) => f.file === 'core/helper.ts')!.message, /'node:path' reached from workflow code \(workflows\/bad\.ts → core\/helper\.ts\)/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('floating promises are found; awaited, returned, stored, void-marked and handled ones are not', () => {
  const root = project({
    'core/p.ts': [
      `async function f(): Promise<void> {}`,
      `let stored: Promise<void> | undefined;`,
      `export async function g(): Promise<void> {`,
      `  f();`, // line 4: floating
      `  f().then(() => 1);`, // line 5: floating (no rejection handler)
      `  await f();`,
      `  void f();`,
      `  stored ??= f();`,
      `  f().catch(() => undefined);`,
      `  f().then(() => 1, () => 2);`,
      `  return f();`,
      `}`,
    ].join('\n'),
  });
  try {
    const found = lintProject(root).filter((f) => f.rule === 'floating-promise');
    assert.deepEqual(found.map((f) => f.line), [4, 5]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
