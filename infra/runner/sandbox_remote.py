"""The candidate's side of a suite: runs the candidate's code and answers the judge's calls, as plain data.

The candidate child (forked by the candidate zygote, isolated by sandbox_child.isolate) receives the code, never a
test: the judge (sandbox_judge) sends it requests on one pipe and reads answers on another, one frame each
(sandbox_wire). Requests:
  {"op": "reset", "names": [...]}   run the code afresh (each test gets a fresh namespace); answer how each name
                                    the code defines crosses: ["v", value] plain data, ["b", name] the builtin
                                    itself, ["m", module] / ["r", module, qualname] a stdlib module or object,
                                    ["x", mro] an exception class, ["f"] something else (a proxy in the judge).
  {"op": "call", "t", "a", "k"}     call a name or handle with decoded arguments.
  {"op": "get", "t", "n"}           an attribute of a name or handle.
  {"op": "dunder", "t", "m", "a"}   len, getitem, iter, contains, str, repr, bool, int, float, index, eq (with
                                    another handle), setattr, setitem of a handle.
  {"op": "whole", "test", "setup", "entry"}   a child-judged test, run whole here (sandbox_child.run_whole): the
                                    judge sends these only after every judge-run test of the suite is decided.
Answers: {"v": value, "m": [[arg position or keyword, new value]...]} (the arguments the call changed in place),
{"h": handle id, "c": callable?, "tn": type name} (an object that cannot cross as data stays here), {"raise":
report} (sandbox_values.raised_report), {"fail": outcome} (a result too large, an iterator too long), {"o": outcome}.
A target is ["n", name] or ["h", id]. Whatever the candidate does to this process only changes its own answers.
"""

import builtins
import importlib
import json
import os
import sys

import sandbox_child as child
import sandbox_values as values
from sandbox_wire import FrameError, read_frame

ANSWER_CAP = values.MAX_BYTES + 65536
_os_write, _dumps = os.write, json.dumps
_BUILTINS = dict(vars(builtins))  # the originals, taken before any candidate code runs
_STDLIB = frozenset(sys.stdlib_module_names)
_MUTABLE = (list, dict, set)


def _stdlib_ref(v):
    """["m", name] for a stdlib module, ["r", module, qualname] for a stdlib object reachable by that path and
    identical to it, else None. Whatever the code says here only tells the judge to use its own copy."""
    if v is child.PYTEST:
        return ["m", "pytest"]
    t = type(v)
    if t is type(sys):
        name = getattr(v, "__name__", None)
        if type(name) is str and name.split(".")[0] in _STDLIB and sys.modules.get(name) is v:
            return ["m", name]
        return None
    mod, qual = getattr(v, "__module__", None), getattr(v, "__qualname__", None)
    if type(mod) is not str or type(qual) is not str or mod.split(".")[0] not in _STDLIB or mod == "__main__":
        return None
    obj = sys.modules.get(mod)
    for part in qual.split("."):
        obj = getattr(obj, part, None)
    return ["r", mod, qual] if obj is v else None


def describe(name, v):
    """How the top-level name `name`, bound to `v`, crosses to the judge (see the module docstring)."""
    if _BUILTINS.get(name, None) is v and name in _BUILTINS:
        return ["b", name]
    ref = _stdlib_ref(v)
    if ref is not None:
        return ref
    if isinstance(v, type) and issubclass(v, BaseException):
        return ["x", values.mro_names(v)]
    if callable(v):
        return ["f"]
    try:
        return ["v", values.encode(v)]
    except (values.Untrusted, RecursionError, MemoryError, ValueError, TypeError):
        return ["f"]


class _Server:
    def __init__(self, code):
        self.code = code
        self.ns = {}
        self.handles = []
        try:
            self.code_obj = compile(code, "<candidate>", "exec")
            self.compile_error = None
        except BaseException as exc:  # syntax errors, null bytes, surrogates: every test gets the same verdict
            self.code_obj, self.compile_error = None, exc

    def reset(self, names):
        self.handles = []
        self.ns = {"__name__": "__main__", "__builtins__": builtins, "pytest": child.PYTEST}
        if self.compile_error is not None:
            return {"raise": values.raised_report(self.compile_error)}
        try:
            exec(self.code_obj, self.ns)
        except BaseException as exc:
            return {"raise": values.raised_report(exc)}
        out = {}
        for n in names:
            if type(n) is not str:
                continue
            if n in self.ns:
                out[n] = describe(n, self.ns[n])
            elif n not in _BUILTINS and n in vars(builtins):  # a name the code added to builtins (setattr)
                out[n] = describe(n, vars(builtins)[n])
        return {"names": out}

    def target(self, t):
        if type(t) is list and len(t) == 2 and t[0] == "n" and type(t[1]) is str:
            return self.ns[t[1]] if t[1] in self.ns else vars(builtins)[t[1]]
        if type(t) is list and len(t) == 2 and t[0] == "h" and type(t[1]) is int and 0 <= t[1] < len(self.handles):
            return self.handles[t[1]]
        raise values.BadValue("target")

    def _arg(self, tag, p):
        if tag == "h":
            return self.target(["h", p])
        if tag == "p":
            return self.target(["n", p])
        if tag == "fn" and type(p) is list and len(p) == 2 and all(type(x) is str for x in p) and p[0].split(".")[0] in _STDLIB:
            obj = importlib.import_module(p[0])
            for part in p[1].split("."):
                obj = getattr(obj, part)
            return obj
        raise values.BadValue("unknown tag")

    def _handle(self, v):
        for i, h in enumerate(self.handles):
            if h is v:
                return i
        self.handles.append(v)
        return len(self.handles) - 1

    def answer(self, value):
        """A result as plain data, or as a handle on an object that stays here."""
        if values.is_iterator(value):
            value = values.materialise(value)
        try:
            return {"v": values.encode(value)}
        except values.Untrusted as exc:
            if not str(exc).startswith("ERROR: untrusted value type"):
                raise
        except (RecursionError, MemoryError, ValueError, TypeError):
            raise values.Untrusted("ERROR: value too large") from None
        return {"h": self._handle(value), "c": callable(value), "tn": values._type_name(type(value))}

    def call(self, msg):
        fn = self.target(msg.get("t"))
        args = [values.decode(a, self._arg) for a in msg.get("a", [])]
        kwargs = {k: values.decode(a, self._arg) for k, a in msg.get("k", [])}
        op = msg.get("op")
        if op == "call":
            before = [(i, a) for i, a in enumerate(args) if type(a) in _MUTABLE] + [(k, a) for k, a in kwargs.items() if type(a) in _MUTABLE]
            sent = {k: _dumps(msg["a"][k] if type(k) is int else dict(msg["k"])[k]) for k, _ in before}
            out = self.answer(fn(*args, **kwargs))
            changed = []
            for k, a in before:
                try:
                    # Objects inside it (the judge passed handles, or the call put new ones in) go back as handles.
                    enc = values.encode(a, lambda v: ["h", self._handle(v)])
                except (values.Untrusted, RecursionError, MemoryError, ValueError, TypeError):
                    raise values.Untrusted("ERROR: value too large") from None
                if _dumps(enc) != sent[k]:
                    changed.append([k, enc])
            if changed:
                out["m"] = changed
            return out
        if op == "get":
            return self.answer(getattr(fn, msg["n"]))
        method = msg.get("m")
        if method == "iter":
            return self.answer(values.materialise(iter(fn)))
        impl = {"eq": lambda o, x: bool(o == x), "setattr": lambda o, n, v: setattr(o, n, v) if type(n) is str else None,
                "setitem": lambda o, k, v: o.__setitem__(k, v), "len": len, "getitem": lambda o, k: o[k], "contains": lambda o, k: k in o, "str": str, "repr": repr,
                "bool": bool, "int": int, "float": float, "index": lambda o: o.__index__()}.get(method)
        if impl is None:
            raise values.BadValue("dunder")
        return self.answer(impl(fn, *args))

    def handle(self, msg):
        op = msg.get("op")
        if op == "reset":
            return self.reset(msg.get("names") or [])
        if op == "whole":
            return {"o": child.run_whole(self.code, msg.get("setup"), msg.get("test", ""), msg.get("entry"))}
        try:
            return self.call(msg)
        except values.Untrusted as exc:
            return {"fail": str(exc)}
        except values.BadValue:
            raise
        except BaseException as exc:  # what the code raised: the judge raises its counterpart
            return {"raise": values.raised_report(exc)}


def serve(code, cmd_fd, ans_fd):
    """The candidate child's loop after isolation: until the judge closes its pipe. Never returns."""
    server = _Server(code)
    reader = os.fdopen(cmd_fd, "rb", buffering=0)
    while True:
        try:
            msg = read_frame(reader, ANSWER_CAP)
        except FrameError:
            os._exit(0)
        if msg is None:
            os._exit(0)
        try:
            out = server.handle(msg)
            data = _dumps(out).encode()
        except BaseException:  # a malformed request (only a broken judge sends one), or an answer that cannot encode
            data = b'{"fail": "ERROR: BadReport"}'
        if len(data) > values.MAX_BYTES:
            data = b'{"fail": "ERROR: value too large"}'
        frame = len(data).to_bytes(4, "big") + data
        try:
            while frame:
                frame = frame[_os_write(ans_fd, frame):]
        except OSError:
            os._exit(0)
