import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixtureRepo } from './fixtureRepo.ts';
import { tmpDir } from './helpers.ts';
import { cli } from './cliHarness.ts';
import { chunkFile } from '../../activities/repo/indexBuild.ts';

/**
 * The index is verified like a replay (a chunk's text must be what the revision holds at its bytes and
 * lines), no code is indexed as plain text without the user asking, and the smaller faults the issue found:
 * `repo eval` with every case refused, a replay's pass rate without its rejected records, duplicate chunks.
 */
const work = tmpDir('execretrieval-integrity-');
const goRepo = new FixtureRepo();
after(() => goRepo.cleanup());

const GO = {
  'go.mod': 'module example.com/kv\n\ngo 1.22\n',
  'kv/store.go': `package kv

import "errors"

// ErrMissing is returned by Get for a key never Put.
var ErrMissing = errors.New("kv: missing key")

// Store maps keys to values.
type Store struct {
	m map[string]string
}

// Get returns the value Put under key, or ErrMissing.
func (s *Store) Get(key string) (string, error) {
	v, ok := s.m[key]
	if !ok {
		return "", ErrMissing
	}
	return v, nil
}
`,
  'kv/store_test.go': `package kv

import "testing"

func TestGetMissing(t *testing.T) {
	if _, err := (&Store{}).Get("x"); err != ErrMissing {
		t.Fatal(err)
	}
}
`,
};
const rev = goRepo.commit('go module', GO);
const index = join(work, 'index');
const cases = join(work, 'cases.jsonl');
const goCase = {
  id: 'get-missing',
  query: 'Which error does Store.Get return for a key that was never Put?',
  repositoryRevision: rev,
  evidence: [{ id: 'def', anyOf: [{ file: 'kv/store.go', symbol: 'Store.Get', roles: ['definition'] }] }],
  cutoff: 1,
  queryClass: 'behaviour_description',
  rationale: 'Get is where ErrMissing is returned',
};

before(async () => {
  writeFileSync(cases, JSON.stringify(goCase) + '\n');
  const ix = await cli('index', '--repo', goRepo.dir, '--rev', rev, '--out', index);
  assert.equal(ix.code, 0, ix.err);
  assert.match(ix.out, /languages: go 23 lines \(structural\)/);
  assert.match(ix.out, /code indexed as plain text: 0\.0% \(0 of 23 code lines\)/);
});

test('a Go module gets named, structural chunks; the manifest lists each language and how it was chunked', () => {
  const manifest = JSON.parse(readFileSync(join(index, 'manifest.json'), 'utf8'));
  assert.deepEqual(manifest.languages, [
    { language: 'go', chunking: 'structural', files: 2, lines: 23 },
    { language: 'text', chunking: 'text', files: 1, lines: 2 },
  ]);
  assert.deepEqual(manifest.code_as_text, { lines: 0, code_lines: 23, languages: [], allowed: false });
  const chunks = readFileSync(join(index, 'chunks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const get = chunks.find((c) => c.symbols.includes('Store.Get'));
  assert.deepEqual([get.symbols, get.role, get.start_line], [['Get', 'Store.Get'], 'definition', 13]);
  assert.equal(chunks.find((c) => c.symbols.includes('TestGetMissing')).role, 'test');
});

test('a chunk whose text was edited in the index is refused with one line, left out of the ranking, and the gate fails', async () => {
  const clean = join(work, 'run-clean');
  const ev = await cli('eval', '--index', index, '--cases', cases, '--retrievers', 'bm25', '--variants', 'plain', '--out', clean);
  assert.equal(ev.code, 0, ev.err);
  assert.match((await cli('gate', '--run', clean, '--retriever', 'bm25', '--min-evidence', '0')).out, /PASS {2}index text matches the revision: every chunk verified/);

  // Plant the query's words in the ErrMissing chunk, which would then outrank Get: same build id, same lines.
  const path = join(index, 'chunks.jsonl');
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  const i = lines.findIndex((l) => JSON.parse(l).symbols.includes('ErrMissing'));
  const original = lines[i];
  const planted = JSON.parse(original);
  planted.text = planted.text.replace('returned by Get', 'Which error does Store.Get return for a key that was never Put? returned by Get');
  lines[i] = JSON.stringify(planted);
  writeFileSync(path, lines.join('\n') + '\n');
  const run = join(work, 'run-tampered');
  const t = await cli('eval', '--index', index, '--cases', cases, '--retrievers', 'bm25', '--variants', 'plain', '--out', run);
  assert.equal(t.code, 1);
  const refusals = t.err.split('\n').filter((l) => l.startsWith('refused chunk'));
  assert.deepEqual(refusals.length, 1, t.err);
  assert.match(refusals[0], new RegExp(`^refused chunk ${planted.chunk_id.replace(/[.]/g, '\\.')}: text hashes to [0-9a-f]{12}…, kv/store\\.go at ${rev.slice(0, 12)} holds [0-9a-f]{12}… at bytes \\d+-\\d+ \\(the index was edited\\)$`));
  const records = readFileSync(join(run, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(!records[0].candidates_before_rerank.some((c: { chunk_id: string }) => c.chunk_id === planted.chunk_id), 'the refused chunk ranks nowhere');
  const g = await cli('gate', '--run', run, '--retriever', 'bm25', '--min-evidence', '0');
  assert.equal(g.code, 1);
  assert.match(g.out, /FAIL {2}index text matches the revision: 1 chunk\(s\) refused: kv\/store\.go:\d+-\d+: text hashes to/);
  lines[i] = original; // the later tests use the index as built
  writeFileSync(path, lines.join('\n') + '\n');
});

test('repo index refuses a revision mostly in a language without a grammar (one line, exit 2) unless --allow-text-chunks', async () => {
  const kt = new FixtureRepo();
  try {
    const body = Array.from({ length: 30 }, (_, i) => `fun step${i}(x: Int): Int = x + ${i}`).join('\n');
    const krev = kt.commit('kotlin', { 'src/Main.kt': `package demo\n\n${body}\n`, 'tools/gen.py': 'def gen():\n    return 1\n' });
    const out = join(work, 'kt-index');
    const refused = await cli('index', '--repo', kt.dir, '--rev', krev, '--out', out);
    assert.equal(refused.code, 2);
    assert.deepEqual(refused.err.split('\n').filter((l) => l.startsWith('error:')).length, 1);
    assert.match(refused.err, /^error: most code at this revision is kotlin \(31 of 33 non-blank code lines\), which has no grammar here: .* pass --allow-text-chunks/m);
    const allowed = await cli('index', '--repo', kt.dir, '--rev', krev, '--out', out, '--allow-text-chunks');
    assert.equal(allowed.code, 0, allowed.err);
    assert.match(allowed.out, /code indexed as plain text: 93\.9% \(31 of 33 code lines: kotlin\)/);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    assert.deepEqual(manifest.code_as_text, { lines: 31, code_lines: 33, languages: ['kotlin'], allowed: true });
    const kcases = join(work, 'kt-cases.jsonl');
    writeFileSync(kcases, JSON.stringify({ ...goCase, id: 'gen', query: 'gen', repositoryRevision: krev, evidence: [{ id: 'g', anyOf: [{ file: 'tools/gen.py', symbol: 'gen', roles: ['definition'] }] }] }) + '\n');
    const run = join(work, 'kt-run');
    assert.equal((await cli('eval', '--index', out, '--cases', kcases, '--retrievers', 'bm25', '--variants', 'plain', '--out', run)).code, 0);
    assert.match(readFileSync(join(run, 'report.html'), 'utf8'), /<th>code as plain text<\/th><td>93\.9% \(31 of 33 code lines: kotlin\)<\/td>/);
    const shown = await cli('gate', '--run', run, '--retriever', 'bm25', '--min-evidence', '0');
    assert.match(shown.out, /PASS {2}code indexed as plain text: 93\.9% \(31 of 33 code lines: kotlin\)/);
    const gated = await cli('gate', '--run', run, '--retriever', 'bm25', '--min-evidence', '0', '--max-text-share', '0.1');
    assert.equal(gated.code, 1);
    assert.match(gated.out, /FAIL {2}code indexed as plain text: 93\.9% .* \(required <= 10\.0%\)/);
  } finally {
    kt.cleanup();
  }
});

test('repo eval exits non-zero when every case is refused', async () => {
  const foreign = join(work, 'foreign.jsonl');
  writeFileSync(foreign, JSON.stringify({ ...goCase, repositoryRevision: 'f'.repeat(40) }) + '\n');
  const ev = await cli('eval', '--index', index, '--cases', foreign, '--retrievers', 'bm25', '--variants', 'plain', '--out', join(work, 'run-foreign'));
  assert.equal(ev.code, 2);
  assert.match(ev.err, /^error: every gold case \(1\) was refused: none is pinned to the index's revision/m);
});

test('two pieces on the same lines are one chunk, not a duplicate with a `~1` id', async () => {
  const chunks = await chunkFile('src/one.ts', 'export const a = 1; export function b() { return a; }\n', 'a'.repeat(40));
  assert.deepEqual(chunks.map((c) => [c.chunk_id, c.symbols, c.role]), [['src/one.ts:1-1', ['a', 'b'], 'definition']]);
});
