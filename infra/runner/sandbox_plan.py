"""The judge's half of a test: which tests the parent can decide, what the child evaluates for them, the decision.

A test is *parent-judged* when it is a sequence of statements the judge understands:
  - `assert <expr>[, <constant message>]`;
  - `name = <expr>`, a call statement (`f(xs)`), `import math` / `import pytest`, `pass`;
  - `with pytest.raises(<builtin exception or tuple of them>[, match=<constant>]):` around such statements.
Inside each assert the *candidate's parts* are cut out: the maximal subexpressions that are not judge arithmetic
(a call of anything but the judge's clean builtins, a name the test did not bind in the judge, an attribute of
anything but `math`). The child evaluates only those, in the test's own order, and returns each value as plain
data (sandbox_values); the judge evaluates the rest of the assert itself, on those values, with its own clean
builtins: arithmetic and comparisons (size-guarded), abs, round, len, sorted, set, min, max, sum, all, any,
isinstance, the common `math` functions and constants, `pytest.approx`, literals and membership. So in
`assert abs(f(x) - 2.5) < 1e-9` the child computes `f(x)` and never sees 2.5; an object with an overridden
`__sub__` cannot cross (only exact builtin types do), and a patched `abs` in the child changes nothing.
`pytest.raises` is decided here too, from the exception the child reports as data (its class's MRO names and
message), so the child never learns which exception the test expects.

A name a test binds to a value with no candidate part (`expected = [1, 2]`) stays in the judge unless a
candidate part uses it as an input; a name bound to a candidate part (`res = f(x)`) lives in the child, and a
later `res` in an assert is a candidate part the child reports. So the child receives the candidate's code, the
setup, the statements that feed the candidate and the candidate parts: never an expected value.

Everything else (loops, helper functions, comprehensions over candidate values, computed messages, a check
program kept whole, a candidate that rebinds a judge name such as `abs` or `math`) runs whole in another child,
which receives nothing the parent-judged tests need; its outcome is recorded as judged by the child.
"""

import ast
import functools
import math
import operator
import re

import sandbox_values as values

_CMP = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_SINGLETONS = (None, True, False)

# Size guards on judge arithmetic: a candidate's value must not make the judge compute for long (the judge has
# no time limit of its own; a stuck judge would stop the whole run).
_MAX_BITS = 1 << 22        # result of *, **, << on ints
_MAX_OPERAND_BITS = 1 << 18  # both factors of a product, or the divisor of a division, above this: refused
_MAX_LEN = 10_000_000      # result of sequence repetition


class _Approx:
    """pytest.approx in the judge: compared with math.isclose, on judge values only."""

    __slots__ = ("expected", "rel", "abs")

    def __init__(self, expected, rel=None, abs=None):  # noqa: A002 (pytest's own keyword)
        self.expected, self.rel, self.abs = expected, 1e-6 if rel is None else rel, 1e-12 if abs is None else abs

    def _close(self, a, b):
        if isinstance(b, (list, tuple)) and type(a) is type(b):
            return len(a) == len(b) and all(self._close(x, y) for x, y in zip(a, b))
        if isinstance(b, dict) and isinstance(a, dict):
            return a.keys() == b.keys() and all(self._close(a[k], b[k]) for k in b)
        if type(a) in (int, float) and type(b) in (int, float):
            return math.isclose(a, b, rel_tol=self.rel, abs_tol=self.abs)
        return a == b

    def __eq__(self, other):
        return self._close(other, self.expected)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None


def _guard_set(items):
    items = list(items)
    values.check_hashes(items, MemoryError)
    return items


def _set(*a):
    return set(_guard_set(a[0])) if a else set()


def _frozenset(*a):
    return frozenset(_guard_set(a[0])) if a else frozenset()


def _dict(*a, **k):
    if len(a) > 1:
        raise TypeError(f"dict expected at most 1 argument, got {len(a)}")
    pairs = list(a[0].items() if isinstance(a[0], dict) else a[0]) if a else []
    for p in pairs:
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise TypeError("cannot convert dictionary update sequence element to a sequence of length 2")
    values.check_hashes([p[0] for p in pairs], MemoryError)  # before any insertion: colliding keys are quadratic
    d = dict(pairs)
    d.update(k)
    return d


def _sum(iterable, start=0):
    if type(start) not in (int, float, complex):
        raise TypeError("sum() start must be a number in the judge")
    return sum(iterable, start)


def _pow(a, b):
    return _binop(ast.Pow(), a, b)


def _bounded(fn):
    """fn, refusing a range argument longer than _MAX_LEN (a range crosses in O(1) and would be walked here)."""
    def call(*a, **k):
        if any(type(x) is range and len(x) > _MAX_LEN for x in a):
            raise MemoryError
        return fn(*a, **k)
    return call


# The judge's functions and types, by the name a test uses. Nothing the candidate can reach.
_FUNCS = {
    "abs": abs, "round": round, "len": len, "sorted": _bounded(sorted), "set": _bounded(_set), "frozenset": _bounded(_frozenset),
    "list": _bounded(list), "tuple": _bounded(tuple), "dict": _bounded(_dict), "min": _bounded(min), "max": _bounded(max),
    "sum": _bounded(_sum), "all": _bounded(all), "any": _bounded(any), "bool": bool,
    "int": int, "float": float, "str": str, "complex": complex, "isinstance": isinstance, "divmod": lambda a, b: (_binop(ast.FloorDiv(), a, b), _binop(ast.Mod(), a, b)),
    "pow": _pow, "reversed": _bounded(reversed), "chr": chr, "ord": ord, "repr": repr, "type": type,
}
_TYPES = {"bytes": bytes, "range": range, "NoneType": type(None)}
_MATH = {n: getattr(math, n) for n in (
    "isclose", "sqrt", "fabs", "floor", "ceil", "trunc", "isnan", "isinf", "isfinite", "log", "log2", "log10", "exp",
    "sin", "cos", "tan", "atan", "atan2", "hypot", "degrees", "radians", "copysign", "pi", "e", "inf", "nan", "tau")}
_PYTEST = {"approx": _Approx}
_MODULES = {"math": _MATH, "pytest": _PYTEST}
JUDGE_NAMES = frozenset(_FUNCS) | frozenset(_TYPES) | frozenset(_MODULES)
_EXCEPTIONS = frozenset(n for n, v in vars(__import__("builtins")).items() if isinstance(v, type) and issubclass(v, BaseException))
_WATCHED = JUDGE_NAMES | _EXCEPTIONS


def _bits(x):
    return x.bit_length() if type(x) is int else 0


def _binop(op, a, b):
    """a <op> b on judge values, refusing what would take the judge long (MemoryError, as the child would say)."""
    t = type(op)
    if t is ast.Pow and type(a) is int and type(b) is int and b > 0 and abs(a) > 1 and _bits(a) * b > _MAX_BITS:
        raise MemoryError
    if t is ast.LShift and type(b) is int and b > _MAX_BITS:
        raise MemoryError
    if t is ast.Mult:
        if type(a) is int and type(b) is int and (_bits(a) + _bits(b) > _MAX_BITS or min(_bits(a), _bits(b)) > _MAX_OPERAND_BITS):
            raise MemoryError
        for seq, n in ((a, b), (b, a)):
            if type(n) is int and isinstance(seq, (str, bytes, list, tuple)) and len(seq) * max(n, 0) > _MAX_LEN:
                raise MemoryError
    if t in (ast.FloorDiv, ast.Mod, ast.Div) and type(a) is int and type(b) is int and _bits(b) > _MAX_OPERAND_BITS and _bits(a) > _MAX_OPERAND_BITS:
        raise MemoryError
    return _BINOPS[t](a, b)


_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift, ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_, ast.Invert: operator.invert}


# ---------------------------------------------------------------- planning (parsing only)
class _NotJudged(Exception):
    """The test cannot be decided in the judge: it runs whole in the child."""


def setup_functions(setup):
    """Functions and classes the suite's setup defines: called around a candidate value (`check(f(x), 2)`), one is
    test code running next to the candidate, which can rewrite it, so such a test is judged in the child."""
    try:
        return frozenset(n.name for n in ast.parse(setup).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))) if setup else frozenset()
    except Exception:
        return frozenset()


def shadowed_names(code, setup=None):
    """Judge names (and builtin exception names) the candidate's code or the suite's setup binds at module level,
    so that a test's `abs`, `math` or `ValueError` there would be theirs, not the judge's: tests that use one are
    judged in the child. "*" is in the set when a star import (of anything but a few stdlib modules) could bind
    any name."""
    out = set()
    for src in (code, setup):
        if not src:
            continue
        if len(src) > _PARSE_CAP:
            # Parsing (or even scanning) tens of megabytes of hostile code would cost the judge seconds and
            # gigabytes: such code may bind any name, so its tests are judged in the child (a canonical that large
            # then has no parent-judged pass to show the gate).
            out.add("*")
            continue
        try:
            tree = ast.parse(src)
            for node in tree.body:
                for name in _bound_at_top(node):
                    if name == "*" or name in _WATCHED:
                        out.add(name)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # the child reports the syntax error for every test
        except Exception:  # anything unforeseen in the candidate's code: assume it binds every judge name
            out.add("*")
    return frozenset(out)


_PARSE_CAP = 64 * 1024

_STAR_OK = {"math", "collections", "itertools", "functools", "heapq", "bisect", "re", "operator", "string"}


def _bound_at_top(node):
    """Names a top-level statement binds in the module (function and class bodies are their own scopes, but a
    `global` statement anywhere binds at module level). "*" for a star import of an unknown module."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Global):
            yield from sub.names
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield n.name
            stack.extend(n.decorator_list)
            continue
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            yield n.id
        elif isinstance(n, ast.NamedExpr):
            yield n.target.id
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                if isinstance(n, ast.Import) and a.name in _MODULES and a.asname in (None, a.name):
                    continue  # `import math` binds the module itself: what the judge's math is
                if a.name != "*":
                    yield a.asname or a.name.split(".")[0]
                elif isinstance(n, ast.ImportFrom) and n.module in _STAR_OK and not n.level:
                    import importlib  # stdlib, loaded by the runner's warm-up: nothing new runs

                    yield from (x for x in dir(importlib.import_module(n.module)) if not x.startswith("_"))
                else:
                    yield "*"
        elif isinstance(n, ast.ExceptHandler) and n.name:
            yield n.name
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            yield n.name
        stack.extend(ast.iter_child_nodes(n))


class _Planner:
    def __init__(self, shadowed):
        self.shadowed = shadowed = set(_WATCHED) if "*" in shadowed else set(shadowed)
        self.judge_known = {n for n in JUDGE_NAMES if n not in shadowed} - {"math", "pytest"}
        self.modules = {n for n in ("math", "pytest") if n not in shadowed}
        self.child_names = set()   # names bound by statements the child runs
        self.judge_bound = set()   # names bound by statements the judge evaluates
        self.steps = []            # what the child runs, in order
        self.ops = []              # what the judge does, in order
        self.n_slots = 0
        self.setup_funcs = frozenset()
        self.assert_test = None    # the test of the assert being planned (see leaves, BoolOp)

    # ------------------------------------------------ expressions
    def _is_judge_name(self, name):
        return name in self.judge_bound or (name not in self.child_names and name in self.judge_known)

    def _is_module(self, node):
        return isinstance(node, ast.Name) and node.id in self.modules and node.id not in self.child_names and node.id not in self.judge_bound

    def leaves(self, node, out):
        """Collect the candidate parts of `node` (in evaluation order) into `out`; raise _NotJudged where the
        judge cannot evaluate around them."""
        if isinstance(node, ast.Constant):
            return
        if isinstance(node, ast.Name):
            if node.id in self.shadowed and node.id not in self.child_names:
                raise _NotJudged  # the candidate's own abs, math ...: the test means the candidate's
            if node.id in self.modules and self._is_module(node):
                # A bare module (`pytest is not None`): the judge holds only the modules' functions, not the
                # module, and a module is no plain data a child could return: the child judges such a test.
                raise _NotJudged
            if not self._is_judge_name(node.id):
                out.append(node)
            return
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in self.shadowed:
                raise _NotJudged
            if self._is_module(node.value) and node.attr in _MODULES[node.value.id]:
                return
            out.append(node)
            return
        if isinstance(node, ast.Call):
            fn = node.func
            if isinstance(fn, ast.Name) and fn.id in self.shadowed and fn.id not in self.child_names:
                raise _NotJudged
            if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and fn.value.id in self.shadowed:
                raise _NotJudged
            judged_fn = (isinstance(fn, ast.Name) and fn.id in _FUNCS and self._is_judge_name(fn.id)) or (
                isinstance(fn, ast.Attribute) and self._is_module(fn.value) and callable(_MODULES[fn.value.id].get(fn.attr)))
            if not judged_fn:
                if isinstance(fn, ast.Name) and fn.id in self.setup_funcs and any(not isinstance(a, ast.Constant) for a in node.args):
                    raise _NotJudged
                out.append(node)
                return
            for a in node.args:
                if isinstance(a, ast.Starred):
                    raise _NotJudged
                self.leaves(a, out)
            for k in node.keywords:
                if k.arg is None:
                    raise _NotJudged
                self.leaves(k.value, out)
            return
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if k is None:
                    raise _NotJudged
                self.leaves(k, out)
                self.leaves(v, out)
            return
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    raise _NotJudged
                self.leaves(e, out)
            return
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            self.leaves(node.left, out)
            self.leaves(node.right, out)
            return
        if isinstance(node, ast.UnaryOp):
            self.leaves(node.operand, out)
            return
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And) and node is self.assert_test:
                # `assert a and b`: when a is false the assert fails whether or not b is evaluated (at worst an
                # ERROR where Python says FAIL), so b's candidate parts may run up front.
                for v in node.values:
                    self.leaves(v, out)
                return
            self.leaves(node.values[0], out)
            for v in node.values[1:]:
                self._unconditional_free(v)
            return
        if isinstance(node, ast.IfExp):
            self.leaves(node.test, out)
            self._unconditional_free(node.body)
            self._unconditional_free(node.orelse)
            return
        if isinstance(node, ast.Compare):
            for op, left, right in zip(node.ops, [node.left] + node.comparators, node.comparators):
                if type(op) in (ast.Is, ast.IsNot) and not any(_is_singleton(x) for x in (left, right)):
                    raise _NotJudged  # identity of other objects means nothing across processes
            self.leaves(node.left, out)
            self.leaves(node.comparators[0], out)
            for c in node.comparators[1:]:
                self._unconditional_free(c)
            return
        if isinstance(node, ast.Subscript):
            self.leaves(node.value, out)
            self.leaves(node.slice, out)
            return
        if isinstance(node, ast.Slice):
            for v in (node.lower, node.upper, node.step):
                if v is not None:
                    self.leaves(v, out)
            return
        # Comprehensions, lambdas, f-strings, walrus ...: the judge evaluates only what it can bound (it has no time
        # limit of its own, and a test may be a model's too): such a test runs in the child, under its limits.
        raise _NotJudged

    def _unconditional_free(self, node):
        """A part Python evaluates only on some paths (after `or`/`and`, an `if` branch, a later link of a chained
        comparison) may hold no candidate part: the child evaluates every candidate part up front, so a call the
        test would have skipped (`assert True or f(1)`) could fail or act where the test never reaches it."""
        found = []
        self.leaves(node, found)
        if found:
            raise _NotJudged

    def slot_expr(self, node, truth_ctx):
        """Replace the candidate parts of `node` by slots; returns the judge's expression (an AST)."""
        found = []
        self.leaves(node, found)
        for leaf in found:
            if isinstance(leaf, ast.Name) and leaf.id not in self.child_names:
                # A name the test never bound: the candidate's code or the setup defines it, so both sides of the
                # comparison would be the child's word.
                raise _NotJudged
        opaque = _opaque_ok_nodes(node, truth_ctx)
        mapping = {}
        for leaf in found:
            k = self.n_slots
            self.n_slots += 1
            step = {"v": ast.unparse(leaf)}
            if id(leaf) in opaque:
                step["opaque"] = True
            self.steps.append(step)
            mapping[id(leaf)] = k
        # In place: the tree was parsed for this plan alone, and every leaf was unparsed above.
        return _SlotReplacer(mapping).visit(node), found

    # ------------------------------------------------ statements
    def statements(self, body):
        for st in body:
            self.statement(st)

    def statement(self, st):
        if isinstance(st, ast.Pass):
            return
        if isinstance(st, ast.Assert):
            msg = None
            if isinstance(st.msg, ast.Constant):
                msg = str(st.msg.value)
            elif st.msg is not None:
                found = []
                self.leaves(st.msg, found)
                if found:
                    raise _NotJudged  # a message computed from candidate values: run it whole
                msg = st.msg  # the test's own expression (`assert x == -1, -6`), evaluated by the judge on failure
            self.assert_test = st.test
            expr, _ = self.slot_expr(st.test, True)
            self.ops.append(("assert", expr, msg))
            return
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            name = st.targets[0].id
            if name in JUDGE_NAMES:
                raise _NotJudged
            found = []
            try:
                self.leaves(st.value, found)
            except _NotJudged:
                found = [st.value]  # not judge arithmetic: the child runs the statement
            if not found and name not in self.child_names and name not in self._names_feeding_child:
                expr, _ = self.slot_expr(st.value, False)
                self.judge_bound.add(name)
                self.ops.append(("bind", name, expr))
                return
            self._child_statement(st)
            return
        if isinstance(st, ast.Expr):
            # A statement of its own: the child runs it (an error is the test's outcome).
            self._child_statement(st)
            return
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            for a in st.names:
                bound = a.asname or a.name.split(".")[0]
                if bound in self.judge_bound or bound == "*":
                    raise _NotJudged
                if isinstance(st, ast.Import) and a.asname is None and a.name in _MODULES:
                    continue  # the judge has its own; the child has its own too (the runner's pytest, math)
                self.child_names.add(bound)
            self.steps.append({"x": ast.unparse(st)})
            return
        if isinstance(st, ast.With) and len(st.items) == 1 and st.items[0].optional_vars is None:
            spec = self._raises_spec(st.items[0].context_expr)
            if spec is None:
                raise _NotJudged
            for sub in st.body:
                if not isinstance(sub, (ast.Expr, ast.Assign, ast.Pass)):
                    raise _NotJudged
                if isinstance(sub, ast.Assign):
                    for t in sub.targets:
                        for n in ast.walk(t):
                            if isinstance(n, ast.Name):
                                if n.id in self.judge_bound or n.id in JUDGE_NAMES:
                                    raise _NotJudged
                                self.child_names.add(n.id)
                self._check_child_names_ok(sub)
            k = self.n_slots
            self.n_slots += 1
            self.steps.append({"r": "\n".join(ast.unparse(s) for s in st.body)})
            self.ops.append(("raises", k, spec))
            return
        raise _NotJudged

    def _child_statement(self, st):
        self._check_child_names_ok(st)
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                if n.id in self.judge_bound or n.id in JUDGE_NAMES:
                    raise _NotJudged
                self.child_names.add(n.id)
        self.steps.append({"x": ast.unparse(st)})

    def _check_child_names_ok(self, st):
        # A name the judge holds must never be needed by the child (it would have to cross, and the judge's copy
        # would not see the child's changes to it).
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and n.id in self.judge_bound:
                raise _NotJudged

    def _raises_spec(self, node):
        """(names of builtin exception classes, match pattern or None) for `pytest.raises(E[, match=...])`."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "raises"
                and self._is_module(node.func.value) and node.func.value.id == "pytest" and len(node.args) == 1):
            return None
        match = None
        for k in node.keywords:
            if k.arg != "match" or not isinstance(k.value, ast.Constant) or not isinstance(k.value.value, str):
                return None
            match = k.value.value
        arg = node.args[0]
        elts = arg.elts if isinstance(arg, ast.Tuple) else [arg]
        names = []
        for e in elts:
            cls = _BUILTINS.get(e.id) if isinstance(e, ast.Name) else None
            if not (isinstance(cls, type) and issubclass(cls, BaseException) and e.id not in self.child_names
                    and e.id not in self.judge_bound and e.id not in self.shadowed):
                return None
            names.append(e.id)
        return (tuple(names), match)


def _is_singleton(node):
    return isinstance(node, ast.Constant) and any(node.value is s for s in _SINGLETONS)


def _opaque_ok_nodes(node, truth_ctx):
    """Ids of subexpressions whose value is only truth-tested or compared by identity with None/True/False: an
    object of any type may cross there as an opaque one (its type's name and the child's word on its truth)."""
    out = set()

    def walk(n, truth):
        if truth:
            out.add(id(n))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            walk(n.operand, True)
        elif isinstance(n, ast.BoolOp):
            for v in n.values:
                walk(v, truth)
        elif isinstance(n, ast.IfExp):
            walk(n.test, True)
        elif isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in (ast.Is, ast.IsNot):
            for side in (n.left, n.comparators[0]):
                out.add(id(side))

    walk(node, truth_ctx)
    return out


class _SlotReplacer(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit(self, node):
        k = self.mapping.get(id(node))
        if k is not None:
            return ast.copy_location(ast.Name(id=f"__slot{k}", ctx=ast.Load()), node)
        return super().visit(node)


@functools.lru_cache(maxsize=8192)
def plan_test(test_src, shadowed=frozenset(), setup_funcs=frozenset()):
    """A parent-judged plan for one test, or None when the test must be judged in the child.
    Plan: {"steps": what the child runs (list of {"x": statement} | {"v": expression, "opaque"?} | {"r": body}),
    "ops": what the judge does, in order (("bind", name, expr) | ("assert", expr, msg) | ("raises", slot,
    (exception names, match)))}. Slot k is the k-th "v" or "r" step's report."""
    try:
        mod = ast.parse(test_src, mode="exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not mod.body:
        return None
    p = _Planner(shadowed)
    p.setup_funcs = setup_funcs
    # Names some child statement or candidate part reads: a judge binding of one would have to cross.
    p._names_feeding_child = _names_read_by_child(mod, p)
    try:
        p.statements(mod.body)
    except Exception:  # _NotJudged, RecursionError, MemoryError, or a form the planner did not foresee: the child
        return None
    if not any(op[0] in ("assert", "raises") for op in p.ops):
        return None
    return {"steps": p.steps, "ops": p.ops}


def _names_read_by_child(mod, planner):
    """Names read inside statements the child runs (calls, imports, raises bodies) or inside candidate parts of
    asserts, found on a dry run of the planner; conservative: a read anywhere but a judge-only position counts."""
    dry = _Planner(planner.shadowed)
    reads = set()
    for st in mod.body:
        expr = st.test if isinstance(st, ast.Assert) else st.value if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) else None
        if expr is None:
            reads |= {n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            continue
        found = []
        try:
            dry.leaves(expr, found)
        except _NotJudged:
            found = [expr]
        # A bare name is a reference to a binding, whichever side holds it; names inside a call are its inputs.
        for leaf in found:
            if not isinstance(leaf, ast.Name):
                reads |= {n.id for n in ast.walk(leaf) if isinstance(n, ast.Name)}
    return reads


# ---------------------------------------------------------------- judging
class _Missing(Exception):
    """The child stopped before it reported this slot: the test's outcome is what stopped it."""


class _Judge:
    def __init__(self, slots):
        self.slots = slots
        self.env = {}

    def ev(self, n):
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            if n.id.startswith("__slot"):
                k = int(n.id[6:])
                if k >= len(self.slots):
                    raise _Missing
                return self.slots[k]
            if n.id in self.env:
                return self.env[n.id]
            if n.id in _FUNCS:
                return _FUNCS[n.id]
            if n.id in _TYPES:
                return _TYPES[n.id]
            raise NameError(n.id)
        if isinstance(n, ast.Attribute):
            return _MODULES[n.value.id][n.attr]
        if isinstance(n, ast.Call):
            fn = self.ev(n.func)
            args = [self.ev(a) for a in n.args]
            kw = {k.arg: self.ev(k.value) for k in n.keywords}  # a key= can only be a judge function or data
            return fn(*args, **kw)
        if isinstance(n, ast.BinOp):
            return _binop(n.op, self.ev(n.left), self.ev(n.right))
        if isinstance(n, ast.UnaryOp):
            return _UNARY[type(n.op)](self.ev(n.operand))
        if isinstance(n, ast.BoolOp):
            is_and = isinstance(n.op, ast.And)
            v = None
            for sub in n.values:
                v = self.ev(sub)
                if bool(v) != is_and:
                    return v
            return v
        if isinstance(n, ast.IfExp):
            return self.ev(n.body) if self.ev(n.test) else self.ev(n.orelse)
        if isinstance(n, ast.Compare):
            left = self.ev(n.left)
            for op, c in zip(n.ops, n.comparators):
                right = self.ev(c)
                if not _CMP[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(n, ast.Tuple):
            return tuple(self.ev(e) for e in n.elts)
        if isinstance(n, ast.List):
            return [self.ev(e) for e in n.elts]
        if isinstance(n, ast.Set):
            return _set([self.ev(e) for e in n.elts])
        if isinstance(n, ast.Dict):
            return _dict([(self.ev(k), self.ev(v)) for k, v in zip(n.keys, n.values)])
        if isinstance(n, ast.Subscript):
            return self.ev(n.value)[self.ev(n.slice)]
        if isinstance(n, ast.Slice):
            return slice(*(None if v is None else self.ev(v) for v in (n.lower, n.upper, n.step)))
        raise TypeError(f"the judge does not evaluate {type(n).__name__}")  # the planner never lets one through


_JUDGE_ERRORS = (TypeError, ValueError, ArithmeticError, LookupError, NameError, AttributeError, RecursionError, MemoryError)


def judge(plan, slots, child_outcome=None):
    """The outcome of a parent-judged test from the values the child reported (decoded, in slot order) and the
    outcome that stopped the child early (an error), if any. Judged in the test's order: a failing assert before
    the point where the child stopped is a FAIL, as it would have been in one process."""
    j = _Judge(slots)
    for op in plan["ops"]:
        try:
            if op[0] == "bind":
                j.env[op[1]] = j.ev(op[2])
            elif op[0] == "assert":
                v = j.ev(op[1])
                if isinstance(v, values.Opaque):
                    ok = v.truth
                else:
                    ok = bool(v)
                if not ok:
                    msg = op[2] if op[2] is None or type(op[2]) is str else str(j.ev(op[2]))
                    return _fail(msg) if msg else "FAIL"
            else:
                k, (names, match) = op[1], op[2]
                if k >= len(slots):
                    raise _Missing
                out = _raised(slots[k], names, match)
                if out is not None:
                    return out
        except _Missing:
            return child_outcome or "ERROR: BadReport"
        except _JUDGE_ERRORS as exc:
            if isinstance(exc, TypeError) and any(isinstance(s, values.Opaque) for s in slots):
                return "ERROR: untrusted value type " + next(s.type_name for s in slots if isinstance(s, values.Opaque))
            return "ERROR: " + type(exc).__name__
    return child_outcome or "pass"


_BUILTINS = __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)


def _raised(report, names, match):
    """None when the report matches pytest.raises(names, match=...), else the outcome (the shim's messages)."""
    want = tuple(_BUILTINS[n] for n in names)
    shown = want[0] if len(want) == 1 else want
    if report is None:
        return _fail(f"DID NOT RAISE {shown!r}")
    if not (type(report) is tuple and len(report) == 3 and report[0] == "raised" and type(report[1]) is tuple
            and type(report[2]) is str and all(type(p) is tuple and len(p) == 2 and type(p[1]) is str for p in report[1])):
        return "ERROR: BadReport"
    # The first builtin class of the MRO decides, and the MRO from there must be that class's own: a list naming
    # every exception cannot match every test.
    mro = report[1]
    first = next((i for i, (mod, _) in enumerate(mro) if mod == "builtins"), None)
    if first is None:
        return "ERROR: BadReport"
    cls = _BUILTINS.get(mro[first][1])
    if not (isinstance(cls, type) and issubclass(cls, BaseException)) or tuple(("builtins", c.__name__) for c in cls.__mro__) != mro[first:]:
        return "ERROR: BadReport"
    if not issubclass(cls, want):
        # Not the expected exception: it propagates out of the block, as the child's classify would report it.
        if issubclass(cls, AssertionError):
            return _fail(report[2]) if report[2] else "FAIL"
        return "ERROR: " + mro[0][1][:100]
    if match is not None:
        import re

        if not re.search(match, report[2]):
            return _fail(f"Regex pattern {match!r} did not match {report[2]!r}")
    return None


def _fail(msg):
    return "FAIL: " + msg.replace("\n", " ")[:200]
