// MultiPL-E's check programs (JavaScript, TypeScript, Go) as calls suites: the converter on the fixture and on
// hand-made hostile records, then the fixture through the CLI (import multipl-e → run --profile check) with
// every accepted snippet judged again by MultiPL-E's own way of running it (prompt-less program + test program,
// node / go test), none of the project's code: each canonical passes, each twin fails.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { main } from '../../cli/main.ts';
import { modelRoot, projectRoot } from '../../activities/paths.ts';
import { goCacheDir } from '../../activities/exec/callsBuild.ts';
import { importMultiplE } from '../../activities/importers/multiplE.ts';
import { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';

const dir = mkdtempSync(join(tmpdir(), 'multipl-e-'));
const fixtures = join(projectRoot(), 'test', 'fixtures', 'multipl-e');
const fixture = (lang: string) => join(fixtures, `multipl-e-${lang}.jsonl`);
const saved = { state: process.env.EXECRETRIEVAL_STATE_DIR, gocache: process.env.EXECRETRIEVAL_GOCACHE };
before(() => {
  // This test's own execution and mutation caches; the Go build cache stays the machine's (warm: compiling Go's
  // runtime again would be most of the test's time, and it holds no verdict). Models too: the static model's weights are the checkout's (the run embeds with it).
  process.env.EXECRETRIEVAL_GOCACHE = goCacheDir();
  mkdirSync(join(dir, 'state'));
  symlinkSync(realpathSync(modelRoot()), join(dir, 'state', 'models'));
  process.env.EXECRETRIEVAL_STATE_DIR = join(dir, 'state');
});
after(() => {
  for (const [k, v] of [['EXECRETRIEVAL_STATE_DIR', saved.state], ['EXECRETRIEVAL_GOCACHE', saved.gocache]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dir, { recursive: true, force: true });
});

const records = (lang: string) => readFileSync(fixture(lang), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);

test('the fixture: each language converted to calls, unconvertible and solution-less records rejected with file, line and field', async () => {
  const js = await importMultiplE(fixture('js'));
  assert.deepEqual(js.rejections.map((r) => [r.line, r.task_id, r.field, r.code]), [
    [7, 'js_Curated_6_double_all', 'tests', 'TESTS_NOT_CONVERTIBLE'],
    [8, 'js_Curated_7_last_element', 'canonical_solution', 'NO_SOLUTION'],
  ]);
  assert.match(js.rejections[0].message, /line 6: "for \(const \[x, want\]/);
  assert.equal(js.tasks.length, 6);
  const words = js.tasks.find((t) => t.task.function_name === 'word_lengths')!.task;
  assert.equal(words.language, 'javascript');
  // Escapes decoded as JavaScript reads them: "tab\t" is four characters, "\u00e9t\u00e9" is "été".
  assert.deepEqual(words.tests.kind === 'calls' && words.tests.calls[3], { args: [['tab\t', 'été']], expected: { 'tab\t': 4, 'été': 3 } });
  // The query is the prompt's comment; the stored code is the function alone, so no snippet carries the query.
  assert.match(words.query, /^Map each distinct word of the list to its length\.\n>>> word_lengths/);
  assert.ok(words.canonical.startsWith('function word_lengths(words){') && !words.canonical.includes('//'));

  const tsr = await importMultiplE(fixture('ts'));
  assert.deepEqual(tsr.rejections, []);
  assert.deepEqual(tsr.tasks.map((t) => [t.task.task_id, t.task.language]), [['ts_Curated_0_count_vowels', 'typescript'], ['ts_Curated_1_clamp_all', 'typescript']]);
  const clamp = tsr.tasks[1].task;
  assert.deepEqual(clamp.tests.kind === 'calls' && clamp.tests.calls[2], { args: [[-1.5, 0.5], -1, 1], expected: [-1, 0.5] });

  const go = await importMultiplE(fixture('go'));
  assert.deepEqual(go.rejections.map((r) => [r.line, r.task_id, r.field, r.code]), [[8, 'go_Curated_7_square', 'tests', 'TESTS_NOT_CONVERTIBLE']]);
  assert.match(go.rejections[0].message, /"len\(\\"abc\\"\)" is not a literal/);
  const join_ = go.tasks.find((t) => t.task.function_name === 'join_ints')!.task;
  // The package clause and the unused `testing` import are gone; `fmt`, which the function calls, stays.
  assert.ok(join_.canonical.startsWith('import "fmt"\n\nfunc join_ints(lst []int, sep string) string {'), join_.canonical);
  const counts = go.tasks.find((t) => t.task.function_name === 'letter_counts')!.task;
  assert.ok(counts.canonical.startsWith('func letter_counts('), 'no import when the function uses none');
  assert.deepEqual(counts.tests.kind === 'calls' && counts.tests.calls.slice(0, 2), [{ args: [''], expected: {} }, { args: ['aba'], expected: { a: 2, b: 1 } }]);
  const rotate = go.tasks.find((t) => t.task.function_name === 'rotate_left')!.task;
  assert.deepEqual(rotate.tests.kind === 'calls' && rotate.tests.calls.map((c) => c.args[1]), [3, 1, 4, 6, -1, 5]);
});

test('anything but the format\'s plain cases is refused, naming the record and what in it; the rest of the file is kept', async () => {
  const [js] = records('js');
  const [go] = records('go');
  const file = join(dir, 'hostile.jsonl');
  const variants: Record<string, string>[] = [
    // A statement beside the cases could change what passing means (here: a candidate replaced before the asserts).
    { ...js, name: 'extra_statement', tests: js.tests.replace('function test() {', 'function test() {\n  count_distinct_letters = () => 0;') },
    // A test that computes its expected value runs code the judge would have to run.
    { ...js, name: 'computed_expected', tests: js.tests.replace('assert.deepEqual(candidate("Hello"),4);', 'assert.deepEqual(candidate("Hello"),2 + 2);') },
    // A case that asserts on something other than the candidate's result.
    { ...js, name: 'other_subject', tests: js.tests.replace('assert.deepEqual(candidate("Hello"),4);', 'assert.deepEqual(Math.max(4),4);') },
    // Go: a comparison other than MultiPL-E's %v one means other tests.
    { ...go, name: 'other_loop', tests: go.tests.replace('fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected)', 'false') },
    // Go: a struct value the calls harness cannot pass as data.
    { ...go, name: 'struct_arg', tests: go.tests.replace('candidate([]int{5})', 'candidate(point{1, 2})') },
    { ...js, name: 'unknown_language', language: 'rb' },
    // JS values the converter must read exactly: negatives, undefined as null, template strings, nested objects.
    // Go: a helper the solution declares after the function stays in the snippet, with the import it uses.
    { ...go, name: 'helper', canonical_solution: go.canonical_solution.replace('return sum', 'return twice(sum) / 2') + 'func twice(x int) int {\n    return len(fmt.Sprint(x)) * 0 + 2 * x\n}\n' },
    { ...js, name: 'values', tests: js.tests.replace('assert.deepEqual(candidate("Hello"),4);', 'assert.deepEqual(candidate(`Hel\\x6co`, -2.5, undefined, {"a": [1, {b: null}]}),-4);') },
  ];
  writeFileSync(file, variants.map((v) => JSON.stringify(v)).join('\n') + '\n');
  const r = await importMultiplE(file);
  const why = Object.fromEntries(r.rejections.map((x) => [x.task_id, `${x.line} ${x.field} ${x.code} ${x.message}`]));
  assert.match(why.js_extra_statement, /^1 tests TESTS_NOT_CONVERTIBLE line 5: "count_distinct_letters = \(\) => 0;" is not assert\.deepEqual/);
  assert.match(why.js_computed_expected, /^2 tests TESTS_NOT_CONVERTIBLE line 7: "2 \+ 2" is not a literal/);
  assert.match(why.js_other_subject, /^3 tests TESTS_NOT_CONVERTIBLE .*Math\.max\(4\)/);
  assert.match(why.go_other_loop, /^4 tests TESTS_NOT_CONVERTIBLE .*"for i, tc := range tests/);
  assert.match(why.go_struct_arg, /^5 tests TESTS_NOT_CONVERTIBLE .*"point\{1, 2\}" is not a literal/);
  assert.match(why.rb_unknown_language, /^6 language UNKNOWN_LANGUAGE "rb" is not one this importer converts \(known: js, ts, go_test\.go\)/);
  assert.deepEqual(r.tasks.map((t) => t.task.task_id), ['go_helper', 'js_values']);
  assert.match(r.tasks[0].task.canonical, /^import "fmt"\n\nfunc sum_even_positions\([\s\S]*\nfunc twice\(x int\) int \{/);
  const calls = r.tasks[1].task.tests.kind === 'calls' ? r.tasks[1].task.tests.calls : [];
  assert.deepEqual(calls[1], { args: ['Hello', -2.5, null, { a: [1, { b: null }] }], expected: -4 });
});

test('MultiPL-E\'s evaluator output: a directory of .results.json(.gz) files gives each problem the first completion that passed; completions never run, or none passed, are rejected with what to do', async () => {
  const results = join(fixtures, 'results');
  const r = await importMultiplE(results);
  // Curated_7_last_element.json (completions) is skipped: its .results.json is beside it.
  assert.deepEqual(r.tasks.map((t) => [t.task.task_id, t.task.metadata?.solution, t.file.split('/').pop()]), [
    ['js_Curated_7_last_element', 'results[1]', 'Curated_7_last_element.results.json'],
    ['go_Curated_2_longest_equal_streak', 'results[0]', 'Curated_2_longest_equal_streak.results.json.gz'],
  ].sort((a, b) => a[2]!.localeCompare(b[2]!)));
  const last = r.tasks.find((t) => t.task.function_name === 'last_element')!.task;
  // results[0] (the stub, status Exception) is passed over; the canonical is results[1]'s completion.
  assert.equal(last.canonical, 'function last_element(lst){\n  return lst[lst.length - 1];\n}\n');
  assert.deepEqual(last.tests.kind === 'calls' && last.tests.calls, [{ args: [[1, 2]], expected: 2 }, { args: [[5]], expected: 5 }]);
  const streak = r.tasks.find((t) => t.task.function_name === 'longest_equal_streak')!.task;
  const [fromJsonl] = (await importMultiplE(fixture('go'))).tasks.filter((t) => t.task.function_name === 'longest_equal_streak');
  assert.deepEqual({ ...streak, metadata: undefined }, { ...fromJsonl.task, metadata: undefined }, 'the same task as from the record with its canonical_solution');
  const why = Object.fromEntries(r.rejections.map((x) => [x.task_id, `${x.file.split('/').pop()}:${x.line} ${x.field} ${x.code} ${x.message}`]));
  assert.deepEqual(Object.keys(why).sort(), ['js_Curated_1_running_max', 'js_Curated_4_pairs_with_difference']);
  assert.match(why.js_Curated_4_pairs_with_difference, /^Curated_4_pairs_with_difference\.results\.json:1 canonical_solution NO_SOLUTION none of the 2 results of MultiPL-E's evaluator passed/);
  assert.match(why.js_Curated_1_running_max, /^Curated_1_running_max\.json:1 canonical_solution NO_SOLUTION 1 completions not yet run: run MultiPL-E's evaluator on them and import its \.results\.json files/);

  // A result marked OK whose program is not prompt + completion + tests of this record is not taken; a damaged
  // file is one rejection naming it, and the directory's other files are still read.
  const damaged = join(dir, 'damaged');
  mkdirSync(damaged);
  const rec = JSON.parse(readFileSync(join(results, 'Curated_7_last_element.results.json'), 'utf8'));
  rec.results = [{ ...rec.results[1], program: rec.results[1].program.replace('function test()', 'function test2()') }];
  writeFileSync(join(damaged, 'a.results.json'), JSON.stringify(rec));
  writeFileSync(join(damaged, 'b.results.json'), '{"name": "cut off", ');
  writeFileSync(join(damaged, 'c.results.json.gz'), 'not gzip');
  writeFileSync(join(damaged, 'notes.txt'), 'not a record file');
  const d = await importMultiplE(damaged);
  assert.deepEqual(d.tasks, []);
  assert.deepEqual(d.rejections.map((x) => [x.file.split('/').pop(), x.line, x.code]), [['a.results.json', 1, 'NO_SOLUTION'], ['b.results.json', 1, 'INVALID_JSON'], ['c.results.json.gz', 1, 'UNREADABLE_FILE']]);
  assert.match(d.rejections[2].message, /c\.results\.json\.gz: named \.gz but not gzip/);
  // The same file given alone: the import stops with its line (the CLI prints it, exit 1).
  await assert.rejects(importMultiplE(join(damaged, 'c.results.json.gz')), /named \.gz but not gzip/);
});

/** The CLI as bin/execretrieval.js runs it (main, with its one-line error handler): exit code and stderr. */
async function cli(...args: string[]) {
  const err: string[] = [];
  const { log } = console;
  const write = process.stderr.write.bind(process.stderr);
  const savedCode = process.exitCode;
  process.exitCode = undefined;
  console.log = () => {};
  process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    await main(['node', 'execretrieval', ...args]);
    return { code: process.exitCode ?? 0, err: err.join('') };
  } finally {
    console.log = log;
    process.stderr.write = write;
    process.exitCode = savedCode;
  }
}

/**
 * MultiPL-E's evaluation of a snippet, outside the project: JS as CommonJS under node, TS compiled to CommonJS
 * first, Go as `<pkg>_test.go` under `go test` (every Go snippet its own package of one module, one `go test`).
 */
function judgeAsMultiplE(snippets: { key: string; language: string; code: string; tests: string }[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const root = join(dir, 'judge');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'go.mod'), 'module judge\n\ngo 1.22\n');
  const goPackages: string[] = [];
  snippets.forEach((s, i) => {
    if (s.language === 'go') {
      const pkg = `p${i}`;
      mkdirSync(join(root, pkg));
      const imports = ['"testing"', ...(/^import "fmt"/m.test(s.code) ? [] : ['"fmt"'])].map((p) => `import ${p}\n`).join('');
      writeFileSync(join(root, pkg, 'x_test.go'), `package ${pkg}_test\n\n${imports}${s.code}\n${s.tests}`);
      goPackages.push(pkg);
      return;
    }
    const program = `${s.code}\n${s.tests}`;
    const js = s.language === 'typescript' ? ts.transpileModule(program, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText : program;
    writeFileSync(join(root, `${i}.cjs`), js);
    out.set(s.key, spawnSync(process.execPath, [join(root, `${i}.cjs`)], { timeout: 10_000 }).status === 0);
  });
  const go = spawnSync('go', ['test', '-count=1', '-vet=off', ...goPackages.map((p) => `./${p}`)], { cwd: root, encoding: 'utf8', timeout: 300_000, env: { ...process.env, GOFLAGS: '-mod=mod' } });
  snippets.forEach((s, i) => {
    if (s.language !== 'go') return;
    const line = go.stdout.split('\n').find((l) => new RegExp(`\\sjudge/p${i}\\b`).test(l)) ?? '';
    assert.ok(/^(ok|FAIL)\s/.test(line), `go test said nothing of package p${i}: ${go.stdout.slice(-400)}${go.stderr.slice(-400)}`);
    out.set(s.key, line.startsWith('ok'));
  });
  return out;
}

test('import multipl-e → run --profile check: every language in one pool and in its own report block, every verdict MultiPL-E\'s own', async () => {
  const tasks = join(dir, 'tasks');
  mkdirSync(tasks);
  for (const lang of ['js', 'ts', 'go']) {
    const r = await cli('import', 'multipl-e', fixture(lang), '--out', join(tasks, `${lang}.jsonl`));
    // Rejected records are listed one line each and make the exit code 1; the others are written.
    assert.equal(r.code, lang === 'ts' ? 0 : 1, r.err);
    assert.equal((r.err.match(/^rejected /gm) ?? []).length, { js: 2, ts: 0, go: 1 }[lang]);
  }
  const runDir = join(dir, 'run');
  const out = join(runDir, 'benchmark');
  const ran = await cli('run', '--source', tasks, '--run', runDir, '--profile', 'check', '--configs', 'local-static-64', '--replicates', '200', '-q');
  // 1: a record rejected by the build (letter_counts: its two mutants only crash), the rest scored; --quiet keeps
  // the lines that say why.
  assert.equal(ran.code, 1, ran.err);
  assert.match(ran.err, /^warning: build rejected 1 of 15 records/m);
  const queries = readFileSync(join(out, 'queries.jsonl'), 'utf8').trim().split('\n').map((l) => QueryRecord.parse(JSON.parse(l)));
  const corpus = new Map(readFileSync(join(out, 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => CorpusRecord.parse(JSON.parse(l))).map((c) => [c.corpus_id, c]));
  const byLanguage = (l: string) => queries.filter((q) => q.language === l).length;
  // Every language is in the pool, and most tasks hold twins (the default operators on these small functions).
  assert.ok(byLanguage('javascript') >= 5 && byLanguage('typescript') === 2 && byLanguage('go') >= 5, JSON.stringify(queries.map((q) => q.language)));
  const twins = queries.reduce((n, q) => n + q.distractor_corpus_ids.length, 0);
  assert.ok(twins >= 2 * queries.length, `${twins} twins for ${queries.length} queries`);

  // The original test programs, by the task's function name and language.
  const original = new Map<string, string>();
  for (const lang of ['js', 'ts', 'go']) for (const r of records(lang)) original.set(`${lang === 'go' ? 'go' : lang === 'ts' ? 'typescript' : 'javascript'}:${r.prompt.match(/func(?:tion)? (\w+)\(/)![1]}`, r.tests);
  const snippets = queries.flatMap((q) => [...q.correct_corpus_ids, ...q.distractor_corpus_ids].map((id) => {
    const c = corpus.get(id)!;
    return { key: id, language: q.language!, code: c.code, tests: original.get(`${q.language}:${q.function_name}`)!, canonical: q.correct_corpus_ids.includes(id) };
  }));
  const verdicts = judgeAsMultiplE(snippets);
  for (const s of snippets) assert.equal(verdicts.get(s.key), s.canonical, `${s.key} (${s.language}, ${s.canonical ? 'canonical' : 'twin'}) under MultiPL-E's own program:\n${s.code}`);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  assert.equal(report.yield.total.selected, twins);
  assert.deepEqual(report.rejections.map((r: { task_id: string; stage: string; code: string }) => [r.task_id, r.stage, r.code]), [['go_Curated_6_letter_counts', 'mutation', 'NO_VERIFIED_MUTANT']]);
  // The report: every language's block beside the pooled numbers, each over its own queries.
  const summary = JSON.parse(readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'));
  assert.deepEqual(summary.languages, ['go', 'javascript', 'typescript']);
  for (const config of ['bm25', 'local-static-64']) {
    for (const l of summary.languages) assert.equal(summary.estimates[config][`lang:${l}:exec@1`].support, byLanguage(l), `${config} ${l}`);
    assert.equal(summary.estimates[config]['exec@1'].support, queries.length);
  }
});
