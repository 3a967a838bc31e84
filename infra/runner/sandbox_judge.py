"""The judge's side of a suite: runs the suite's code (setup, asserts, check programs, their imports and helpers, every
expected value) in a sandboxed interpreter that never loads the candidate's code.

Each top-level name the candidate's code binds (found from its AST, without running it) is bound in each test's
namespace as the candidate child (sandbox_remote) describes it after running the code afresh for that test:
plain data as that data, a builtin or stdlib module/object as the judge's own copy (`abs = abs` or `import math`
in the candidate gives the test the judge's abs and math), an exception class as a class of the judge's built from
its MRO names (so `pytest.raises(TheirError)` and `except` work), anything else as a proxy (Remote). Calling a
proxy sends the arguments as plain data and gets back plain data (a generator or iterator materialised in the
child, bounded), the arguments' new state (in-place functions), a handle on an object that stays in the child, or
the exception the code raised, which the proxy raises here as the judge's counterpart class. So an expected value
(`math.comb(5, 2)`, `Counter('hello')`, `'abc'.upper()`) is always computed here, by the judge's own stdlib.

What cannot cross is explicit. A callable argument that is not a builtin or stdlib function (a lambda, a test's
own helper), an argument of another type, or comparing/hashing a handle (its `__eq__` is the candidate's) makes the
test *child-judged*: its outcome here is discarded, and after every judge-run test of the suite is decided, the
test runs whole in the candidate's child (sandbox_child.run_whole), its outcome marked "child". A test that calls a
candidate function named like a builtin (MBPP's own `sum`) is marked "child" too: the test may have meant the
builtin, and the candidate answered for it.
"""

import ast
import builtins
import importlib
import json
import os
import signal
import sys

import sandbox_child as child
import sandbox_values as values
from sandbox_wire import FrameError, read_frame

ANSWER_CAP = values.MAX_BYTES + 65536
_STDLIB = frozenset(sys.stdlib_module_names)
_BUILTIN_NAMES = frozenset(vars(builtins))
_PROF = {signal.SIGPROF}
_STAR_OK = {"math", "collections", "itertools", "functools", "heapq", "bisect", "re", "operator", "string"}


# ---------------------------------------------------------------- the candidate's names, from its AST
def candidate_names(code):
    """Top-level names the code binds (def, class, assignment, import, for/with/except targets, `global` in a
    function), in order. A star import of a listed stdlib module gives that module's public names; of anything
    else, nothing (the test cannot reach such names: it is the candidate's word what they are)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # the child reports the error on every reset
    out = {}
    for node in tree.body:
        for name in _bound_at_top(node):
            out[name] = None
    return list(out)


def _bound_at_top(node):
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
                if a.name != "*":
                    yield a.asname or a.name.split(".")[0]
                elif isinstance(n, ast.ImportFrom) and n.module in _STAR_OK and not n.level:
                    yield from (x for x in dir(importlib.import_module(n.module)) if not x.startswith("_"))
        elif isinstance(n, ast.ExceptHandler) and n.name:
            yield n.name
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            yield n.name
        stack.extend(ast.iter_child_nodes(n))


# ---------------------------------------------------------------- the link to the candidate's child
class CandidateGone(BaseException):
    """The candidate's child closed its pipe (it exited, was killed at its limit, or broke the protocol): the suite
    stops here, and the server gives the tests not yet decided the child's own outcome."""


class _Failure(BaseException):
    """The call's result cannot be a value (too large, malformed): the test's outcome, whatever the test does."""


class _JudgeTimeout(BaseException):
    """The test used its CPU time in the judge (an expected value or helper that takes long, judge arithmetic on a
    huge candidate value): that test's outcome; the suite goes on."""


def _on_prof(signum, frame):
    raise _JudgeTimeout


class _ChildJudged(BaseException):
    """Something the test does cannot be decided here (see the module docstring): the test is child-judged."""


class Link:
    def __init__(self, to_fd, from_fd):
        self.to_fd = to_fd
        self.reader = os.fdopen(from_fd, "rb", buffering=0)
        self.exceptions = {}
        self.begin()

    def begin(self):
        self.failure = None     # sticky per test: the test's outcome whatever it catches
        self.child = False      # sticky per test: run it whole in the child afterwards
        self.shadow = False     # a candidate name shadowing a builtin was called
        self.gone = False

    def ask(self, msg):
        # The per-test CPU timer (run_suite) must not interrupt a frame half written or read.
        signal.pthread_sigmask(signal.SIG_BLOCK, _PROF)
        try:
            return self._ask(msg)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _PROF)

    def _ask(self, msg):
        if self.gone:
            raise CandidateGone
        try:
            data = json.dumps(msg).encode()
        except (TypeError, ValueError, RecursionError):
            raise self.fail("ERROR: BadReport") from None
        if len(data) > ANSWER_CAP:
            raise self.fail("ERROR: RequestTooLarge")
        frame = len(data).to_bytes(4, "big") + data
        try:
            while frame:
                frame = frame[os.write(self.to_fd, frame):]
            answer = read_frame(self.reader, ANSWER_CAP)
        except (OSError, FrameError):
            answer = None
        if answer is None:
            self.gone = True
            raise CandidateGone
        return answer

    def fail(self, outcome):
        self.failure = self.failure or outcome
        return _Failure(outcome)

    def to_child(self):
        self.child = True
        return _ChildJudged()

    # ------------------------------------------------ values both ways
    def encode_arg(self, v):
        try:
            return values.encode(v, self._extra)
        except values.Untrusted:
            raise self.to_child() from None
        except (RecursionError, MemoryError, ValueError, TypeError):
            raise self.fail("ERROR: value too large") from None

    def _extra(self, v):
        if type(v) is Remote:
            return ["h", v._t[1]] if v._t[0] == "h" else ["p", v._t[1]]
        ref = _stdlib_callable(v)
        return ["fn", ref] if ref else None

    def result(self, answer, args=(), kwargs=None):
        """The value (or raised exception) an answer stands for."""
        if not isinstance(answer, dict):
            raise self.fail("ERROR: BadReport")
        if "raise" in answer:
            raise self.exception(answer["raise"])
        if "fail" in answer:
            raise self.fail(_text(answer["fail"]))
        if "h" in answer and type(answer["h"]) is int:
            return Remote(self, ["h", answer["h"]], None, _text(answer.get("tn")))
        if "v" not in answer:
            raise self.fail("ERROR: BadReport")
        try:
            value = values.decode(answer["v"])
            for k, enc in answer.get("m", []):
                orig = args[k] if type(k) is int and 0 <= k < len(args) else (kwargs or {}).get(k)
                _update(orig, values.decode(enc, self._handle_back))
        except (values.BadValue, ValueError, TypeError, RecursionError, MemoryError):
            raise self.fail("ERROR: BadReport") from None
        return value

    def _handle_back(self, tag, p):
        if tag == "h" and type(p) is int:
            return Remote(self, ["h", p], None, "object")
        raise values.BadValue("unknown tag")

    def exception(self, report):
        """The judge's exception for a report of one the code raised: the first stdlib class of the MRO is the
        judge's own (checked: the MRO from there must be its own, so one report cannot name every exception), the
        candidate's classes before it are built here on top of it, once per suite."""
        cls = self.exception_class(report[1] if _is_report(report) else None)
        msg = report[2]
        try:
            args = values.decode(report[3]) if report[3] is not None else None
        except (values.BadValue, ValueError, TypeError, RecursionError, MemoryError):
            args = None
        try:
            exc = cls(*args) if type(args) is list and str(cls(*args)) == msg else cls(msg)
        except Exception:
            exc = cls.__new__(cls)
            exc.args = (msg,)
        return exc

    def exception_class(self, mro):
        try:
            mro = tuple((m, n) for m, n in mro) if mro is not None else None
        except (TypeError, ValueError):
            mro = None
        if not mro or not all(type(m) is str and type(n) is str for m, n in mro):
            raise self.fail("ERROR: BadReport")
        cached = self.exceptions.get(mro)
        if cached is not None:
            return cached
        for i, (mod, name) in enumerate(mro):
            base = _stdlib_object(mod, name)
            if base is None:
                continue
            if not (isinstance(base, type) and issubclass(base, BaseException)) or values.mro_names(base) != mro[i:]:
                raise self.fail("ERROR: BadReport")
            cls = base
            for j in range(i - 1, -1, -1):
                cls = self.exceptions.get(mro[j:]) or type(mro[j][1], (cls,), {"__module__": mro[j][0]})
                self.exceptions[mro[j:]] = cls
            return cls
        raise self.fail("ERROR: BadReport")

    # ------------------------------------------------ operations on remote objects
    def call(self, t, args, kwargs):
        msg = {"op": "call", "t": t, "a": [self.encode_arg(a) for a in args], "k": [[k, self.encode_arg(v)] for k, v in kwargs.items()]}
        return self.result(self.ask(msg), args, kwargs)

    def get(self, t, name):
        return self.result(self.ask({"op": "get", "t": t, "n": name}))

    def dunder(self, t, method, *args):
        return self.result(self.ask({"op": "dunder", "t": t, "m": method, "a": [self.encode_arg(a) for a in args]}))


def _text(x):
    return x[: child.MESSAGE_CAP + 40] if type(x) is str else "ERROR: BadReport"


def _is_report(r):
    return type(r) is list and len(r) == 4 and r[0] == "raised" and type(r[1]) is list and type(r[2]) is str


def _update(orig, new):
    """Apply an argument's new state (the candidate changed it in place) to the judge's object."""
    if type(orig) is not type(new):
        raise ValueError("argument changed type")
    if type(orig) is list:
        orig[:] = new
    elif type(orig) in (dict, set):
        orig.clear()
        orig.update(new)


def _stdlib_object(mod, qual):
    if type(mod) is not str or type(qual) is not str or mod.split(".")[0] not in _STDLIB:
        return None
    try:
        obj = importlib.import_module(mod)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except Exception:
        return None
    return obj


def _stdlib_callable(v):
    """[module, qualname] of a builtin or stdlib callable (len, str.lower, operator.mul, math.sqrt, int), so
    that the candidate's child uses its own copy as an argument; None for anything else."""
    if not callable(v):
        return None
    try:
        owner = getattr(v, "__objclass__", None)
        mod = owner.__module__ if isinstance(owner, type) else getattr(v, "__module__", None)
        qual = getattr(v, "__qualname__", None)
    except Exception:
        return None
    if mod is None and isinstance(getattr(v, "__self__", None), type(sys)):
        mod = v.__self__.__name__
    return [mod, qual] if _stdlib_object(mod, qual) is v else None


class Remote:
    """A candidate name or object in the judge: every use is a request to the candidate's child."""

    __slots__ = ("_link", "_t", "_name", "_tn")

    def __init__(self, link, target, name, type_name="function"):
        self._link, self._t, self._name, self._tn = link, target, name, type_name

    def __call__(self, *args, **kwargs):
        if self._name in _BUILTIN_NAMES:
            self._link.shadow = True
        return self._link.call(self._t, args, kwargs)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._link.get(self._t, name)

    def __setattr__(self, name, value):
        # The proxy's own slots are set here; anything else is the test building the candidate's object (MBPP's
        # `root.left = Node(2)`): the value crosses as an argument would.
        if name in Remote.__slots__:
            object.__setattr__(self, name, value)
        else:
            self._link.dunder(self._t, "setattr", name, value)

    def __setitem__(self, key, value):
        self._link.dunder(self._t, "setitem", key, value)

    def __len__(self):
        return self._link.dunder(self._t, "len")

    def __getitem__(self, key):
        return self._link.dunder(self._t, "getitem", key)

    def __iter__(self):
        return iter(self._link.dunder(self._t, "iter"))

    def __contains__(self, item):
        return self._link.dunder(self._t, "contains", item)

    def __str__(self):
        return self._link.dunder(self._t, "str")

    def __repr__(self):
        return self._link.dunder(self._t, "repr")

    def __bool__(self):
        return self._link.dunder(self._t, "bool")

    def __int__(self):
        return self._link.dunder(self._t, "int")

    def __float__(self):
        return self._link.dunder(self._t, "float")

    def __index__(self):
        return self._link.dunder(self._t, "index")

    def __eq__(self, other):
        # Two of the candidate's own objects: its own __eq__ decides, and no judge value is involved.
        if type(other) is Remote:
            return self._link.dunder(self._t, "eq", other)
        return self._refuse()

    def __ne__(self, other):
        return not self.__eq__(other)

    def _refuse(self, *_):
        # An object that stays in the child, compared with or combined with a judge value: its own __eq__ or __sub__
        # would decide against an expected value. It is no value the test can use (as before: an untrusted type).
        raise self._link.fail("ERROR: untrusted value type " + str(self._tn)[:100])

    __lt__ = __le__ = __gt__ = __ge__ = __hash__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __neg__ = __abs__ = _refuse
    __round__ = __mod__ = __rmod__ = __floordiv__ = __rfloordiv__ = __pow__ = __rpow__ = _refuse


def _bind(link, ns, names):
    for name, desc in names.items():
        if type(name) is not str or type(desc) is not list or not desc:
            raise link.fail("ERROR: BadReport")
        kind = desc[0]
        if kind == "v" and len(desc) == 2:
            try:
                ns[name] = values.decode(desc[1])
            except (values.BadValue, ValueError, TypeError, RecursionError, MemoryError):
                raise link.fail("ERROR: BadReport") from None
        elif kind == "b" and len(desc) == 2 and desc[1] in _BUILTIN_NAMES:
            ns[name] = getattr(builtins, desc[1])
        elif kind == "m" and len(desc) == 2 and desc[1] == "pytest":
            ns[name] = child.PYTEST  # the runner's shim (the judge's own copy)
        elif kind == "m" and len(desc) == 2 and _stdlib_object(desc[1], "__name__") is not None:
            ns[name] = importlib.import_module(desc[1])
        elif kind == "r" and len(desc) == 3 and _stdlib_object(desc[1], desc[2]) is not None:
            ns[name] = _stdlib_object(desc[1], desc[2])
        elif kind == "x" and len(desc) == 2:
            ns[name] = link.exception_class(desc[1])
        elif kind == "f":
            ns[name] = Remote(link, ["n", name], name)
        else:
            raise link.fail("ERROR: BadReport")


# ---------------------------------------------------------------- one suite
def run_suite(plan, link, send):
    """Runs every test; `send(i, outcome, judged)` for each decided one, judge-run tests first, then the
    child-judged ones. Stops (returns) when the candidate's child is gone."""
    names = candidate_names(plan["code"])
    signal.signal(signal.SIGPROF, _on_prof)
    test_cpu_s = float(plan.get("test_cpu_s", 1.0))
    entry = plan.get("entry_point")
    setup = plan.get("setup")
    tests = plan["tests"]
    deferred = []
    setup_names = _free_names(setup) if setup else []
    for i, src in enumerate(tests):
        # Names the test looks up that neither the candidate's AST nor the judge's builtins give (code that binds
        # its function through exec or globals()): asked for too, as Python would find the candidate's.
        asked = list(dict.fromkeys(names + setup_names + _free_names(src)))
        signal.setitimer(signal.ITIMER_PROF, test_cpu_s)
        try:
            outcome = _one(link, asked, src, setup, entry)
        except _JudgeTimeout:  # raised between the test's own handlers
            outcome = "ERROR: JudgeTimeout"
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        if link.gone:
            return
        if link.child:
            deferred.append(i)
        else:
            send(i, outcome, "child" if link.shadow else "parent")
    for i in deferred:
        link.begin()
        try:
            answer = link.ask({"op": "whole", "test": tests[i], "setup": setup, "entry": entry})
        except CandidateGone:
            return
        except _Failure:
            answer = {"o": link.failure}
        send(i, _text(answer.get("o")) if isinstance(answer, dict) else "ERROR: BadReport", "child")


def _free_names(src):
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in _BUILTIN_NAMES]


def _one(link, names, src, setup, entry):
    link.begin()
    ns = {"__name__": "__main__", "__builtins__": builtins, "pytest": child.PYTEST}
    try:
        obj = compile(src, "<test>", "exec")
        setup_obj = compile(setup, "<setup>", "exec") if setup else None
        answer = link.ask({"op": "reset", "names": names})
        if not isinstance(answer, dict) or not (isinstance(answer.get("names"), dict) or "raise" in answer):
            raise link.fail("ERROR: BadReport")
        if "raise" in answer:
            raise link.exception(answer["raise"])  # the candidate's code failed as it ran: every test's outcome
        _bind(link, ns, answer["names"])
        if entry:
            candidate = ns[entry]  # the candidate's own (KeyError when it has none), taken before the program runs
            exec(obj, ns)
            ns["check"](candidate)
        else:
            if setup_obj is not None:
                exec(setup_obj, ns)
            exec(obj, ns)
        outcome = "pass"
    except _JudgeTimeout:
        link.fail("ERROR: JudgeTimeout")
        outcome = None
    except BaseException as exc:  # whatever the test does, including catching what a proxy raised
        outcome = child.classify(exc)
    return link.failure or outcome
