import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkFile } from '../../activities/repo/indexBuild.ts';
import { fileCoverage } from '../../core/repo/coverage.ts';
import type { Chunk } from '../../schemas/repoIndex.ts';
import type { GoldCase } from '../../schemas/gold.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { evalOne, indexAt, tmpDir } from './helpers.ts';
import { cli } from './cliHarness.ts';

/** Config files chunked by key path, so a target can name the field it asks for. */
const REV = 'c'.repeat(40);

const deps = Array.from({ length: 40 }, (_, i) => `    "dep-${i}": "^${i}.0.0"`).join(',\n');
const PACKAGE_JSON = `{
  "name": "demo",
  "version": "1.2.3",
  "scripts": {
    "build": "tsc -p .",
    "test": "node --test"
  },
  "dependencies": {
${deps}
  },
  "engines": {
    "node": ">=20"
  }
}
`;

function tiles(src: string, chunks: readonly Chunk[]) {
  assert.deepEqual(fileCoverage(src, chunks).uncovered, []);
  for (const c of chunks) assert.equal(Buffer.from(src).subarray(c.start_byte, c.end_byte).toString(), c.text, c.chunk_id);
  for (let i = 1; i < chunks.length; i++) assert.ok(chunks[i].start_byte >= chunks[i - 1].end_byte, `${chunks[i].chunk_id} overlaps`);
}

test('JSON (package.json, JSONC tsconfig): one chunk per top-level key, nested keys as key paths', async () => {
  const chunks = await chunkFile('package.json', PACKAGE_JSON, REV);
  tiles(PACKAGE_JSON, chunks);
  assert.deepEqual(chunks.map((c) => c.symbols[0]), ['name', 'version', 'scripts', 'dependencies', 'engines']);
  const engines = chunks.find((c) => c.symbols[0] === 'engines')!;
  assert.deepEqual(engines.symbols, ['engines', 'engines.node']);
  assert.equal(engines.text, '  "engines": {\n    "node": ">=20"\n  }\n}');
  assert.deepEqual(chunks.find((c) => c.symbols[0] === 'scripts')!.symbols, ['scripts', 'scripts.build', 'scripts.test']);
  assert.ok(chunks.every((c) => c.role === 'config' && c.language === 'json'));

  const tsconfig = '{\n  // comments are allowed here\n  "compilerOptions": {\n    "strict": true, /* yes */\n  },\n  "include": ["src"]\n}\n';
  const t = await chunkFile('tsconfig.json', tsconfig, REV);
  tiles(tsconfig, t);
  assert.deepEqual(t.map((c) => c.symbols), [['compilerOptions', 'compilerOptions.strict'], ['include']]);
  // Not keyed config (a top-level array): the plain-text chunker, still covered.
  const arr = '[\n  1,\n  2\n]\n';
  const a = await chunkFile('data/list.json', arr, REV);
  assert.deepEqual(fileCoverage(arr, a).uncovered, []);
  assert.deepEqual(a[0].symbols, []);
});

test('YAML and TOML: top-level keys and tables, comments above a key go with it', async () => {
  const yaml = '# CI workflow\nname: ci\non:\n  push:\n    branches: [main]\n  pull_request: {}\n\n# the jobs\njobs:\n  test:\n    runs-on: ubuntu-latest\n';
  const y = await chunkFile('.github/workflows/ci.yml', yaml, REV);
  tiles(yaml, y);
  assert.deepEqual(y.map((c) => c.symbols), [['name'], ['on', 'on.push', 'on.pull_request'], ['jobs', 'jobs.test']]);
  assert.match(y[2].text, /^# the jobs\njobs:/);
  const toml = '[build-system]\nrequires = ["hatchling"]\n\n[project]\nname = "demo"\nversion = "1.0"\n';
  const t = await chunkFile('pyproject.toml', toml, REV);
  tiles(toml, t);
  assert.deepEqual(t.map((c) => c.symbols), [['build-system', 'build-system.requires'], ['project', 'project.name', 'project.version']]);
  assert.ok(t.every((c) => c.language === 'toml' && c.role === 'config'));
});

const r = new FixtureRepo();
after(() => r.cleanup());

test('a target naming a package.json field passes only on the chunk that holds it, and the gate sees the difference', async () => {
  const rev = r.commit('fixture', { 'package.json': PACKAGE_JSON, 'src/index.ts': 'export const x = 1;\n' });
  const index = await indexAt(r.dir, rev);
  const base: GoldCase = {
    id: 'engines',
    query: 'which node version does the package support (engines)?',
    repositoryRevision: rev,
    evidence: [{ id: 'field', anyOf: [{ file: 'package.json', symbol: 'engines', roles: ['config'] }] }],
    forbiddenPathPrefixes: [],
    cutoff: 1,
    queryClass: 'configuration',
    rationale: 'engines.node is the supported range',
  };
  const good = await evalOne(r.dir, index, base);
  assert.equal(good.result.passed, true, good.result.diagnosis);
  // A query that lands on another part of package.json (the dependency list): with text windows and a
  // file-level target this was a pass; the key-path target fails it.
  const wrong = await evalOne(r.dir, index, { ...base, id: 'deps', query: 'dep-3 dep-7 dep-11 dep-20 version ranges' });
  assert.equal(wrong.evaluated.record.candidates_after_rerank[0].symbols[0], 'dependencies');
  assert.equal(wrong.result.passed, false);
  const fileLevel = await evalOne(r.dir, index, { ...base, id: 'deps-file', query: 'dep-3 dep-7 dep-11 dep-20 version ranges', evidence: [{ id: 'file', anyOf: [{ file: 'package.json', roles: ['config'] }] }] });
  assert.equal(fileLevel.result.passed, true, 'a file-level target still accepts any chunk of the file: name the key');

  // Through the CLI and the gate: the run with the key-path target fails the gate.
  const work = tmpDir('execretrieval-config-');
  const cases = join(work, 'cases.jsonl');
  writeFileSync(cases, JSON.stringify({ ...base, id: 'deps', query: 'dep-3 dep-7 dep-11 dep-20 version ranges' }) + '\n');
  const ix = join(work, 'index');
  assert.equal((await cli('index', '--repo', r.dir, '--rev', rev, '--out', ix)).code, 0);
  const run = join(work, 'run');
  assert.equal((await cli('eval', '--index', ix, '--cases', cases, '--retrievers', 'bm25', '--variants', 'plain', '--out', run)).code, 0);
  const g = await cli('gate', '--run', run, '--retriever', 'bm25', '--min-evidence', '1');
  assert.equal(g.code, 1);
  assert.match(g.out, /FAIL {2}required evidence at cutoff: 0\.0% \(0\/1\)/);
});

test('keys come from real keys only: arrays of requirement strings, multi-line strings and block scalars invent none', async () => {
  const pyproject = `[build-system]
requires = ["hatchling", "hatch-fancy-pypi-readme"]
build-backend = "hatchling.build"

[project]
name = "httpx"
description = """
A next-generation HTTP client.
timeout = 5
"""
dependencies = [
    "certifi",
    "httpcore==1.*",
    "idna",
]
"quoted.key" = 1

[project.optional-dependencies]
brotli = [
  "brotli; platform_python_implementation == 'CPython'",
  "brotlicffi; platform_python_implementation != 'CPython'",
]
cli = [
"click==8.*",
"pygments==2.*",
"rich>=10,<14",
]
http2 = ["h2>=3,<5"]
`;
  const toml = await chunkFile('pyproject.toml', pyproject, REV);
  tiles(pyproject, toml);
  assert.deepEqual(toml.map((c) => c.symbols), [
    ['build-system', 'build-system.requires', 'build-system.build-backend'],
    ['project', 'project.name', 'project.description', 'project.dependencies', 'project.quoted.key'],
    ['project.optional-dependencies', 'project.optional-dependencies.brotli', 'project.optional-dependencies.cli', 'project.optional-dependencies.http2'],
  ]);

  const pkg = `{
  "name": "web",
  "files": ["dist", "a==b", "x=y"],
  "bundleDependencies": [
    "left-pad==1.3.0",
    "key: value"
  ],
  "overrides": { "semver": "7.5.2" }
}
`;
  const json = await chunkFile('package.json', pkg, REV);
  tiles(pkg, json);
  assert.deepEqual(json.map((c) => c.symbols), [['name'], ['files'], ['bundleDependencies'], ['overrides', 'overrides.semver']]);

  const workflow = `name: ci
env:
  PIP_REQS: "httpx==0.27"
jobs:
  test:
    steps:
      - run: |
          echo key: value
          pip install httpcore==1.0
description: >
  timeout: 5
  retries = 3
requirements:
  - "click==8.*"
  - rich>=10
`;
  const yaml = await chunkFile('.github/ci.yml', workflow, REV);
  tiles(workflow, yaml);
  assert.deepEqual(yaml.map((c) => c.symbols), [['name'], ['env', 'env.PIP_REQS'], ['jobs', 'jobs.test'], ['description'], ['requirements']]);
});
