#!/usr/bin/env python3
"""Check hand-written (TRUSTED) task files before they ship: schema-level fields, unique names, test shape,
canonical passes its own tests, and a rough single-edit mutation pre-check.

Our own authoring tool, not the project's gate: it executes the curated canonicals and single-edit mutants of
them through the project's sandbox (infra/runner/sandbox.py fork servers), as the execution oracle does.

The mutation pre-check enumerates with the engine's own mutate.py, limited to its token-level operators, so a
task that cannot get 4 wrong-output mutants of >= 3 bug types from those is found while it is being written.

Usage:
  check_tasks.py [--mutants] [--curated] [--mbpp PATH] [--json] [--jobs N] [--test-timeout S] PATH...   (files or dirs of *.jsonl)
Exit status 0 when every task passes every check that was asked for, 1 otherwise, 2 on usage errors.
"""
from __future__ import annotations

import argparse
import ast
import json
import queue
import re
import select
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

# Mirrors DOMAINS in schemas/task.ts (test/data/curated.test.ts checks the curated files against that list).
DOMAINS = (
    'bit_manipulation', 'collections', 'data_transformation', 'date_time', 'geometry',
    'math_numerical', 'sorting_searching', 'state_machines', 'string_processing', 'validation',
)
MIN_TESTS, MAX_TESTS = 7, 10
# Gate default profile (issue 2): 4 distractors of >= 3 bug types (issue 3's curated target).
NEED_MUTANTS, NEED_TYPES = 4, 3
# A mutant that loops forever should cost little: its suite gets this much per test, at least 1 s (the sandbox's
# limit is per suite, wall clock). Overridable (--test-timeout).
PER_TEST_TIMEOUT_S = 0.3


# ----------------------------------------------------------------------------------------------- static checks

def _calls_name(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name for n in ast.walk(node))


def static_problems(rec: object, curated: bool, domain_from_file: str | None) -> list[str]:
    """Field-level problems of one record, each 'field: message'."""
    if not isinstance(rec, dict):
        return ['record: not a JSON object']
    out: list[str] = []
    for key in ('task_id', 'query', 'function_name', 'canonical'):
        if not isinstance(rec.get(key), str) or not rec[key].strip():
            out.append(f'{key}: missing or not a non-empty string')
    if out:
        return out
    name = rec['function_name']
    dom = rec.get('domain')
    if curated:
        if dom not in DOMAINS:
            out.append(f'domain: {dom!r} is not one of the ten domains')
        elif domain_from_file and dom != domain_from_file:
            out.append(f'domain: {dom!r} in file for {domain_from_file!r}')
        if not re.fullmatch(rf'cur_{re.escape(str(dom))}_\d\d', rec['task_id']):
            out.append(f'task_id: {rec["task_id"]!r} does not match cur_<domain>_<nn>')
        if name in rec['query']:
            out.append('query: mentions the function name')
        if rec.get('distractors', []) != []:
            out.append('distractors: curated tasks ship with [] (the mechanical engine fills them)')
    if not isinstance(rec.get('distractors', []), list):
        out.append('distractors: not a list')
    tests = rec.get('tests')
    if not isinstance(tests, dict) or tests.get('kind') != 'asserts' or not isinstance(tests.get('tests'), list):
        return out + ['tests: expected {"kind": "asserts", "tests": [...]}']
    lst = tests['tests']
    if not (MIN_TESTS <= len(lst) <= MAX_TESTS):
        out.append(f'tests.tests: {len(lst)} tests, expected {MIN_TESTS}-{MAX_TESTS}')
    if len(set(lst)) != len(lst):
        out.append('tests.tests: duplicate tests')
    try:
        tree = ast.parse(rec['canonical'])
    except SyntaxError as e:
        return out + [f'canonical: SyntaxError line {e.lineno}: {e.msg}']
    if not any(isinstance(s, ast.FunctionDef) and s.name == name for s in tree.body):
        out.append(f'canonical: does not define {name}() at top level')
    for i, t in enumerate(lst):
        if not isinstance(t, str):
            out.append(f'tests.tests[{i}]: not a string')
            continue
        try:
            mod = ast.parse(t)
        except SyntaxError as e:
            out.append(f'tests.tests[{i}]: SyntaxError: {e.msg}')
            continue
        if len(mod.body) != 1 or not isinstance(mod.body[0], ast.Assert) or '\n' in t.strip():
            out.append(f'tests.tests[{i}]: not a single-line assert statement')
        elif not _calls_name(mod.body[0], name):
            out.append(f'tests.tests[{i}]: does not call {name}()')
    return out


# ----------------------------------------------------------------------------------------------- mutations

# The engine's own enumerator (mutate.py, next to this file), limited to its token-level operators: a task
# whose constants, operators, comparisons and guards its tests do not pin down should be found while it is
# written, not rescued by the wider operators (sequence bounds, returned-value shifts, ...) the build adds.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutate import Mutator  # noqa: E402

PRECHECK_OPERATORS = {
    'int_constant', 'range_bound', 'slice_bound', 'arith_operator', 'bitwise_operator', 'aug_operator',
    'bool_operator', 'swap_operands', 'swap_call_args', 'drop_condition', 'remove_guard', 'flip_comparison',
    'negate_equality', 'negate_identity', 'negate_membership', 'boundary_shift',
}


@dataclass
class Mutant:
    bug_type: str
    operator: str
    line: int
    description: str
    code: str
    outcomes: list[str] = field(default_factory=list)


def enumerate_mutants(code: str, function_name: str) -> list[Mutant]:
    """The pre-check's single-edit mutants, in the engine's (deterministic) order."""
    return [Mutant(c['bug_type'], c['operator'], c['line'], f"{c['original'].strip()} -> {c['replacement'].strip()}", c['code'])
            for c in Mutator(code, function_name).run() if c['operator'] in PRECHECK_OPERATORS]


# ----------------------------------------------------------------------------------------------- execution

SANDBOX = Path(__file__).resolve().parents[1] / 'runner' / 'sandbox.py'
# Canonicals get the oracle's suite limit; mutants (which often loop forever) PER_TEST_TIMEOUT_S per test.
CANONICAL_SUITE_TIMEOUT_S = 5.0


class Sandbox:
    """One fork server of infra/runner/sandbox.py, the project's sandbox: mutants are code mutated on purpose,
    so they run only in its isolated children (own network namespace, rlimits, no writes outside scratch)."""

    def __init__(self, hash_seed: str):
        # Not -I: PYTHONHASHSEED must be honoured, so a canonical whose output depends on the order of a set or
        # dict of str is caught by running it under two seeds (-I would ignore it). -s and a minimal env instead.
        env = {'PYTHONHASHSEED': hash_seed, 'PATH': '/usr/bin:/bin', 'LC_ALL': 'C.UTF-8'}
        self.proc = subprocess.Popen([sys.executable, '-s', '-B', str(SANDBOX), 'serve'],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.next_id = 0
        self._read(30.0)  # the ready frame

    def _read(self, deadline_s: float) -> dict:
        # The sandbox enforces each suite's limit itself; this only covers a server that stopped answering.
        ready, _, _ = select.select([self.proc.stdout], [], [], deadline_s)
        head = self.proc.stdout.read(4) if ready else b''
        if len(head) < 4:
            self.proc.kill()
            raise RuntimeError('sandbox fork server died or stopped answering')
        return json.loads(self.proc.stdout.read(int.from_bytes(head, 'big')))

    def run(self, code: str, tests: list[str], timeout_s: float) -> list[str]:
        self.next_id += 1
        body = json.dumps({'id': self.next_id, 'code': code, 'suite': {'kind': 'asserts', 'tests': tests},
                           'timeout_s': timeout_s}).encode()
        self.proc.stdin.write(len(body).to_bytes(4, 'big') + body)
        self.proc.stdin.flush()
        res = self._read(timeout_s + 30.0)
        if 'error' in res:
            raise RuntimeError(f"sandbox: {res['error']}")
        return res['outcomes']

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def run_all(items: list[tuple[str, list[str]]], hash_seed: str, jobs: int, timeout_of) -> list[list[str]]:
    """Outcomes per (code, tests) item, `jobs` fork servers in parallel (one request at a time each)."""
    servers: queue.Queue[Sandbox] = queue.Queue()
    started = [Sandbox(hash_seed) for _ in range(max(1, min(jobs, len(items))))]
    for s in started:
        servers.put(s)

    def one(item: tuple[str, list[str]]) -> list[str]:
        s = servers.get()
        try:
            return s.run(item[0], item[1], timeout_of(item[1]))
        finally:
            servers.put(s)

    try:
        with ThreadPoolExecutor(max_workers=len(started)) as pool:
            return list(pool.map(one, items))
    finally:
        for s in started:
            s.close()


def is_bare_failure(o: str) -> bool:
    return o == 'FAIL' or o.startswith('FAIL:')


# ----------------------------------------------------------------------------------------------- driver

def load_records(paths: list[str]) -> list[tuple[str, int, object, str | None]]:
    files: list[Path] = []
    for p in paths:
        pp = Path(p)
        files += sorted(pp.glob('*.jsonl')) if pp.is_dir() else [pp]
    out = []
    for f in files:
        for n, line in enumerate(f.read_text(encoding='utf-8').splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                rec = e
            out.append((str(f), n, rec, f.stem if f.stem in DOMAINS else None))
    return out


def mbpp_names(path: str) -> set[str]:
    names: set[str] = set()
    for line in Path(path).read_text(encoding='utf-8').splitlines():
        r = json.loads(line)
        names |= set(re.findall(r'def\s+(\w+)', r.get('code', '')))
    return names


def select_four(mutants: list[Mutant]) -> list[Mutant]:
    """Greedy pick as the engine does: each step takes the first wrong-output mutant that adds a new bug type
    and a new failing-test subset, else a new type, else a new subset, else any."""
    killed = [m for m in mutants if any(is_bare_failure(o) for o in m.outcomes)]
    subset = lambda m: tuple(o != 'pass' for o in m.outcomes)  # noqa: E731
    picked: list[Mutant] = []
    while len(picked) < NEED_MUTANTS:
        types = {m.bug_type for m in picked}
        subsets = {subset(m) for m in picked}
        rest = [m for m in killed if m not in picked]
        if not rest:
            break
        picked.append(max(rest, key=lambda m: (m.bug_type not in types, subset(m) not in subsets)))
    return picked


def check_canonicals(recs: list[dict], jobs: int) -> list[list[str]]:
    """Problems per record from running each canonical against its tests, under two hash seeds: the second run
    catches output that depends on str-set/dict ordering (the oracle runs with a random seed per run)."""
    items = [(r['canonical'], r['tests']['tests']) for r in recs]
    try:
        runs = [run_all(items, seed, jobs, lambda _: CANONICAL_SUITE_TIMEOUT_S) for seed in ('0', '12345')]
    except RuntimeError as e:
        return [[f'canonical: could not be run: {e}'] for _ in recs]
    out = []
    for o1, o2 in zip(*runs):
        out.append([f'tests.tests[{i}]: canonical gives {a if a != "pass" else b}'
                    for i, (a, b) in enumerate(zip(o1, o2)) if a != 'pass' or b != 'pass'])
    return out


def mutant_timeout(tests: list[str]) -> float:
    return max(1.0, PER_TEST_TIMEOUT_S * len(tests))


def check_mutants(rec: dict, args: argparse.Namespace) -> tuple[list[str], dict | None]:
    """Enumerate and run every single-edit mutant of a (passing) canonical; problems and a mutant report."""
    problems: list[str] = []
    tests = rec['tests']['tests']
    mutants = enumerate_mutants(rec['canonical'], rec['function_name'])
    try:
        res = run_all([(m.code, tests) for m in mutants], '0', 1, mutant_timeout) if mutants else []
    except RuntimeError as e:
        return [f'mutants: could not be run: {e}'], None
    for m, o in zip(mutants, res):
        m.outcomes = o
    killed = [m for m in mutants if any(is_bare_failure(o) for o in m.outcomes)]
    crash_only = [m for m in mutants if m not in killed and any(o != 'pass' for o in m.outcomes)]
    types = sorted({m.bug_type for m in killed})
    four = select_four(mutants)
    rep = {
        'candidates': len(mutants), 'killed': len(killed), 'crash_only': len(crash_only),
        'equivalent': len(mutants) - len(killed) - len(crash_only), 'killed_types': types,
        'pick': [f'{m.bug_type}@{m.line}: {m.description}' for m in four],
    }
    if args.verbose:
        rep['all'] = [
            {'bug_type': m.bug_type, 'line': m.line, 'what': m.description,
             'fails': [i for i, o in enumerate(m.outcomes) if o != 'pass'],
             'kind': 'killed' if m in killed else 'crash' if m in crash_only else 'equivalent'} for m in mutants]
    pick_types = {m.bug_type for m in four}
    pick_subsets = {tuple(o != 'pass' for o in m.outcomes) for m in four}
    if len(killed) < NEED_MUTANTS or len(types) < NEED_TYPES or len(pick_types) < NEED_TYPES:
        problems.append(f'mutants: {len(killed)} wrong-output mutants of {len(types)} bug types '
                        f'(need {NEED_MUTANTS} of {NEED_TYPES})')
    elif len(pick_subsets) < 2:
        problems.append('mutants: the four picked all fail the identical test subset')
    return problems, rep


def main(argv: list[str]) -> int:
    global PER_TEST_TIMEOUT_S
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('paths', nargs='+')
    ap.add_argument('--mutants', action='store_true', help='run the single-edit mutation pre-check')
    ap.add_argument('--curated', action='store_true', help='curated rules: domain, cur_<domain>_<nn>, no distractors')
    ap.add_argument('--mbpp', help='MBPP jsonl; function names defined there are not allowed')
    ap.add_argument('--json', action='store_true', help='print one JSON report instead of text')
    ap.add_argument('--verbose', action='store_true', help='list every mutant and its outcome')
    ap.add_argument('--jobs', type=int, default=2, help='tasks checked at once')
    ap.add_argument('--test-timeout', type=float, default=PER_TEST_TIMEOUT_S, help='seconds per test')
    args = ap.parse_args(argv)
    PER_TEST_TIMEOUT_S = args.test_timeout

    records = load_records(args.paths)
    forbidden = mbpp_names(args.mbpp) if args.mbpp else set()
    seen_names: dict[str, str] = {}
    seen_ids: dict[str, str] = {}
    reports = []
    runnable: list[tuple[dict, dict]] = []
    for file, line, rec, dom in records:
        where = f'{file}:{line}'
        rep: dict = {'where': where, 'task_id': None, 'problems': []}
        reports.append(rep)
        if isinstance(rec, json.JSONDecodeError):
            rep['problems'].append(f'record: invalid JSON: {rec.msg}')
            continue
        rep['problems'] += static_problems(rec, args.curated, dom)
        if not isinstance(rec, dict):
            continue
        rep['task_id'] = rec.get('task_id')
        name, tid = rec.get('function_name'), rec.get('task_id')
        if name in seen_names:
            rep['problems'].append(f'function_name: {name!r} already used at {seen_names[name]}')
        seen_names.setdefault(name, where)
        if tid in seen_ids:
            rep['problems'].append(f'task_id: {tid!r} already used at {seen_ids[tid]}')
        seen_ids.setdefault(tid, where)
        if name in forbidden:
            rep['problems'].append(f'function_name: {name!r} is an MBPP function name')
        if not rep['problems']:
            runnable.append((rep, rec))
    # All canonicals in one batch; then mutants per task, a few tasks at once (they mostly wait on timeouts).
    for (rep, _), problems in zip(runnable, check_canonicals([rec for _, rec in runnable], args.jobs)):
        rep['problems'] += problems
    if args.mutants:
        todo = [(rep, rec) for rep, rec in runnable if not rep['problems']]
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for (rep, _), (problems, mut) in zip(todo, pool.map(lambda rr: check_mutants(rr[1], args), todo)):
                rep['problems'] += problems
                if mut is not None:
                    rep['mutants'] = mut

    bad = [r for r in reports if r['problems']]
    if args.json:
        print(json.dumps({'tasks': len(reports), 'failed': len(bad), 'reports': reports}, indent=1))
    else:
        for r in reports:
            status = 'FAIL' if r['problems'] else 'ok'
            m = r.get('mutants')
            extra = (f"  mutants {m['killed']}/{m['candidates']} killed, {m['crash_only']} crash-only, "
                     f"{m['equivalent']} equivalent; types {','.join(m['killed_types'])}") if m else ''
            print(f"{status:4} {r['where']} {r['task_id']}{extra}")
            for p in r['problems']:
                print(f'     {p}')
            if m and args.verbose:
                for x in m['all']:
                    print(f"       {x['kind']:10} {x['bug_type']:22} L{x['line']:<3} {x['what']:30} fails {x['fails']}")
        print(f'{len(reports)} tasks, {len(bad)} with problems')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
