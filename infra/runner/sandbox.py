"""Execution sandbox for untrusted Python, JavaScript, TypeScript and Go code (code under test is written by LLMs
or mutated on purpose, and the suites by LLMs and importers: neither is trusted). docs/oracle.md describes the
design for users.

Processes (`serve`):
  server     this process. Reads framed requests from Node on stdin, checks the size caps before anything parses
             or sends the code or suite, hands each suite to the two zygotes with a pair of pipes between their
             children, merges the two reports, answers on stdout. It runs no untrusted code.
  zygotes    forked before any request is read, in a PID namespace of their own (sandbox_zygote): the candidate
             zygote receives only code and limits; the judge zygote receives the suite. Each forks one child per
             suite, times it, reads its report strictly, always kills and reaps it. The candidate zygote relays
             the two children's traffic, so it charges the candidate only while it is answering.
  judge      child: runs the suite's code with the candidate's names as proxies (sandbox_judge); its own uid,
             limits and layers; reports one line per test.
  candidate  child: runs the candidate's code afresh per test and answers calls with plain data (sandbox_remote).
  calls      child, for a calls suite (JS/TS/Go tests as data): forked by the candidate zygote alone with the
             arguments only, under the same layers; it execs Node or the Go binary (sandbox_calls) and reports one
             plain-data result per call, which this server compares with the expected values (no judge child:
             the suite holds no code).
`once` is the naive baseline for the benchmark: one fresh `python -I` per suite with the same layers, running
each test whole next to the code (a cost baseline, not a safe oracle). `run_local` runs one suite as the server
does without the zygote processes (tests of the fallbacks, bench/sandbox-layers.py).

Frames: 4-byte big-endian length + UTF-8 JSON object (sandbox_wire), capped.
Request: {"id", "code", "suite": {"kind": "asserts", "tests": [...], "setup"?} | {"kind": "check",
          "program", "entry_point"} | {"kind": "calls", "language", "entry_point", "calls"}, "timeout_s",
          "memory_mb"?}  (a calls suite's code: JavaScript, or the base64 of the compiled Go binary)
          timeout_s counts the candidate's time computing or blocked while answering, not its time waiting for a
          CPU or for the judge, so a verdict near the limit depends neither on the machine's load nor on the
          suite's own work (sandbox_zygote.run_forked).
Result:  {"id", "outcomes": [...], "judged": ["parent" | "child", ...], "wall_ms", "cpu_ms" (the candidate's),
          "judge_cpu_ms", "sandbox": {layers, the judge's as judge_*}, "infra_error"?: one line} or {"id", "error":
          one line} when the request itself was unusable.

Threat model. The code under test, the suite's code and anything either does at run time are hostile; this
runner's server and zygotes, the interpreter and the kernel are trusted.

Covered:
  - the candidate's verdict: no expected value is computed in, or sent to, a process that runs candidate code.
    The suite runs in the judge child with the judge's own builtins and stdlib; the candidate child holds the
    code and each call's arguments and was forked from a zygote that never held a test. Values cross as plain
    data (exact builtin types, depth/size capped, at most 32 distinct values per hash); objects that stay in the
    child are handles whose comparison with a judge value fails the test. Patched builtins, stdlib modules,
    sys.modules, type dicts, runner functions, lying __eq__/__sub__, searching memory, forged answers: none
    decides a judge-run test.
  - the host: each child sees a read-only view holding the interpreter's prefix, /usr, two /etc files and
    four /dev nodes; its /tmp and /dev/shm are a private capped tmpfs that dies with it; its own IPC, UTS and
    user namespaces; Landlock allows writes only there, reads only beneath the view, no TCP bind/connect, no
    abstract unix sockets or signals outside its domain; the network namespace (one per server) holds nothing;
    seccomp refuses sockets, ptrace, mounts, namespaces, keyrings, bpf, io_uring, file handles, sending SIGKILL
    and kernel-sent signals of its choice (timer_create, mq_notify, F_SETSIG). It runs as a uid of its own
    with no capabilities and no_new_privs, under CPU, memory, file-size, open-file and process limits.
  - its neighbours: one candidate uid and one judge uid per server, Landlock's signal scope, per-child IPC.
  - the run: byte caps on every frame and report line; size caps on code and suite; every child killed and
    reaped whatever happens, and killed by the kernel with its server's PID namespace; what a test does to its
    judge is that suite's failure; any fault outside the code reported as `infra_error` (retried once by the
    caller, never cached).
Not covered:
  - child-judged tests (an argument that cannot cross as data, a call of a candidate function named like a
    builtin): the candidate decides those; each says `judged: "child"`, and gate profiles count judge-run
    passes. A suite's own code can make its own tests pass or fail (it is the suite).
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
import signal  # noqa: E402
import tempfile  # noqa: E402

import socket  # noqa: E402

import sandbox_calls  # noqa: E402
import sandbox_child as child  # noqa: E402
import sandbox_kernel as kernel  # noqa: E402
import sandbox_zygote as zygote  # noqa: E402
from sandbox_wire import FrameError, read_frame, write_frame  # noqa: E402

RUNNER_VERSION = "sandbox-3"
REQUEST_CAP = 64 * 1024 * 1024
# Checked before anything parses or sends them (the candidate's outcome, never the run's): a snippet or suite
# larger than this is no code a benchmark task needs, and parsing tens of megabytes costs seconds and gigabytes.
CODE_CAP = 1024 * 1024
SUITE_CAP = 4 * 1024 * 1024


class BadRequest(Exception):
    pass


def make_plans(req):
    """(candidate plan, judge plan, number of tests), or (outcome, None, n) when a size cap refuses the request.
    The candidate's plan holds the code and its limits, never a test. A calls suite gives (its child's plan, the
    per-call specs that the server judges with, n): the plan is marked runner "calls" and holds no expected value."""
    code, suite, timeout_s = req.get("code"), req.get("suite"), req.get("timeout_s")
    if not isinstance(code, str) or not isinstance(suite, dict):
        raise BadRequest("code must be a string and suite an object")
    if type(timeout_s) not in (int, float) or not timeout_s > 0 or timeout_s > 3600:
        raise BadRequest(f"timeout_s must be a number in (0, 3600], got {timeout_s!r}")
    memory_mb = req.get("memory_mb", 1024)
    if type(memory_mb) is not int or memory_mb < 16:
        raise BadRequest("memory_mb must be an integer >= 16")
    if suite.get("kind") == "asserts" and isinstance(suite.get("tests"), list) and all(isinstance(t, str) for t in suite["tests"]):
        setup, entry, tests = suite.get("setup"), None, suite["tests"]
        if setup is not None and not isinstance(setup, str):
            raise BadRequest("suite.setup must be a string")
    elif suite.get("kind") == "calls":  # JavaScript, TypeScript, Go: tests as data, judged here (sandbox_calls)
        try:
            plan, specs, n = sandbox_calls.make_plan(code, suite, timeout_s, memory_mb)
        except sandbox_calls.BadCalls as exc:
            raise BadRequest(str(exc)) from None
        # A Go suite's code is its compiled binary (megabytes, bounded by REQUEST_CAP): the cap is on source text.
        if suite["language"] != "go" and len(code) > CODE_CAP:
            return "ERROR: CodeTooLarge", None, n
        if len(json.dumps(suite["calls"])) > SUITE_CAP:
            return "ERROR: SuiteTooLarge", None, n
        return plan, specs, n
    elif suite.get("kind") == "check" and isinstance(suite.get("program"), str) and isinstance(suite.get("entry_point"), str):
        setup, entry, tests = None, suite["entry_point"], [suite["program"]]
    else:
        raise BadRequest("suite must be {kind: asserts, tests: [str]} or {kind: check, program, entry_point}")
    if len(code) > CODE_CAP:
        return "ERROR: CodeTooLarge", None, len(tests)
    if sum(map(len, tests)) + len(setup or "") + len(entry or "") > SUITE_CAP:
        return "ERROR: SuiteTooLarge", None, len(tests)
    cand = {"code": code, "timeout_s": timeout_s, "memory_mb": memory_mb}
    judge = {"code": code, "tests": tests, "setup": setup, "entry_point": entry, "memory_mb": 1024,
             "timeout_s": zygote.judge_limit_s(timeout_s), "candidate_timeout_s": timeout_s, "test_cpu_s": max(1.0, timeout_s)}
    return cand, judge, len(tests)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def visible(outcome):
    """An outcome with control characters as visible escapes: its message or type name may be the candidate's,
    and it is shown in terminals, JSON and HTML (core/visibleText.ts applies the same rule there)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) <= 0xFF else f"\\u{ord(m.group()):04x}", outcome)


def merge(n, judge_rep, cand_rep):
    """Outcomes and how each was judged. A test the judge did not decide gets how the judge ended when that was
    abnormal (its own limit, a bad report), else how the candidate's child ended (its timeout, exit, signal):
    the judge stops at the first test whose candidate is gone."""
    clean = "ERROR: Exited(0)"
    judge_end = judge_rep.get("end")
    if judge_end != clean:
        missing = "ERROR: Judge" + ("Timeout" if judge_end == "TIMEOUT" else str(judge_end).removeprefix("ERROR: "))
    else:
        missing = cand_rep.get("end") or "ERROR: NoResult"
    outcomes, judged = [], []
    for i in range(n):
        item = judge_rep["items"].get(str(i))
        outcomes.append(visible(item["o"] if item else missing))
        judged.append(item["j"] if item else "parent")
    return outcomes, judged


def layers(env, cand_rep, judge_rep):
    """Which isolation layers were in force for one suite: the zygote's shared ones, what the candidate's child
    applied, and the judge child's own under judge_* (it runs the suite's code, which is not trusted either)."""
    out = {"view": env["view"], "landlock_abi": env["landlock_abi"]}
    if env.get("view_error"):
        out["view_error"] = env["view_error"]
    out.update(cand_rep.get("sandbox") or {})
    for k, v in (judge_rep.get("sandbox") or {}).items():
        if isinstance(v, bool):
            out["judge_" + k] = v
    return out


def calls_result(n, specs, rep, env):
    """A calls suite's result from its child's report: every verdict decided here, on data (sandbox_calls)."""
    out = {"outcomes": [visible(o) for o in sandbox_calls.outcomes(specs, rep)], "judged": ["parent"] * n,
           "wall_ms": rep["wall_ms"], "cpu_ms": rep["cpu_ms"], "sandbox": layers(env, rep, {})}
    if rep.get("infra"):
        out["infra_error"] = rep["infra"]
    return out


def _start_zygote(role, server_pid, scratch_root, pidns):
    """Forks a zygote (see sandbox_zygote); returns (its pid, the server's end of their socket, its layers)."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        mine.close()
        kernel._libc.prctl(1, signal.SIGKILL, 0, 0, 0)
        try:
            base = zygote.UID_BASE if role == "candidate" else zygote.JUDGE_UID_BASE
            env = zygote.prepare(server_pid, scratch_root, uid_base=base, pidns=pidns)
            theirs.sendall((json.dumps({k: v for k, v in env.items() if k in ("view", "view_error", "landlock_abi", "uid", "pidns")}) + "\n").encode())
            zygote.serve(theirs, env, role)
        finally:
            os._exit(1)
    theirs.close()
    line = b""
    while not line.endswith(b"\n"):
        chunk = mine.recv(4096)
        if not chunk:
            break
        line += chunk
    return pid, mine, json.loads(line or b"{}")


def serve():
    kernel._libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG: go when the Node process goes
    scratch_root = tempfile.mkdtemp(prefix="execretrieval-")
    os.chmod(scratch_root, 0o755)
    server_pid = os.getpid()
    # The zygotes (and so every child) in a PID namespace of their own: when the first zygote (its init) dies, the
    # kernel kills every child in it, whatever the child did to its own parent-death signal.
    pidns = os.geteuid() == 0 and kernel.own_pidns()
    cand_pid, cand_sock, env = _start_zygote("candidate", server_pid, scratch_root, pidns)
    judge_pid, judge_sock, _ = _start_zygote("judge", server_pid, scratch_root, pidns)
    zyg = {"candidate": (cand_sock, cand_sock.makefile("rb", buffering=0), cand_sock.makefile("wb")),
           "judge": (judge_sock, judge_sock.makefile("rb", buffering=0), judge_sock.makefile("wb"))}
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    write_frame(stdout, {"ready": True, "runner_version": RUNNER_VERSION, "pid": server_pid, "layers": env})
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
                cand, judge, n = make_plans(req)
            except BadRequest as exc:
                write_frame(stdout, {"id": rid, "error": f"bad request: {exc}"})
                continue
            if judge is None:
                write_frame(stdout, {"id": rid, "outcomes": [cand] * n, "judged": ["parent"] * n, "wall_ms": 0.0,
                                     "cpu_ms": 0.0, "sandbox": {}})
                continue
            if cand.get("runner") == "calls":
                try:
                    sock, reader, writer = zyg["candidate"]
                    socket.send_fds(sock, [b"C"], [])
                    write_frame(writer, cand)
                    rep = read_frame(reader)
                except (OSError, FrameError) as exc:
                    rep, why = None, str(exc)
                else:
                    why = "zygote ended"
                if rep is None:
                    write_frame(stdout, {"id": rid, "error": f"sandbox zygote died: {why}"})
                    break
                write_frame(stdout, {"id": rid, **calls_result(n, judge, rep, env)})
                continue
            reports, why = {}, "zygote ended"
            ans_r, ans_w = os.pipe()  # candidate -> judge
            cmd_r, cmd_w = os.pipe()  # judge -> candidate
            try:
                for role, plan, fds in (("candidate", cand, [cmd_r, ans_w]), ("judge", judge, [ans_r, cmd_w])):
                    sock, _, writer = zyg[role]
                    socket.send_fds(sock, [b"P"], fds)
                    write_frame(writer, plan)
            except OSError as exc:
                why = str(exc)
            finally:
                for fd in (ans_r, ans_w, cmd_r, cmd_w):
                    os.close(fd)
            for role in ("judge", "candidate"):
                try:
                    reports[role] = read_frame(zyg[role][1])
                except (OSError, FrameError) as exc:
                    why = str(exc)
                if reports.get(role) is None:
                    break
            if len([r for r in reports.values() if r is not None]) < 2:
                write_frame(stdout, {"id": rid, "error": f"sandbox zygote died: {why}"})
                break
            outcomes, judged = merge(n, reports["judge"], reports["candidate"])
            result = {"id": rid, "outcomes": outcomes, "judged": judged,
                      "wall_ms": max(reports["judge"]["wall_ms"], reports["candidate"]["wall_ms"]),
                      "cpu_ms": reports["candidate"]["cpu_ms"], "judge_cpu_ms": reports["judge"]["cpu_ms"],
                      "sandbox": layers(env, reports["candidate"], reports["judge"])}
            infra = reports["candidate"].get("infra") or reports["judge"].get("infra")
            if infra:
                result["infra_error"] = infra
            write_frame(stdout, result)
    finally:
        # Both killed before either is reaped, the judge zygote reaped first: the candidate zygote is the init of
        # the PID namespace both live in, and an init does not finish exiting while another process of its
        # namespace is unreaped.
        for role, pid in (("candidate", cand_pid), ("judge", judge_pid)):
            zyg[role][0].close()
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in (judge_pid, cand_pid):
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
        zygote.remove_tree(scratch_root)


def run_local(req, scratch_root, disabled=(), time_layers=False):
    """One suite the way the server runs it, in this process and one fork of it instead of the two zygotes (the
    candidate's child and the judge's child are the same): for tests of the fallbacks and the per-layer benchmark
    (bench/sandbox-layers.py), which switch layers off with `disabled`. Returns the result object (no id)."""
    cand, judge, n = make_plans(req)
    if judge is None:
        return {"outcomes": [cand] * n, "judged": ["parent"] * n}
    if "env" not in _LOCAL:  # built once per process: the view moves this process into it
        env = zygote.prepare(os.getpid(), scratch_root, disabled=disabled)
        _LOCAL["env"] = env
    env = {**_LOCAL["env"], "time_layers": time_layers}
    if cand.get("runner") == "calls":
        rep = zygote.run_forked(cand, env, "calls", [])
        out = calls_result(n, judge, rep, env)
        return {**out, "infra": out.pop("infra_error", None)}
    judge_env = {**env, "uid": env["uid"] - zygote.UID_BASE + zygote.JUDGE_UID_BASE}
    ans_r, ans_w = os.pipe()
    cmd_r, cmd_w = os.pipe()
    rp, wp = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rp)
            os.close(ans_r)
            os.close(cmd_w)
            rep = json.dumps(zygote.run_forked(cand, env, "candidate", [cmd_r, ans_w])).encode()
            while rep:
                rep = rep[os.write(wp, rep):]
        finally:
            os._exit(0)
    for fd in (wp, cmd_r, ans_w):
        os.close(fd)
    judge_rep = zygote.run_forked(judge, judge_env, "judge", [ans_r, cmd_w])
    os.close(ans_r)
    os.close(cmd_w)
    with os.fdopen(rp, "rb") as fh:
        cand_rep = json.loads(fh.read())
    os.waitpid(pid, 0)
    outcomes, judged = merge(n, judge_rep, cand_rep)
    return {"outcomes": outcomes, "judged": judged, "wall_ms": max(judge_rep["wall_ms"], cand_rep["wall_ms"]),
            "cpu_ms": cand_rep["cpu_ms"], "judge_cpu_ms": judge_rep["cpu_ms"], "sandbox": layers(env, cand_rep, judge_rep),
            "infra": cand_rep.get("infra") or judge_rep.get("infra")}


_LOCAL = {}


def once(scratch_root):
    """Naive baseline: this process *is* the child (`python -I sandbox.py once <scratch-root>`), with the same
    layers, running each test whole next to the code (no judge of its own: a cost baseline, not a safe oracle);
    the caller enforces the wall-clock limit by killing our process group and removes the scratch root
    afterwards. Prints one {"i", "o"} line per test on stdout."""
    req = json.loads(sys.stdin.buffer.read())
    cand, plan, _ = make_plans(req)
    if plan is None or cand.get("runner") == "calls":
        sys.stderr.write("sandbox once: a Python suite within the size caps only\n")
        os._exit(2)
    out_fd = os.dup(1)
    env = zygote.prepare(os.getpid(), scratch_root)
    env["scratch"] = None if env["view"] else zygote._new_scratch(scratch_root, env["uid"])
    child.isolate(plan, env, (out_fd,))
    for i, test in enumerate(plan["tests"]):
        outcome = child.run_whole(plan["code"], plan["setup"], test, plan["entry_point"])
        child.write_line(out_fd, json.dumps({"i": i, "o": visible(outcome)}))
    os._exit(0)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        once(sys.argv[2])
