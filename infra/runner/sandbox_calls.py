"""`calls` suites: JavaScript, TypeScript and Go functions judged on data (docs/oracle.md).

The tests are data (arguments, and the expected value or error), so the judge needs no interpreter of the
candidate's language: it sends the child the arguments only, and compares what comes back with `expected` here,
in the fork server (sandbox.py), which never runs candidate code or suite code (a calls suite has none). The
child is the same sandbox child as for Python, forked by the candidate zygote in its role "calls"
(sandbox_child.isolate: PID, IPC, UTS, user, mount and network namespaces, read-only view, uid, rlimits,
Landlock, seccomp), which then `execve`s the language's runner: `node -e calls_harness.js` (TypeScript arrives already transpiled to
JavaScript, activities/exec/callsBuild.ts) or the Go binary compiled from the candidate and calls_harness.go.
Node and Go need threads, so the child may have several tasks (`nproc`), but a second seccomp filter refuses
every new process (fork, vfork, clone without CLONE_THREAD): a fork bomb gets EPERM, and nothing the child
starts can outlive it.

Report lines (checked by the zygote, sandbox_zygote._Report): {"i", "v": [one result]} or {"i", "v": [], "o": stop},
where a result is {"r": value} (returned; or the `mutates` argument's final state), {"t": name, "m": message}
(a JS/TS throw), {"e": message} (a Go non-nil error result) or {"p": message} (a Go panic).
"""

import base64
import json
import math
import os
import shutil
import struct

import sandbox_child as child
import sandbox_kernel as kernel

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "calls_harness.js"), encoding="utf-8") as _f:
    JS_HARNESS = _f.read()  # read at import: the child's view does not hold the runner's directory

LANGUAGES = ("javascript", "typescript", "go")
# Node and Go start threads (V8's platform workers, libuv, Go's Ms); they count against RLIMIT_NPROC.
NPROC = 64
# Node reserves its code range (128 MB) and more at start: below about 600 MB of address space it cannot start.
MEMORY_MB = 1024
MESSAGE_CAP = child.MESSAGE_CAP
# Where the judge looks for node: inside the child's read-only view (/usr), as `doctor` checks.
NODE_PATH = "/usr/bin:/usr/local/bin"


class BadCalls(Exception):
    pass


def make_plan(code, suite, timeout_s, memory_mb):
    """(the child's plan, per-call judge specs, number of calls). The plan holds the arguments of every call,
    never an expected value; the candidate zygote runs it in the role "calls" (sandbox_zygote.run_forked)."""
    lang, entry, calls = suite.get("language"), suite.get("entry_point"), suite.get("calls")
    if lang not in LANGUAGES or not isinstance(entry, str) or not entry.isidentifier() or not isinstance(calls, list) or not calls:
        raise BadCalls("a calls suite needs language (javascript|typescript|go), an identifier entry_point and calls")
    items, judges = [], []
    for k, c in enumerate(calls):
        if not isinstance(c, dict) or not isinstance(c.get("args"), list) or ("expected" in c) == ("throws" in c):
            raise BadCalls(f"calls[{k}] needs args and exactly one of expected and throws")
        m = c.get("mutates")
        if m is not None and (type(m) is not int or not 0 <= m < len(c["args"])):
            raise BadCalls(f"calls[{k}].mutates must index an argument")
        items.append({"a": c["args"], "m": m})
        judges.append({"call": c, "language": lang})
    if lang == "go":
        try:
            base64.b64decode(code, validate=True)
        except ValueError:
            raise BadCalls("a go calls suite's code must be the base64 of the compiled binary") from None
        runner = {"binary": code}  # decoded by the child: the plan crosses to the zygote as JSON
    else:
        node = shutil.which("node", path=NODE_PATH)
        if not node or not os.path.isabs(node) or not _in_view(node):
            raise BadCalls(f"node ({node!r}) is not inside the sandbox's view ({', '.join(kernel.view_paths())})")
        runner = {"node": node, "code": code}
    plan = {"runner": "calls", "language": lang, "entry_point": entry, "timeout_s": timeout_s,
            "memory_mb": max(memory_mb, MEMORY_MB), "nproc": NPROC, "items": items, **runner}
    return plan, judges, len(judges)


def _in_view(path):
    real = os.path.realpath(path)
    return any(real == p or real.startswith(p.rstrip("/") + "/") for p in kernel.view_paths())


# ---------------------------------------------------------------- the judge (no candidate code here)
def _short(value):
    try:
        text = json.dumps(value, sort_keys=True)
    except (ValueError, TypeError, RecursionError):
        text = "?"
    return text if len(text) <= 60 else text[:57] + "..."


_NONFINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _number(v):
    """A JSON number (bool excluded), or a non-finite one as the harness sends it; None otherwise."""
    if type(v) in (int, float):
        return v
    if type(v) is dict and len(v) == 1 and v.get("$float") in _NONFINITE:
        return _NONFINITE[v["$float"]]
    return None


def same(expected, got, tol, depth=0):
    """Equal as JSON data: numbers as numbers (1 equals 1.0; within `tol` when given), key order ignored."""
    if depth > 200:
        raise RecursionError
    e, g = _number(expected), _number(got)
    if e is not None or g is not None:
        if e is None or g is None:
            return False
        if math.isnan(e) or math.isnan(g):
            return math.isnan(e) and math.isnan(g)
        if tol is not None and math.isfinite(e) and math.isfinite(g):
            return abs(e - g) <= tol
        return e == g
    if type(expected) is list:
        return type(got) is list and len(got) == len(expected) and all(same(a, b, tol, depth + 1) for a, b in zip(expected, got))
    if type(expected) is dict:
        return type(got) is dict and set(got) == set(expected) and all(same(v, got[k], tol, depth + 1) for k, v in expected.items())
    return type(expected) is type(got) and expected == got


def _raised(lang, got):
    """What the call raised in the suite's vocabulary (a JS constructor name, Go's `error` / `panic`), or None."""
    if "t" in got and lang != "go":
        return str(got["t"])[:100]
    if lang == "go" and ("e" in got or "p" in got):
        return "error" if "e" in got else "panic"
    return None


def outcomes(judges, report):
    """Every call's outcome from the child's report (sandbox_zygote.run_forked, role "calls"): a call it did not
    answer gets how the child ended (its timeout, exit, signal). Decided here, in the server, on data only."""
    missing = report.get("end") or "ERROR: NoResult"
    return [judge(spec, report["items"][str(i)]) if str(i) in report["items"] else missing for i, spec in enumerate(judges)]


def judge(spec, item):
    """One call's outcome from its report item: `pass`, `FAIL: ...` (a wrong value, or no error where one was
    expected: the call finished), or `ERROR: <Type>` (an unexpected error, or a stop in the child)."""
    if "o" in item:
        return item["o"]
    v = item.get("v")
    if type(v) is not list or len(v) != 1 or type(v[0]) is not dict or len(v[0]) not in (1, 2):
        return "ERROR: BadReport"
    got, call, lang = v[0], spec["call"], spec["language"]
    raised = _raised(lang, got)
    if "throws" in call:
        if raised is None:
            return "FAIL: DID NOT RAISE " + call["throws"] if "r" in got else "ERROR: BadReport"
        return "pass" if raised == call["throws"] else "ERROR: " + raised
    if raised is not None:
        return "ERROR: " + raised
    if "r" not in got:
        return "ERROR: BadReport"
    try:
        ok = same(call["expected"], got["r"], call.get("approx"))
    except RecursionError:
        return "ERROR: ValueTooDeep"
    return "pass" if ok else f"FAIL: expected {_short(call['expected'])}, got {_short(got['r'])}"[:MESSAGE_CAP]


# ---------------------------------------------------------------- the child
_CLONE_THREAD = 0x00010000
_NR = {"clone": 56, "fork": 57, "vfork": 58, "clone3": 435}
_ENOSYS = 38


def no_new_processes():
    """A seccomp filter stacked on the sandbox's own: threads yes, processes no. fork and vfork get EPERM, clone
    without CLONE_THREAD EPERM, clone3 ENOSYS (glibc then creates threads with clone). x86_64 only."""
    if kernel._ARCH != "x86_64":
        return False
    b = kernel._bpf
    LD, JEQ, JSET, RET = 0x20, 0x15, 0x45, 0x06
    allow, eperm, enosys = kernel._RET_ALLOW, kernel._RET_ERRNO | kernel._EPERM, kernel._RET_ERRNO | _ENOSYS
    prog = [
        b(LD, 4), b(JEQ, kernel.AUDIT_ARCH_X86_64, jt=1), b(RET, kernel._RET_KILL_PROCESS),  # 0-2
        b(LD, 0),  # 3: syscall number
        b(JEQ, _NR["fork"], jt=6), b(JEQ, _NR["vfork"], jt=5),  # 4, 5 -> 11
        b(JEQ, _NR["clone3"], jt=5),  # 6 -> 12
        b(JEQ, _NR["clone"], jt=1),  # 7 -> 9
        b(RET, allow),  # 8
        b(LD, 16), b(JSET, _CLONE_THREAD, jt=2),  # 9, 10: low word of clone's flags -> 13
        b(RET, eperm),  # 11
        b(RET, enosys),  # 12
        b(RET, allow),  # 13
    ]
    return kernel.seccomp_apply(b"".join(struct.pack("=HBBI", *ins) for ins in prog))


def _write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def run_child(plan, env, result_fd):
    """Runs in the forked child: isolate (the audit hook, a Python-only layer, is left out: it would refuse the
    exec and cannot see what Node or Go do), refuse new processes, then exec the runner with the arguments on
    stdin and the report pipe as fd 3. Never returns."""
    try:
        info = child.isolate(plan, {**env, "disabled": tuple(env.get("disabled", ())) + ("audit_hook",)}, (result_fd,))
        info["no_new_processes"] = no_new_processes()
        _write_all(result_fd, (json.dumps({"sandbox": info}) + "\n").encode())
        calls = [{"a": it["a"], "m": it["m"]} for it in plan["items"]]
        if plan["language"] == "go":
            exe = os.path.join(os.getcwd(), "prog")
            fd = os.open(exe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o700)
            _write_all(fd, base64.b64decode(plan["binary"]))
            os.close(fd)
            argv, stdin = [exe], calls
        else:
            exe = plan["node"]
            argv = [exe, "-e", JS_HARNESS]
            stdin = {"code": plan["code"], "entry": plan["entry_point"], "calls": calls}
        fd = os.open("in.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        _write_all(fd, json.dumps(stdin).encode())
        os.close(fd)
        report = os.dup(result_fd)
        fd = os.open("in.json", os.O_RDONLY)
        os.dup2(fd, 0)
        os.dup2(report, 3)
        os.set_inheritable(3, True)
        os.execve(exe, argv, {"PATH": "/usr/bin:/bin", "HOME": os.getcwd(), "TMPDIR": os.getcwd(), "LANG": "C.UTF-8",
                              "GOMAXPROCS": "2", "GOTRACEBACK": "none"})
    except BaseException:
        pass
    os._exit(70)
