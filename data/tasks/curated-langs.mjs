#!/usr/bin/env node
// Authoring tool for the curated JavaScript/TypeScript and Go task sets (issue 35): TRUSTED, hand-written code
// only. It is not the project's sandbox or judge; it runs each canonical with the real toolchain (node's vm for JS,
// the `typescript` package's transpileModule to strip TS types, `go build` per task with a reflect harness).
//
//   build [javascript|go]...      authoring/<domain>.mjs -> <domain>.jsonl; expected values come from running the
//                                 canonical (like data/tasks/curated/authoring/build.py), never typed by hand, except
//                                 the spot checks an authoring call may carry ({args, expected|throws}), which must agree
//   check [--mutants [--verbose]] [--task ID] [javascript|go]...
//                                 runs every canonical of the shipped .jsonl files against its `calls` suite
//                                 (pass/fail per task); --mutants also flips each operator / literal / edge-case `if`
//                                 in turn and counts the single-edit mutants that fail at least one call (--verbose
//                                 lists each mutant's verdict); --task checks one task; --dir DIR reads the set's
//                                 .jsonl files from DIR instead
//
// Exit status 0 when every task passes, 1 otherwise, 2 on usage errors. Output files are written atomically.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import vm from 'node:vm';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const require = createRequire(import.meta.url);

// Mirrors DOMAINS in schemas/task.ts.
const DOMAINS = [
  'bit_manipulation', 'collections', 'data_transformation', 'date_time', 'geometry',
  'math_numerical', 'sorting_searching', 'state_machines', 'string_processing', 'validation',
];
const SETS = {
  javascript: { dir: join(HERE, 'curated-javascript'), prefix: { javascript: 'cur_js', typescript: 'cur_ts' } },
  go: { dir: join(HERE, 'curated-go'), prefix: { go: 'cur_go' } },
};
const MIN_TESTS = 7;
const MAX_TESTS = 10;
const CALL_TIMEOUT_MS = 2000;

// ------------------------------------------------------------------------------------------------ JSON values

/** A plain JSON copy of a JS value; throws on values JSON cannot carry faithfully (NaN, Map, functions...). */
function toJson(v, path = '$') {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`${path}: ${v} is not a JSON number`);
    return Object.is(v, -0) ? 0 : v;
  }
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map((x, i) => toJson(x, `${path}[${i}]`));
  if (typeof v === 'object' && Object.getPrototypeOf(Object.getPrototypeOf(v) ?? {}) === null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x, `${path}.${k}`)]));
  }
  throw new Error(`${path}: ${Object.prototype.toString.call(v)} is not a JSON value`);
}

/** The suite's equality: numbers as numbers (within `approx` when given), key order ignored. */
function jsonEqual(a, b, approx) {
  if (typeof a === 'number' && typeof b === 'number') return approx === undefined ? a === b : Math.abs(a - b) <= approx;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i], approx));
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k], approx));
}

// An outcome is {value} | {throws} | {fault}: a fault (bad args, no such function, syntax error) is never a result.
function sameOutcome(call, out) {
  if (out.fault !== undefined) return false;
  if (call.throws !== undefined) return out.throws === call.throws;
  return out.throws === undefined && jsonEqual(call.expected, out.value, call.approx);
}

// ------------------------------------------------------------------------------------------------ JS and TS

let ts;
function stripTypes(code) {
  ts ??= require('typescript');
  const sf = ts.createSourceFile('t.ts', code, ts.ScriptTarget.ES2022, true);
  // Node's type stripping erases annotations only: enums, namespaces and parameter properties need codegen.
  const bad = [];
  const visit = (n) => {
    if (ts.isEnumDeclaration(n) || ts.isModuleDeclaration(n)) bad.push(ts.SyntaxKind[n.kind]);
    if (ts.isParameter(n) && n.modifiers?.some((m) => m.kind !== ts.SyntaxKind.Decorator)) bad.push('parameter property');
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (bad.length) throw new Error(`not erasable by type stripping: ${bad.join(', ')}`);
  const out = ts.transpileModule(code, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    reportDiagnostics: true,
  });
  if (out.diagnostics?.length) throw new Error(ts.flattenDiagnosticMessageText(out.diagnostics[0].messageText, ' '));
  return out.outputText;
}

/** Runs `name(...args)` for each call in a fresh context per call; returns one outcome per call. */
function runJs(language, code, name, argLists, timeout = CALL_TIMEOUT_MS) {
  let src;
  try {
    // Strict, as in the ES module the judge's harness exports the function from.
    src = `'use strict';\n${language === 'typescript' ? stripTypes(code) : code}`;
    new vm.Script(src);
  } catch (e) {
    return argLists.map(() => ({ fault: `does not compile: ${e.message}` }));
  }
  return argLists.map((args) => {
    const ctx = vm.createContext({ __args: JSON.stringify(args) });
    try {
      vm.runInContext(src, ctx, { timeout });
      if (vm.runInContext(`typeof ${name}`, ctx) !== 'function') return { fault: `no function ${name}` };
      const v = vm.runInContext(`${name}(...JSON.parse(__args))`, ctx, { timeout });
      try {
        return { value: toJson(v) };
      } catch (e) {
        return { fault: e.message };
      }
    } catch (e) {
      if (e?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { fault: 'timeout' };
      return { throws: e?.constructor?.name ?? typeof e };
    }
  });
}

// ------------------------------------------------------------------------------------------------ Go

const GO_HARNESS = (fnRefs) => `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
%IMPORTS%)

var harnessFns = []any{${fnRefs.join(', ')}}

// Decodes each call's args into the parameter types by reflect, calls, and prints one outcome per call.
func main() {
	which, _ := strconv.Atoi(os.Args[1])
	var calls [][]json.RawMessage
	if err := json.NewDecoder(os.Stdin).Decode(&calls); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fn := reflect.ValueOf(harnessFns[which])
	out := make([]json.RawMessage, 0, len(calls))
	for _, raw := range calls {
		// Encoded one call at a time: a result JSON cannot carry (NaN, a cycle) faults that call only.
		b, err := json.Marshal(harnessCall(fn, raw))
		if err != nil {
			b, _ = json.Marshal(map[string]any{"fault": "result not JSON: " + err.Error()})
		}
		out = append(out, b)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

func harnessCall(fn reflect.Value, raw []json.RawMessage) (res map[string]any) {
	t := fn.Type()
	if len(raw) != t.NumIn() {
		return map[string]any{"fault": fmt.Sprintf("%d args for %d parameters", len(raw), t.NumIn())}
	}
	args := make([]reflect.Value, len(raw))
	for i, r := range raw {
		p := reflect.New(t.In(i))
		if err := json.Unmarshal(r, p.Interface()); err != nil {
			return map[string]any{"fault": "arg " + strconv.Itoa(i) + ": " + err.Error()}
		}
		args[i] = p.Elem()
	}
	defer func() {
		if r := recover(); r != nil {
			res = map[string]any{"throws": "panic"}
		}
	}()
	outs := fn.Call(args)
	// A trailing error result is the outcome, not a value: non-nil is "throws", nil is left out of the values
	// (as the judge's harness, infra/runner/calls_harness.go, does).
	errType := reflect.TypeOf((*error)(nil)).Elem()
	if n := len(outs); n > 0 && t.Out(n-1) == errType {
		if !outs[n-1].IsNil() {
			return map[string]any{"throws": "error"}
		}
		outs = outs[:n-1]
	}
	vals := make([]any, len(outs))
	nils := false
	for i, o := range outs {
		vals[i] = o.Interface()
		if harnessHasNil(o) {
			nils = true
		}
	}
	switch len(vals) {
	case 0:
		res = map[string]any{"value": nil}
	case 1:
		res = map[string]any{"value": vals[0]}
	default:
		res = map[string]any{"value": vals}
	}
	if nils {
		res["nils"] = true
	}
	return res
}

// A nil slice or map encodes as null where an empty one encodes as []/{}: the build refuses such expected values.
func harnessHasNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return true
		}
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if harnessHasNil(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if harnessHasNil(it.Value()) {
				return true
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && harnessHasNil(v.Field(i)) {
				return true
			}
		}
	case reflect.Pointer, reflect.Interface:
		return harnessHasNil(v.Elem())
	}
	return false
}
`;

/**
 * Builds one binary for a canonical (package main, as the judge's harness has it) and its mutants (one package
 * each, so one `go build` serves them all); a mutant that does not compile is dropped and reported as such.
 * Returns outcomes[variant][call], variant 0 being the canonical.
 */
function runGo(code, name, argLists, mutants = []) {
  const dir = mkdtempSync(join(tmpdir(), 'curated-go-'));
  try {
    writeFileSync(join(dir, 'go.mod'), 'module task\n\ngo 1.22\n');
    writeFileSync(join(dir, 'task.go'), `package main\n\n${code}`);
    mutants.forEach((m, i) => {
      mkdirSync(join(dir, `m${i}`));
      writeFileSync(join(dir, `m${i}`, 'task.go'), `package m${i}\n\n${m}`);
    });
    let live = mutants.map((_, i) => i);
    const compileFault = new Map();
    for (;;) {
      writeFileSync(join(dir, 'harness.go'), GO_HARNESS([name, ...live.map((i) => `m${i}.${name}`)])
        .replace('%IMPORTS%', live.map((i) => `\t"task/m${i}"\n`).join('')));
      const b = spawnSync('go', ['build', '-o', 'run', '.'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
      if (b.status === 0) break;
      const bad = new Set([...b.stderr.matchAll(/^# task\/m(\d+)$/gm)].map((m) => Number(m[1])));
      if (!bad.size) {
        const fault = `does not compile: ${b.stderr.trim().split('\n').slice(0, 3).join(' | ')}`;
        return [argLists.map(() => ({ fault })), ...mutants.map(() => argLists.map(() => ({ fault })))];
      }
      for (const i of bad) compileFault.set(i, 'does not compile');
      live = live.filter((i) => !bad.has(i));
    }
    const run = (which) => {
      const r = spawnSync(join(dir, 'run'), [String(which)], {
        input: JSON.stringify(argLists), encoding: 'utf8', timeout: CALL_TIMEOUT_MS * 2, killSignal: 'SIGKILL',
      });
      if (r.status !== 0) return argLists.map(() => ({ fault: r.error ? 'timeout' : `exit ${r.status}: ${r.stderr.slice(0, 200)}` }));
      return JSON.parse(r.stdout);
    };
    const outcomes = [run(0)];
    mutants.forEach((_, i) => {
      const k = live.indexOf(i);
      outcomes.push(k < 0 ? argLists.map(() => ({ fault: compileFault.get(i) })) : run(k + 1));
    });
    return outcomes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------------------------ build

async function loadAuthoring(set, domain) {
  const path = join(SETS[set].dir, 'authoring', `${domain}.mjs`);
  return { path, tasks: (await import(pathToFileURL(path).href)).default };
}

function normaliseCall(c) {
  return Array.isArray(c) ? { args: c } : c;
}

async function build(set) {
  let problems = 0;
  for (const domain of DOMAINS) {
    const { path, tasks } = await loadAuthoring(set, domain).catch((e) => ({ path: e.message, tasks: null }));
    if (tasks === null) {
      console.error(`${set} ${domain}: no authoring file (${path})`);
      problems++;
      continue;
    }
    const counters = {};
    const records = [];
    for (const t of tasks) {
      const language = t.lang ?? set;
      counters[language] = (counters[language] ?? 0) + 1;
      const id = `${SETS[set].prefix[language]}_${domain}_${String(counters[language]).padStart(2, '0')}`;
      const code = t.code.replace(/^\n+/, '').replace(/\s+$/, '') + '\n';
      const calls = t.calls.map(normaliseCall);
      const argLists = calls.map((c) => c.args);
      const outs = language === 'go' ? runGo(code, t.name, argLists)[0] : runJs(language, code, t.name, argLists);
      const suite = [];
      outs.forEach((o, i) => {
        const where = `${relative(ROOT, path)}: ${t.name} call ${i}`;
        if (o.fault !== undefined) {
          console.error(`${where}: ${o.fault}`);
          problems++;
          return;
        }
        const spot = calls[i];
        if ((spot.expected !== undefined || spot.throws !== undefined) && !sameOutcome(spot, o)) {
          console.error(`${where}: spot check ${JSON.stringify(spot)} but the canonical gives ${JSON.stringify(o)}`);
          problems++;
        }
        if (o.nils) {
          console.error(`${where}: null in a Go result (nil slice or map?): ${JSON.stringify(o.value)}`);
          problems++;
        }
        const entry = { args: spot.args };
        if (o.throws !== undefined) entry.throws = o.throws;
        else entry.expected = o.value;
        const approx = spot.approx ?? t.approx;
        if (approx !== undefined && o.throws === undefined) entry.approx = approx;
        suite.push(entry);
      });
      if (suite.length < MIN_TESTS || suite.length > MAX_TESTS) {
        console.error(`${relative(ROOT, path)}: ${t.name}: ${suite.length} calls (want ${MIN_TESTS}-${MAX_TESTS})`);
        problems++;
      }
      records.push({
        task_id: id, language, query: t.query, function_name: t.name, domain, canonical: code,
        tests: { kind: 'calls', calls: suite }, distractors: [],
        source: { dataset: 'curated', ref: relative(ROOT, path) },
      });
    }
    const out = join(SETS[set].dir, `${domain}.jsonl`);
    const tmp = `${out}.${process.pid}.tmp`;
    writeFileSync(tmp, records.map((r) => JSON.stringify(r) + '\n').join(''));
    renameSync(tmp, out);
    console.log(`${relative(ROOT, out)}: ${records.length} tasks`);
  }
  return problems;
}

// ------------------------------------------------------------------------------------------------ mutants

// Token-level single edits, roughly the engine's operator families; strings, runes and comments are skipped.
const FLIPS = {
  '<': ['<=', '>'], '<=': ['<', '>'], '>': ['>=', '<'], '>=': ['>', '<'],
  '==': ['!='], '!=': ['=='], '===': ['!=='], '!==': ['==='],
  '+': ['-'], '-': ['+'], '*': ['/'], '/': ['*'], '%': ['/'],
  '+=': ['-='], '-=': ['+='], '&&': ['||'], '||': ['&&'],
  '&': ['|'], '|': ['&'], '<<': ['>>'], '>>': ['<<'], '>>>': ['>>'],
};
const COMPARISONS = new Set(['<', '<=', '>', '>=', '==', '!=', '===', '!==']);
function family(tok, rep) {
  if (!COMPARISONS.has(tok)) return 'wrong_operator';
  return tok[0] === rep[0] && /[<>]/.test(tok) ? 'off_by_one_boundary' : 'wrong_comparison';
}
const TOKEN = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`[^`]*`|\b\d+\.\d+\b|\b[A-Za-z_]\w*\b|\b\d+\b|>>>|===|!==|=>|<=|>=|==|!=|&&|\|\||\+\+|--|\+=|-=|<<|>>|&\^|:=|<-|[<>+\-*/%&|]/g;

function mutants(code) {
  const out = [];
  for (const m of code.matchAll(TOKEN)) {
    const tok = m[0];
    const at = m.index;
    const edit = (rep, family) => out.push({ family, code: code.slice(0, at) + rep + code.slice(at + tok.length) });
    if (/^\d+$/.test(tok)) {
      edit(String(Number(tok) + 1), 'off_by_one');
      if (tok !== '0') edit(String(Number(tok) - 1), 'off_by_one');
    } else if (FLIPS[tok]) {
      for (const rep of FLIPS[tok]) edit(rep, family(tok, rep));
    }
  }
  // remove_edge_case_check: a one-statement `if` that returns or throws (JS one-liner, or a Go/JS block).
  const ifs = /^[ \t]*if\b[^\n{]*?(?:\)\s*(?:return|throw)\b[^\n]*|\{\n[ \t]*(?:return|throw|panic)\b[^\n]*\n[ \t]*\})\n/gm;
  for (const m of code.matchAll(ifs)) {
    out.push({ family: 'remove_edge_case_check', code: code.slice(0, m.index) + code.slice(m.index + m[0].length) });
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ check

function readSet(set) {
  const tasks = [];
  let problems = 0;
  for (const domain of DOMAINS) {
    const file = join(SETS[set].dir, `${domain}.jsonl`);
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      console.error(`${relative(ROOT, file)}: ${e.code ?? e.message}`);
      problems++;
      continue;
    }
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      const where = `${relative(ROOT, file)}:${i + 1}`;
      let t;
      try {
        t = JSON.parse(line);
      } catch {
        t = undefined;
      }
      if (t === null || typeof t !== 'object' || Array.isArray(t)) {
        console.error(`${where}: not a JSON object`);
        problems++;
        return;
      }
      let bad = 0;
      const err = (msg) => { console.error(`${where} (${t.task_id}): ${msg}`); bad++; };
      if (t.domain !== domain) err(`domain: ${t.domain}, file says ${domain}`);
      if (!Object.hasOwn(SETS[set].prefix, t.language)) err(`language: ${t.language}`);
      else if (!new RegExp(`^${SETS[set].prefix[t.language]}_${domain}_\\d\\d$`).test(t.task_id)) err('task_id: bad form');
      for (const key of ['query', 'function_name', 'canonical']) {
        if (typeof t[key] !== 'string' || !t[key].trim()) err(`${key}: missing or empty`);
      }
      const calls = t.tests?.kind === 'calls' && Array.isArray(t.tests.calls) ? t.tests.calls : null;
      if (!calls) err('tests: not a calls suite');
      else if (calls.length < MIN_TESTS || calls.length > MAX_TESTS) err(`tests.calls: ${calls.length} calls`);
      calls?.forEach((c, k) => {
        if (!Array.isArray(c?.args)) err(`tests.calls[${k}].args: not an array`);
        if ((c?.expected === undefined) === (c?.throws === undefined)) err(`tests.calls[${k}]: needs exactly one of expected, throws`);
      });
      problems += bad;
      // Only well-formed records are run.
      if (!bad) tasks.push({ ...t, where });
    });
  }
  const ids = new Set();
  for (const t of tasks) {
    if (ids.has(t.task_id)) { console.error(`${t.where}: task_id ${t.task_id} repeated`); problems++; }
    ids.add(t.task_id);
  }
  return { tasks, problems };
}

/** The first line where a mutant differs from its canonical, for --verbose. */
function changedLine(a, b) {
  const la = a.split('\n');
  const lb = b.split('\n');
  const i = la.findIndex((l, k) => l !== lb[k]);
  return `line ${i + 1}: ${(lb[i] ?? '(removed)').trim()}${la.length !== lb.length ? ' (lines removed)' : ''}`;
}

function check(set, withMutants) {
  const read = readSet(set);
  const structural = read.problems;
  const tasks = only ? read.tasks.filter((t) => t.task_id === only) : read.tasks;
  let failed = 0;
  const byDomain = {};
  const mutantStats = [];
  for (const t of tasks) {
    const calls = t.tests.calls;
    const argLists = calls.map((c) => c.args);
    const ms = withMutants ? mutants(t.canonical) : [];
    const outcomes = t.language === 'go'
      ? runGo(t.canonical, t.function_name, argLists, ms.map((m) => m.code))
      : [t.canonical, ...ms.map((m) => m.code)].map((c, k) =>
          runJs(t.language, c, t.function_name, argLists, k === 0 ? CALL_TIMEOUT_MS : 200));
    const bad = calls.map((c, i) => (sameOutcome(c, outcomes[0][i]) ? -1 : i)).filter((i) => i >= 0);
    const key = `${t.domain} ${t.language}`;
    byDomain[key] = (byDomain[key] ?? 0) + 1;
    if (bad.length) {
      failed++;
      console.log(`FAIL ${t.task_id}: calls ${bad.join(',')} e.g. ${JSON.stringify(outcomes[0][bad[0]])}`);
    } else {
      console.log(`pass ${t.task_id}`);
    }
    if (withMutants) {
      const killed = new Set();
      let invalid = 0;
      let survived = 0;
      ms.forEach((m, k) => {
        const o = outcomes[k + 1];
        let verdict = 'survives';
        if (o.every((x) => x.fault !== undefined && x.fault !== 'timeout')) {
          invalid++;
          verdict = 'invalid';
        } else if (calls.some((c, i) => !sameOutcome(c, o[i]))) {
          killed.add(`${m.family}:${m.code}`);
          verdict = 'fails a call';
        } else {
          survived++;
        }
        if (verbose) console.log(`    ${verdict.padEnd(12)} ${m.family.padEnd(22)} ${changedLine(t.canonical, m.code)}`);
      });
      const families = new Set([...killed].map((k) => k.split(':')[0]));
      mutantStats.push({ id: t.task_id, killed: killed.size, families: families.size, survived, invalid });
      console.log(`  mutants ${t.task_id}: ${killed.size} fail a test (${[...families].join(' ')}), ${survived} pass all, ${invalid} invalid`);
    }
  }
  console.log(`\n${set}: ${tasks.length - failed}/${tasks.length} canonicals pass their calls`);
  console.log(Object.entries(byDomain).map(([k, n]) => `${k}: ${n}`).join('; '));
  if (withMutants) {
    const four = mutantStats.filter((s) => s.killed >= 4);
    const fourThree = mutantStats.filter((s) => s.killed >= 4 && s.families >= 3);
    const pct = (n) => `${((100 * n) / mutantStats.length).toFixed(1)}%`;
    console.log(`${set}: ${four.length}/${mutantStats.length} (${pct(four.length)}) tasks with >= 4 failing single-edit mutants; ` +
      `${fourThree.length} (${pct(fourThree.length)}) with >= 4 of >= 3 families`);
    const weak = mutantStats.filter((s) => s.killed < 4 || s.families < 3).map((s) => `${s.id}(${s.killed}/${s.families})`);
    if (weak.length) console.log(`weak: ${weak.join(' ')}`);
  }
  return structural + failed;
}

// ------------------------------------------------------------------------------------------------ main

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: { mutants: { type: 'boolean' }, verbose: { type: 'boolean' }, task: { type: 'string' }, dir: { type: 'string' } },
  });
} catch (e) {
  parsed = { positionals: [], error: e.message };
}
const [cmd, ...sets] = parsed.positionals;
const { mutants: withMutants = false, verbose = false, task: only, dir } = parsed.values ?? {};
if (parsed.error || !['build', 'check'].includes(cmd) || sets.some((s) => !SETS[s]) || (dir && (cmd !== 'check' || sets.length !== 1))) {
  console.error(`${parsed.error ? parsed.error + '\n' : ''}usage: curated-langs.mjs build [javascript|go]... | ` +
    'check [--mutants [--verbose]] [--task ID] [javascript|go]... | check --dir DIR javascript|go');
  process.exit(2);
}
// --dir: check the .jsonl files of another directory as that set (how the tests feed it a broken copy).
if (dir) SETS[sets[0]].dir = dir;
let problems = 0;
for (const set of sets.length ? sets : Object.keys(SETS)) {
  problems += cmd === 'build' ? await build(set) : check(set, withMutants);
}
process.exit(problems ? 1 : 0);
