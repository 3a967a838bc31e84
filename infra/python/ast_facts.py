"""Static facts about Python source, with Python's own `ast` (parsing only: nothing here executes input).

stdin: JSON lines, each one of
  {"id", "kind": "code", "code"}                      parses, syntax error, top-level function names
  {"id", "kind": "names", "code"}                     names a snippet spells, whether it is dynamic
  {"id", "kind": "suite_names", "suite": <TestSuite>} what each test binds and certainly looks up
  {"id", "kind": "tests", "tests": [...], "target"}   per test: parses, calls the target, statements,
                                                      judge-run (parses: since issue 36 the sandbox's judge
                                                      runs every test; the gate's stage 3 counts what it did)
  {"id", "kind": "suite", "suite": {...}, "target"}   the same for a test suite of either kind (schemas/exec.ts)
  {"id", "kind": "docstring", "code", "target"?}      the docstring of `target` (else the last top-level function,
                                                      else the module)
  {"id", "kind": "docstring_span", "code", "target"?} where that docstring's statement lies (lines, columns), for
                                                      core/importers/docstringSplice.ts
  {"id", "kind": "check_program", "program"}          statement layout of a check(candidate) program, for
                                                      core/suites/splitCheck.ts
stdout: JSON lines, each {"id", ...facts}. A record that cannot be analysed gets {"id", "error"}.
Columns in the output are character (code point) offsets, not the UTF-8 byte offsets `ast` reports.

"names" and "suite_names" feed scoring's not_defined rule (core/scoring/notDefined.ts): a suite with a test that
certainly looks up a name that neither the snippet, the setup nor the test can bind fails without being run.
"""
import ast
import inspect
import builtins
import json
import sys

# The sandbox's own cap (infra/runner/sandbox.py CODE_CAP): a larger source is not parsed here either (a 4 MB
# canonical took 72 s and 8 MB 4.4 GB to parse): that record alone gets a syntax error saying so.
SOURCE_CAP = 1024 * 1024


def _over_cap(src):
    return f"source of {len(src)} characters is over the {SOURCE_CAP} cap: not parsed" if len(src) > SOURCE_CAP else None


def _syntax(exc):
    return f"{type(exc).__name__}: {getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})"


def code_facts(code):
    if _over_cap(code):
        return {"parses": False, "syntax_error": _over_cap(code), "top_level_functions": []}
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return {"parses": False, "syntax_error": _syntax(exc), "top_level_functions": []}
    top = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return {"parses": True, "syntax_error": None, "top_level_functions": top}


def _called_names(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            if isinstance(fn, ast.Name):
                names.add(fn.id)
            elif isinstance(fn, ast.Attribute):
                names.add(fn.attr)
        # a function passed by name (map(f, xs), check(f)) also exercises it
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
    return names


def _always_true(node):
    """A test expression no code can make false: a truthy constant (`True`, `1`, `"x"`), or `not` of a falsy one.
    Public check programs carry such lines (`assert True, "This prints if this assert fails"`)."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
        return not node.operand.value
    return False


def test_facts(tests, target):
    out = []
    for t in tests:
        try:
            if _over_cap(t):
                raise ValueError(_over_cap(t))
            tree = ast.parse(t)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            out.append({"parses": False, "syntax_error": _syntax(exc), "calls_target": False, "statements": 0,
                        "parent_judged": False, "no_op": False})
            continue
        # One `assert <always true>[, msg]` and nothing else: no candidate can fail it (the message is only
        # evaluated when the assert fails, which it cannot).
        no_op = len(tree.body) == 1 and isinstance(tree.body[0], ast.Assert) and _always_true(tree.body[0].test)
        out.append({"parses": True, "syntax_error": None, "calls_target": target in _called_names(tree),
                    "statements": len(tree.body), "parent_judged": True,
                    "no_op": no_op})
    return {"tests": out}


# Identifiers through which code can bind a name it never spells out (exec("def f..."), globals()["f"] = ..,
# setattr(builtins, ..), a frame's f_globals, import *). Code that mentions any of them is never judged
# statically: it is run. Deliberately broad: a false "dynamic" costs one execution, a missed one a wrong verdict.
DYNAMIC = frozenset({
    "exec", "eval", "compile", "execfile", "globals", "locals", "vars", "setattr", "delattr", "getattr",
    "attrgetter", "__import__", "importlib", "runpy", "builtins", "__builtins__", "__dict__", "__globals__",
    "__setattr__", "__getattribute__", "__setitem__", "__subclasses__", "modules", "_getframe", "currentframe",
    "f_globals", "f_locals", "f_builtins", "f_back", "inspect", "gc", "ctypes", "pickle", "marshal", "code",
})

# Names every test's namespace holds before the candidate runs (infra/runner/sandbox.py, child_main's `ns`).
SANDBOX_PREBOUND = frozenset({"__name__", "__builtins__", "pytest"})


def _identifiers(tree):
    """Every identifier the source spells, in any role (dotted names split): a superset of what it can bind.
    Every string field of every node but a Constant (a literal is no identifier) and type comments. One explicit
    stack over `_fields` instead of ast.walk + ast.iter_fields: the same nodes and fields, without their two
    generators per node (scoring asks this of every corpus snippet; this is most of that pass's time)."""
    out = set()
    stack = [tree]
    pop, push, AST, Constant = stack.pop, stack.append, ast.AST, ast.Constant
    while stack:
        node = pop()
        if isinstance(node, Constant):
            continue
        for field in node._fields:
            try:
                value = getattr(node, field)
            except AttributeError:  # an optional field never set (what ast.iter_fields skips too)
                continue
            if isinstance(value, list):
                for v in value:
                    if isinstance(v, AST):
                        push(v)
                    elif isinstance(v, str):
                        out.update(v.split("."))
            elif isinstance(value, AST):
                push(value)
            elif isinstance(value, str) and field != "type_comment":
                out.update(value.split("."))
    return out


def _dynamic(idents):
    """`import *` spells "*" (the alias's name), and nothing else can: no second walk is needed to find it."""
    return bool(idents & DYNAMIC) or "*" in idents


def _bound(tree):
    """Names the source binds in any scope, in any binding role (assignment, del, def, class, import, argument,
    except-as, global/nonlocal, match capture, attribute store)."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load):
            out.add(n.attr)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif type(n).__name__ in ("MatchAs", "MatchStar") and getattr(n, "name", None):
            out.add(n.name)
        elif type(n).__name__ == "MatchMapping" and getattr(n, "rest", None):
            out.add(n.rest)
        elif type(n).__name__ in ("TypeVar", "ParamSpec", "TypeVarTuple"):
            out.add(n.name)
    return out


def _certain_loads(expr):
    """Global names that evaluating `expr` certainly looks up, unless an earlier part of it raises first (which
    fails the test as surely). Short-circuit branches, lambda bodies and comprehension bodies are not certain."""
    if expr is None:
        return set()
    if isinstance(expr, ast.Name):
        return {expr.id} if isinstance(expr.ctx, ast.Load) else set()
    parts = []
    if isinstance(expr, ast.Call):
        parts = [expr.func, *expr.args, *(k.value for k in expr.keywords)]
    elif isinstance(expr, ast.BinOp):
        parts = [expr.left, expr.right]
    elif isinstance(expr, ast.UnaryOp):
        parts = [expr.operand]
    elif isinstance(expr, ast.Compare):
        parts = [expr.left, expr.comparators[0]]  # later comparators run only if the first comparison holds
    elif isinstance(expr, ast.BoolOp):
        parts = [expr.values[0]]
    elif isinstance(expr, ast.IfExp):
        parts = [expr.test]
    elif isinstance(expr, ast.Attribute):
        parts = [expr.value]
    elif isinstance(expr, ast.Subscript):
        parts = [expr.value, expr.slice]
    elif isinstance(expr, ast.Slice):
        parts = [expr.lower, expr.upper, expr.step]
    elif isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        parts = list(expr.elts)
    elif isinstance(expr, ast.Dict):
        parts = [*expr.keys, *expr.values]
    elif isinstance(expr, (ast.Starred, ast.NamedExpr, ast.Await, ast.FormattedValue)):
        parts = [expr.value]
    elif isinstance(expr, ast.JoinedStr):
        parts = list(expr.values)
    elif isinstance(expr, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        parts = [expr.generators[0].iter]  # evaluated in the enclosing scope, even for a generator
    out = set()
    for p in parts:
        out |= _certain_loads(p)
    return out


def _statement_loads(tree):
    """Names certainly looked up by the module's top-level statements: each runs unless one before it raised."""
    out = set()
    for st in tree.body:
        if isinstance(st, ast.Assert):
            out |= _certain_loads(st.test)  # the message is evaluated only on failure
        elif isinstance(st, (ast.Expr, ast.Assign, ast.AnnAssign)):
            out |= _certain_loads(st.value)
        elif isinstance(st, (ast.If, ast.While)):
            out |= _certain_loads(st.test)
        elif isinstance(st, ast.For):
            out |= _certain_loads(st.iter)
    return out


def name_facts(code):
    """What a snippet could bind: the identifiers it spells, and whether it can bind names it does not spell."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {"parses": False, "identifiers": [], "dynamic": True}
    idents = _identifiers(tree)
    return {"parses": True, "identifiers": sorted(idents), "dynamic": _dynamic(idents)}


def _resolves_anyway(name):
    """A name that a test's namespace answers before any code runs: a builtin or a sandbox-provided name."""
    return name in SANDBOX_PREBOUND or hasattr(builtins, name)


def _source_facts(src, also_loads=()):
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    loads = (_statement_loads(tree) | set(also_loads))
    return {"bound": sorted(_bound(tree)), "free_loads": sorted(n for n in loads if not _resolves_anyway(n)),
            "dynamic": _dynamic(_identifiers(tree))}


def suite_name_facts(suite):
    """Per test: the names it binds, the names it certainly looks up that no builtin answers (`free_loads`), and
    whether it is dynamic; the setup's bound names and dynamism. A `check` program is its suite's one test, and
    the runner looks its entry point up after running it. A source that does not parse is null."""
    if suite["kind"] == "check":
        setup, tests = None, [_source_facts(suite["program"], also_loads=[suite["entry_point"]])]
    else:
        setup, tests = suite.get("setup"), [_source_facts(t) for t in suite["tests"]]
    return {"setup": _source_facts(setup) if setup else {"bound": [], "free_loads": [], "dynamic": False}, "tests": tests}
def _find_check(tree):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            return node
    return None


def check_calls_target(program, target):
    """Does a check(candidate) program exercise the function? The sandbox calls `check(<target>)` itself, so it
    does when check uses its parameter or the program names the target. Shared by the build's pre-check and
    the gate's AST stage."""
    tree = ast.parse(program)
    fn = _find_check(tree)
    if fn is None:
        return False
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return bool(params and params[0] in used) or target in _called_names(tree)


def suite_facts(suite, target):
    if suite["kind"] == "asserts":
        return test_facts(suite["tests"], target)
    try:
        if _over_cap(suite["program"]):
            raise ValueError(_over_cap(suite["program"]))
        tree = ast.parse(suite["program"])
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return {"tests": [{"parses": False, "syntax_error": _syntax(exc), "calls_target": False, "statements": 0,
                           "parent_judged": False}]}
    # A check(candidate) program runs in the judge too, the candidate a remote function (issue 36).
    return {"tests": [{"parses": True, "syntax_error": None, "calls_target": check_calls_target(suite["program"], target),
                       "statements": len(tree.body), "parent_judged": True}]}


def _after_imports(tree):
    """A module's text string that follows only import lines (`import math` then a triple-quoted prompt): Python
    does not count it as the module's docstring, but public check-program benchmarks write their query so."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            return stmt
        return None
    return None


def _docstring_of(tree, target):
    """The query's docstring: (owner, its statement, cleaned text), or None. The owner is `target`'s definition,
    else the last top-level definition, else the module; the module too when that definition has none, and a
    module's string after its imports counts (_after_imports). One rule for docstring_facts and docstring_span,
    so the text removed is the text taken."""
    fns = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    named = [n for n in fns if n.name == target]
    node = named[0] if named else (fns[-1] if fns else None)
    if node is not None and ast.get_docstring(node, clean=True) is not None:
        return node, node.body[0], ast.get_docstring(node, clean=True)
    if ast.get_docstring(tree, clean=True) is not None:
        return tree, tree.body[0], ast.get_docstring(tree, clean=True)
    stmt = _after_imports(tree)
    return (tree, stmt, inspect.cleandoc(stmt.value.value)) if stmt is not None else None


def docstring_facts(code, target):
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return {"docstring": None, "syntax_error": _syntax(exc)}
    found = _docstring_of(tree, target)
    # cleandoc keeps a last line of spaces (`"""One line.\n    """`): strip it.
    return {"docstring": found[2].strip() if found is not None else None, "syntax_error": None}


def docstring_span(code, target):
    """Where the docstring docstring_facts would take lies in the code: the docstring statement's 1-based lines
    and character columns, its cleaned text, and how many statements its owner's body has. The splice itself is
    the caller's (core/importers/docstringSplice.ts); nothing is decided here."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return {"span": None, "syntax_error": _syntax(exc)}
    found = _docstring_of(tree, target)
    if found is None:
        return {"span": None, "syntax_error": None}
    node, stmt, doc = found
    lines = code.split("\n")
    return {"span": {"start_line": stmt.lineno, "start_col": _char_col(lines, stmt.lineno, stmt.col_offset),
                     "end_line": stmt.end_lineno, "end_col": _char_col(lines, stmt.end_lineno, stmt.end_col_offset)},
            "docstring": doc.strip(), "body_statements": len(node.body),
            "owner": "module" if node is tree else "definition", "syntax_error": None}


def _char_col(lines, lineno, byte_col):
    return len(lines[lineno - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


def check_program_facts(program):
    """Where each statement of the program and of check's body lies (1-based inclusive lines, character
    columns), what kind it is, and where the asserts use check's parameter; nothing is decided here."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return {"parses": False, "syntax_error": _syntax(exc)}
    lines = program.split("\n")
    fn = _find_check(tree)
    module = []
    for node in tree.body:
        if node is fn:
            kind = "check_def"
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
              and node.value.func.id == "check"):
            kind = "check_call"
        else:
            kind = "other"
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        module.append({"kind": kind, "start": start, "end": node.end_lineno})
    if fn is None:
        return {"parses": True, "syntax_error": None, "module": module, "param": None, "body": []}
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    param = params[0] if params else None
    body = []
    for node in fn.body:
        is_assert = isinstance(node, ast.Assert)
        inner = list(ast.walk(node))
        uses = []
        binds = False
        for n in inner:
            if isinstance(n, ast.Name) and n.id == param:
                if isinstance(n.ctx, ast.Load):
                    uses.append([n.lineno, _char_col(lines, n.lineno, n.col_offset), _char_col(lines, n.end_lineno, n.end_col_offset)])
                else:
                    binds = True
            elif isinstance(n, ast.arg) and n.arg == param:
                binds = True
        body.append({
            "kind": "assert" if is_assert else "other",
            "start": min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]),
            "end": node.end_lineno,
            "col": _char_col(lines, node.lineno, node.col_offset),
            "nested_assert": (not is_assert) and any(isinstance(n, ast.Assert) for n in inner),
            "binds_param": binds,
            "param_uses": uses if is_assert else [],
        })
    return {"parses": True, "syntax_error": None, "module": module, "param": param, "body": body}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        rec = json.loads(line)
        try:
            big = next((v for v in (rec.get("code"), rec.get("program")) if isinstance(v, str) and _over_cap(v)), None)
            if rec["kind"] == "code":
                facts = code_facts(rec["code"])
            elif big is not None:
                raise ValueError(_over_cap(big))
            elif rec["kind"] == "names":
                facts = name_facts(rec["code"])
            elif rec["kind"] == "suite_names":
                facts = suite_name_facts(rec["suite"])
            elif rec["kind"] == "tests":
                facts = test_facts(rec["tests"], rec["target"])
            elif rec["kind"] == "suite":
                facts = suite_facts(rec["suite"], rec["target"])
            elif rec["kind"] == "docstring":
                facts = docstring_facts(rec["code"], rec.get("target"))
            elif rec["kind"] == "docstring_span":
                facts = docstring_span(rec["code"], rec.get("target"))
            elif rec["kind"] == "check_program":
                facts = check_program_facts(rec["program"])
            else:
                raise ValueError(f"unknown kind {rec['kind']!r}")
        except Exception as exc:  # never lose the batch for one record
            facts = {"error": f"{type(exc).__name__}: {exc}"}
        facts["id"] = rec["id"]
        sys.stdout.write(json.dumps(facts) + "\n")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
