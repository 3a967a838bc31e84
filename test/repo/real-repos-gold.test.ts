import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../activities/paths.ts';
import { loadGold } from '../../activities/repo/goldFiles.ts';

/**
 * The gold sets of the real Go module and Rust crate (data/real-repos/, evaluated by bench/real-repos.sh,
 * which fetches them from their registries: kept out of CI for speed): they parse, have at least 20 cases,
 * and are pinned to the commits the script makes (fixed author and date, so the same on every machine).
 */
const root = projectRoot();
const script = readFileSync(join(root, 'bench', 'real-repos.sh'), 'utf8');

for (const [file, commit, lang] of [
  ['uuid-v1.6.0.jsonl', 'ad648cdffaf9690f875e4fbc7caecfd2ef526836', 'go'],
  ['semver-1.0.23.jsonl', '8528cdd96487878b4ce06350399addc653dd4def', 'rust'],
] as const) {
  test(`${file}: at least 20 valid cases pinned to the scratch commit, targets in ${lang} definitions, tests and config`, () => {
    const gold = loadGold(join(root, 'data', 'real-repos', file));
    assert.deepEqual(gold.errors, []);
    assert.ok(gold.cases.length >= 20, `${gold.cases.length} cases`);
    assert.deepEqual([...new Set(gold.cases.map((c) => c.repositoryRevision))], [commit]);
    const roles = new Set(gold.cases.flatMap((c) => c.evidence.flatMap((g) => g.anyOf.flatMap((t) => t.roles))));
    assert.deepEqual([...roles].sort(), ['config', 'definition', 'test']);
    assert.ok(new Set(gold.cases.map((c) => c.queryClass)).size >= 4);
  });
}

test('the script pins each archive by sha256 and checks it', () => {
  assert.match(script, /^GO_ZIP_SHA=[0-9a-f]{64}$/m);
  assert.match(script, /^CRATE_SHA=[0-9a-f]{64}$/m);
  assert.equal((script.match(/sha256sum --check --quiet/g) ?? []).length, 2);
});
