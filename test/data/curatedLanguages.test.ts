import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMAINS } from '../../schemas/task.ts';
import { projectRoot } from '../../activities/paths.ts';

// The curated JavaScript/TypeScript and Go task sets (issue 35): ten domains, >= 6 tasks per domain and
// language, calls suites of 7-10 calls; the JS/TS canonicals pass their suites under node (TS through the
// typescript package's transpileModule), and the checker fails a wrong expected value. The Go set needs the go
// toolchain: `node data/tasks/curated-langs.mjs check go` (not run here). Also the MultiPL-E-format fixture.

const root = projectRoot();
const checker = join(root, 'data', 'tasks', 'curated-langs.mjs');

interface Call { args: unknown[]; expected?: unknown; throws?: string; approx?: number }
interface LangTask {
  task_id: string; language: string; query: string; function_name: string; domain: string; canonical: string;
  tests: { kind: string; calls: Call[] };
}

function load(dir: string): LangTask[] {
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort().flatMap((f) =>
    readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as LangTask));
}

const sets = [
  { dir: join(root, 'data', 'tasks', 'curated-javascript'), languages: { javascript: 'cur_js', typescript: 'cur_ts' } },
  { dir: join(root, 'data', 'tasks', 'curated-go'), languages: { go: 'cur_go' } },
] as const;

test('curated JS/TS and Go sets: one file per domain, >= 6 tasks per domain and set, ids, languages, 7-10 calls each', () => {
  for (const { dir, languages } of sets) {
    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort(), [...DOMAINS].map((d) => `${d}.jsonl`).sort());
    const tasks = load(dir);
    assert.ok(tasks.length >= 60, `${dir}: ${tasks.length} tasks`);
    for (const d of DOMAINS) assert.ok(tasks.filter((t) => t.domain === d).length >= 6, `${dir} ${d}`);
    for (const [language, prefix] of Object.entries(languages)) {
      assert.ok(tasks.some((t) => t.language === language), `${dir}: no ${language} task`);
      for (const d of DOMAINS) {
        const ids = tasks.filter((t) => t.language === language && t.domain === d).map((t) => t.task_id);
        assert.deepEqual(ids, ids.map((_, i) => `${prefix}_${d}_${String(i + 1).padStart(2, '0')}`), `${d} ${language}`);
      }
    }
    assert.equal(new Set(tasks.map((t) => `${t.language}:${t.function_name}`)).size, tasks.length, 'function names repeat');
    for (const t of tasks) {
      assert.ok(Object.hasOwn(languages, t.language), `${t.task_id} language ${t.language}`);
      assert.equal(t.tests.kind, 'calls', t.task_id);
      assert.ok(t.tests.calls.length >= 7 && t.tests.calls.length <= 10, `${t.task_id}: ${t.tests.calls.length} calls`);
      for (const c of t.tests.calls) {
        assert.ok(Array.isArray(c.args), t.task_id);
        assert.ok((c.expected === undefined) !== (c.throws === undefined), `${t.task_id}: expected xor throws`);
      }
      assert.ok(t.query.trim().endsWith('.'), `${t.task_id}: query is one sentence`);
      // The Go harness prepends `package main`; JS/TS canonicals are plain functions without imports or exports.
      if (t.language === 'go') assert.doesNotMatch(t.canonical, /^\s*package\b|func main\(/m, t.task_id);
      else assert.doesNotMatch(t.canonical, /^\s*(import|export)\b|module\.exports|require\(/m, t.task_id);
    }
  }
});

test('every JS/TS canonical passes its calls under node; a wrong expected value or a malformed record fails the check', () => {
  const ok = spawnSync(process.execPath, [checker, 'check', 'javascript'], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, /javascript: (\d+)\/\1 canonicals pass their calls/);

  const dir = mkdtempSync(join(tmpdir(), 'curated-js-'));
  try {
    cpSync(join(root, 'data', 'tasks', 'curated-javascript'), dir, { recursive: true });
    const file = join(dir, 'math_numerical.jsonl');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const rec = JSON.parse(lines[0]) as LangTask;
    const i = rec.tests.calls.findIndex((c) => typeof c.expected === 'number');
    rec.tests.calls[i].expected = (rec.tests.calls[i].expected as number) + 1;
    lines[0] = JSON.stringify(rec);
    lines[1] = '{"task_id": "cur_js_math_numerical_02", "language": "javascript"';
    writeFileSync(file, lines.join('\n') + '\n');
    const bad = spawnSync(process.execPath, [checker, 'check', '--dir', dir, 'javascript'], { encoding: 'utf8' });
    assert.equal(bad.status, 1, bad.stdout + bad.stderr);
    assert.match(bad.stdout, new RegExp(`FAIL ${rec.task_id}: calls ${i}\\b`));
    assert.match(bad.stderr, /math_numerical\.jsonl:2: not a JSON object/);
    assert.doesNotMatch(bad.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('MultiPL-E-format fixture: field names; each JS program passes with its canonical solution (where the record has one) and fails with the empty stub', () => {
  const fixture = join(root, 'test', 'fixtures', 'multipl-e');
  const fields = ['name', 'language', 'prompt', 'doctests', 'original', 'prompt_terminology', 'tests', 'stop_tokens', 'canonical_solution'];
  for (const [file, language] of [['multipl-e-js.jsonl', 'js'], ['multipl-e-go.jsonl', 'go_test.go']]) {
    const recs = readFileSync(join(fixture, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
    assert.ok(recs.length >= 5, file);
    for (const r of recs) {
      // A record without a solution is part of the fixture on purpose: the importer rejects it.
      const expected = 'canonical_solution' in r ? fields : fields.filter((f) => f !== 'canonical_solution');
      assert.deepEqual(Object.keys(r).sort(), [...expected].sort(), r.name);
      assert.equal(r.language, language);
      const entry = r.name.split('_').slice(2).join('_');
      assert.match(r.prompt, new RegExp(`\\bfunc(tion)? ${entry}\\(`), r.name);
      assert.match(r.tests, new RegExp(`candidate :?= ${entry}\\b`), r.name);
    }
    if (language !== 'js') continue;
    const dir = mkdtempSync(join(tmpdir(), 'multipl-e-js-'));
    try {
      for (const r of recs.filter((x) => 'canonical_solution' in x)) {
        const run = (completion: string) => {
          writeFileSync(join(dir, 'program.cjs'), r.prompt + completion + '\n' + r.tests);
          return spawnSync(process.execPath, ['program.cjs'], { cwd: dir, encoding: 'utf8' });
        };
        const good = run(r.canonical_solution);
        assert.equal(good.status, 0, `${r.name}: ${good.stderr}`);
        const stub = run('}\n');
        assert.notEqual(stub.status, 0, r.name);
        assert.match(stub.stderr, /AssertionError/, r.name);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});
