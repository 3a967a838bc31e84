"""Execution sandbox for untrusted Python code (code under test is written by LLMs or mutated on purpose).

Processes (`serve`):
  judge   this process. Reads framed requests from Node on stdin, plans each test (sandbox_plan), sends
          the zygote only the candidate's parts of the parent-judged tests (one child), then the tests judged in
          the child (another child, which gets nothing the first needs), judges the values that come back
          (the rest of each assert, pytest.raises included, with its own builtins), answers on stdout.
          It never runs candidate code and never forks after the zygote exists.
  zygote  forked by the judge before any request is read (so its memory holds no expected value); builds
          the read-only view, the Landlock ruleset and the seccomp filter once; forks one child per suite;
          reads the child's report strictly; always kills and reaps it (sandbox_zygote).
  child   isolates itself, runs the candidate and the child's share of each test, reports (sandbox_child).
`once` is the naive baseline for the benchmark: one fresh `python -I` per suite with the same layers, no
fork, and judging in the same process afterwards (a cost baseline, not a safe oracle).

Frames: 4-byte big-endian length + UTF-8 JSON object (sandbox_wire), capped.
Request: {"id", "code", "suite": {"kind": "asserts", "tests": [...], "setup"?} | {"kind": "check",
          "program", "entry_point"}, "timeout_s", "memory_mb"?}
          timeout_s counts the child's time computing or blocked, not its time waiting for a CPU, so a verdict
          near the limit does not depend on the machine's load (sandbox_zygote.run_forked).
Result:  {"id", "outcomes": [...], "judged": ["parent" | "child", ...], "wall_ms", "cpu_ms", "sandbox": {layers},
          "infra_error"?: one line} or {"id", "error": one line} when the request itself was unusable.

Threat model. The code under test and anything it does at run time is hostile; the test suites, this
runner, the interpreter and the kernel are trusted. The child holds the candidate; the judge and the zygote
are separate processes of another uid that the child cannot signal, trace or write to.

Covered:
  - its own verdict: in a parent-judged test (sandbox_plan: asserts, bindings of call results, pytest.raises)
    no expected value enters any child; the child returns the values of the candidate's calls as plain data
    (exact builtin types, depth/size capped, at most 32 distinct values per hash in a set or mapping) and the
    judge evaluates the rest (arithmetic size-guarded). Objects with a lying __eq__/__sub__, patched builtins,
    math or runner functions, forged lines on the result pipe, and searching memory (gc, frames, ctypes) for
    an expected value cannot make such a test pass. A report line out of order or of the wrong shape ends the
    suite as ERROR: BadReport.
  - the host: the child sees a read-only view holding the interpreter's prefix, /usr, two /etc files and
    four /dev nodes; its /tmp and /dev/shm are a private capped tmpfs that dies with it; Landlock allows
    writes only there (whatever the path, dir_fd or ctypes call), reads only beneath the view, no TCP
    bind/connect, no abstract unix sockets or signals outside its domain; its network namespace (one per
    fork server) holds nothing, not even a loopback that is up;
    seccomp refuses sockets, ptrace, mounts, namespaces, keyrings, bpf, io_uring, file handles, and
    sending SIGKILL. It runs as a uid of its own with no capabilities (CAP_DAC_READ_SEARCH included) and
    no_new_privs, under CPU, memory, file-size, open-file and process limits.
  - its neighbours: one uid per fork server plus Landlock's signal scope: it cannot signal other suites.
  - the run: byte caps on every frame and report line, the child killed and reaped whatever happens,
    scratch removal without recursion, any fault outside the code reported as `infra_error` (the caller
    runs the suite once more, and never caches it).
Not covered:
  - tests judged in the child (loops, helper functions, check(candidate) programs kept whole, a candidate that
    rebinds a judge name such as `abs`): a candidate can fake those (the test's code is compiled, and a check
    program loaded, before the candidate's, which narrows but does not close that); they run in a child of
    their own, each outcome says `judged: "child"`, and gate profiles require a number of parent-judged
    passes (from the results, cached with them).
  - a candidate can always fail: its own exit, timeout, memory or CPU limit, an oversized request or value
    are its suite's failure (cached), never an infrastructure fault. It cannot change its limits (seccomp).
  - a candidate that computes the right answer by other means than the intended algorithm (hard-coding).
  - side channels (timing, CPU cache), kernel vulnerabilities, and resource exhaustion below the limits.
  - without root, or on a kernel lacking a layer, that layer is absent; `sandbox` in every result (and
    `validate --json`) says which layers were in force.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # `python -I` leaves the script's dir out

# Warm the modules that candidate code commonly imports, so forked children start with them loaded.
import bisect, collections, copy, datetime, decimal, fractions, functools, heapq, itertools, math  # noqa: E401,F401,E402
import operator, random, re, statistics, string, typing, unicodedata  # noqa: E401,F401,E402
import json  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import tempfile  # noqa: E402

import sandbox_calls  # noqa: E402
import sandbox_child as child  # noqa: E402
import sandbox_kernel as kernel  # noqa: E402
import sandbox_plan  # noqa: E402
import sandbox_values as values  # noqa: E402
import sandbox_zygote as zygote  # noqa: E402
from sandbox_wire import FrameError, read_frame, write_frame  # noqa: E402

RUNNER_VERSION = "sandbox-2"
REQUEST_CAP = 64 * 1024 * 1024


class BadRequest(Exception):
    pass


def make_plan(req):
    """(plans for the zygote, per-test judge plans). At most two plans, each run by a child of its own: the
    parent-judged tests' candidate parts (no expected value), then the tests judged in the child, whole."""
    code, suite, timeout_s = req.get("code"), req.get("suite"), req.get("timeout_s")
    if not isinstance(code, str) or not isinstance(suite, dict):
        raise BadRequest("code must be a string and suite an object")
    if type(timeout_s) not in (int, float) or not timeout_s > 0 or timeout_s > 3600:
        raise BadRequest(f"timeout_s must be a number in (0, 3600], got {timeout_s!r}")
    memory_mb = req.get("memory_mb", 1024)
    if type(memory_mb) is not int or memory_mb < 16:
        raise BadRequest("memory_mb must be an integer >= 16")
    if suite.get("kind") == "asserts" and isinstance(suite.get("tests"), list) and all(isinstance(t, str) for t in suite["tests"]):
        setup, entry = suite.get("setup"), None
        if setup is not None and not isinstance(setup, str):
            raise BadRequest("suite.setup must be a string")
        shadowed = sandbox_plan.shadowed_names(code, setup)
        setup_funcs = sandbox_plan.setup_functions(setup)
        judges = [sandbox_plan.plan_test(t, shadowed, setup_funcs) for t in suite["tests"]]
        tests = suite["tests"]
    elif suite.get("kind") == "calls":  # JavaScript, TypeScript, Go: tests as data (sandbox_calls)
        try:
            return sandbox_calls.make_plan(code, suite, timeout_s, memory_mb)
        except sandbox_calls.BadCalls as exc:
            raise BadRequest(str(exc)) from None
    elif suite.get("kind") == "check" and isinstance(suite.get("program"), str) and isinstance(suite.get("entry_point"), str):
        judges, tests, setup, entry = [None], [suite["program"]], None, suite["entry_point"]
    else:
        raise BadRequest("suite must be {kind: asserts, tests: [str]} or {kind: check, program, entry_point}")
    base = {"code": code, "setup": setup, "timeout_s": timeout_s, "memory_mb": memory_mb}
    plans = []
    parent_items = [{"p": j["steps"]} for j in judges if j is not None]
    child_items = [{"s": t} for j, t in zip(judges, tests) if j is None]
    if parent_items:
        plans.append({**base, "items": parent_items, "entry_point": None})
    if child_items:
        plans.append({**base, "items": child_items, "entry_point": entry})
    return plans, judges


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def visible(outcome):
    """An outcome with control characters as visible escapes: its message or type name may be the candidate's,
    and it is shown in terminals, JSON and HTML (core/visibleText.ts applies the same rule there)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) <= 0xFF else f"\\u{ord(m.group()):04x}", outcome)


def judge_report(judges, items):
    """Outcomes and how each was judged; `items` are the children's report items in test order. A
    parent-judged test is decided here from its values; what its child reported as an outcome can only be a
    failure (the zygote refuses `pass` there), so it stays parent-judged."""
    outcomes, judged = [], []
    for j, item in zip(judges, items):
        if j is not None and "call" in j:
            outcomes.append(sandbox_calls.judge(j, item))
        elif j is not None and "v" in item:
            try:
                vals = [values.decode(v) for v in item["v"]]
            except Exception:  # a hostile child can send any JSON: a malformed value is its own failure
                outcomes.append("ERROR: BadReport")
            else:
                try:
                    outcomes.append(sandbox_plan.judge(j, vals, item.get("o")))
                except Exception as exc:  # the judge's own evaluation must never stop the server
                    outcomes.append("ERROR: " + type(exc).__name__)
        else:
            outcomes.append(item["o"])
        judged.append("child" if j is None else "parent")
    return [visible(o) for o in outcomes], judged


def merge_reports(judges, reports):
    """The per-test items of the (one or two) children's reports, back in test order, and their totals."""
    parent = iter(reports[0]["items"]) if any(j is not None for j in judges) else iter(())
    child = iter(reports[-1]["items"]) if any(j is None for j in judges) else iter(())
    items = [next(child) if j is None else next(parent) for j in judges]
    infra = next((r["infra"] for r in reports if r.get("infra")), None)
    return {"items": items, "wall_ms": round(sum(r["wall_ms"] for r in reports), 3),
            "cpu_ms": round(sum(r.get("cpu_ms", 0.0) for r in reports), 3), "sandbox": reports[0]["sandbox"] or reports[-1]["sandbox"],
            "infra": infra}


def layers(env, child_info):
    """Which isolation layers were in force for one suite (zygote's shared ones + what the child applied)."""
    out = {"view": env["view"], "landlock_abi": env["landlock_abi"]}
    if env.get("view_error"):
        out["view_error"] = env["view_error"]
    out.update(child_info)
    return out


def serve():
    kernel._libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG: go when the Node process goes
    scratch_root = tempfile.mkdtemp(prefix="execretrieval-")
    os.chmod(scratch_root, 0o755)
    judge_pid = os.getpid()
    to_zyg_r, to_zyg_w = os.pipe()
    from_zyg_r, from_zyg_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the zygote: forked before any request exists in this process
        os.close(to_zyg_w)
        os.close(from_zyg_r)
        kernel._libc.prctl(1, signal.SIGKILL, 0, 0, 0)
        try:
            env = zygote.prepare(judge_pid, scratch_root)
            os.write(from_zyg_w, (json.dumps({k: v for k, v in env.items() if k in ("view", "view_error", "landlock_abi", "uid")}) + "\n").encode())
            zygote.serve(to_zyg_r, from_zyg_w, env)
        finally:
            os._exit(1)
    os.close(to_zyg_r)
    os.close(from_zyg_w)
    zyg_in, zyg_out = os.fdopen(to_zyg_w, "wb"), os.fdopen(from_zyg_r, "rb")
    env = json.loads(zyg_out.readline() or "{}")
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    write_frame(stdout, {"ready": True, "runner_version": RUNNER_VERSION, "pid": judge_pid, "layers": env})
    try:
        while True:
            try:
                req = read_frame(stdin, REQUEST_CAP)
            except FrameError as exc:
                sys.stderr.write(f"sandbox: unreadable request stream ({exc}); stopping\n")
                break
            if req is None:
                break
            rid = req.get("id")
            try:
                plans, judges = make_plan(req)
            except BadRequest as exc:
                write_frame(stdout, {"id": rid, "error": f"bad request: {exc}"})
                continue
            reports, why = [], "zygote ended"
            for plan in plans:
                try:
                    write_frame(zyg_in, plan)
                    report = read_frame(zyg_out)
                except (OSError, FrameError) as exc:
                    report, why = None, str(exc)
                if report is None:
                    break
                reports.append(report)
            if len(reports) < len(plans):
                write_frame(stdout, {"id": rid, "error": f"sandbox zygote died: {why}"})
                break
            report = merge_reports(judges, reports)
            outcomes, judged = judge_report(judges, report["items"])
            result = {"id": rid, "outcomes": outcomes, "judged": judged, "wall_ms": report["wall_ms"],
                      "cpu_ms": report.get("cpu_ms", 0.0), "sandbox": layers(env, report["sandbox"])}
            if report.get("infra"):
                result["infra_error"] = report["infra"]
            write_frame(stdout, result)
    finally:
        zyg_in.close()
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        zygote.remove_tree(scratch_root)


def once(scratch_root):
    """Naive baseline: this process *is* the child (`python -I sandbox.py once <scratch-root>`); the caller
    enforces the wall-clock limit by killing our process group and removes the scratch root afterwards.
    Prints one {"i", "o"} line per test on stdout."""
    req = json.loads(sys.stdin.buffer.read())
    plans, judges = make_plan(req)
    # One process runs both plans' items (parent-judged first), as one plan: a cost baseline, not the oracle.
    plan = {**plans[0], "items": [it for p in plans for it in p["items"]], "entry_point": plans[-1]["entry_point"]}
    order = [k for k, j in enumerate(judges) if j is not None] + [k for k, j in enumerate(judges) if j is None]
    out_fd = os.dup(1)
    env = zygote.prepare(os.getpid(), scratch_root)
    env["scratch"] = None if env["view"] else zygote._new_scratch(scratch_root, env["uid"])
    lines = []
    child.run_plan(plan, env, out_fd, emit=lines.append)
    msgs = [json.loads(t) for t in lines]
    got = [{k: v for k, v in m.items() if k != "i"} for m in msgs if "i" in m]
    got += [{"o": "ERROR: NoResult"}] * (len(judges) - len(got))
    items = [None] * len(judges)
    for pos, k in enumerate(order):
        items[k] = got[pos]
    outcomes, _ = judge_report(judges, items)
    for i, o in enumerate(outcomes):
        os.write(out_fd, (json.dumps({"i": i, "o": o}) + "\n").encode())
    os._exit(0)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        once(sys.argv[2])
