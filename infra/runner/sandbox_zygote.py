"""A zygote: forks one sandbox child per request, reads its report strictly, always kills and reaps it.

The fork server (sandbox.py) forks two before it reads any request, each preparing the shared layers once:
  candidate zygote  receives only the candidate's code and limits (never a test), forks the candidate child
                    (sandbox_remote), so no child that runs candidate code finds any test's text in its memory;
  judge zygote      receives the suite, forks the judge child (sandbox_judge), which runs it under a uid, limits
                    and namespaces of its own: what a test does to its judge is that suite's failure.
The two children talk over two pipes the server creates per suite and hands each zygote with its request
(SCM_RIGHTS on the zygote's socket). Neither zygote runs untrusted code itself.
A calls suite (JavaScript, TypeScript, Go: sandbox_calls) goes to the candidate zygote alone, in the role
"calls": its child, under the same layers, execs the language's runner with the arguments only and reports one
plain-data result per call; the server compares them with the expected values (no judge child: the suite is
data, not code).
"""

import json
import os
import select
import signal
import socket
import stat
import tempfile
import time

import sandbox_calls
import sandbox_child as child
import sandbox_judge as judge
import sandbox_kernel as kernel
import sandbox_remote as remote
from sandbox_wire import read_frame, write_frame

LINE_CAP = 64 * 1024
CALLS_LINE_CAP = (1 << 20) + 4096  # a call's result is plain data up to 1 MiB (calls_harness.js/.go MAX_BYTES)
TOTAL_CAP = 64 * 1024 * 1024
UID_BASE = 0x10000000  # + the server's pid: one candidate uid per live fork server, so siblings cannot signal each other
JUDGE_UID_BASE = 0x11000000  # + the server's pid: its judge children's uid (pids stay below 2**22)


# ---------------------------------------------------------------- environment, prepared once
LAYERS = ("view", "netns", "ipc_uts", "userns", "landlock", "seccomp", "audit_hook")


def prepare(server_pid, scratch_root, disabled=(), uid_base=UID_BASE, pidns=False):
    """Build what every child shares: the view (root only), the Landlock paths, the seccomp program.
    `disabled` switches layers off, for the per-layer benchmark only (the fork server never passes it).
    `pidns`: this zygote lives in the server's own PID namespace (kernel.own_pidns)."""
    env = {"uid": uid_base + server_pid, "view": False, "scratch_root": scratch_root, "view_error": None,
           "disabled": tuple(disabled), "proc_fd": None if pidns else _open_proc(), "pidns": pidns}
    if os.geteuid() == 0 and "view" not in disabled:
        mountpoint = tempfile.mkdtemp(prefix="view-", dir=scratch_root)
        try:
            kernel.build_view(mountpoint)
            env["view"] = True
        except OSError as exc:
            env["view_error"] = str(exc)
        if pidns and env["view"]:
            env["proc_fd"] = kernel.own_proc()  # the host's /proc shows other pids than fork() returns here
    env["netns"] = os.geteuid() == 0 and "netns" not in disabled and kernel.own_netns()
    read_paths = [p for p in kernel.view_paths() if os.path.exists(p)]
    write_paths = ["/tmp", "/dev/shm"] if env["view"] else [scratch_root]
    # Landlock rules hold inodes, so the ruleset is built by each child once its own /tmp is mounted.
    env["landlock_paths"] = None if "landlock" in disabled else (read_paths, write_paths, list(kernel.DEVICES))
    env["landlock_abi"] = kernel.landlock_abi()
    env["seccomp"] = None if "seccomp" in disabled else kernel.seccomp_program()
    return env


def _open_proc():
    """A handle on /proc, opened before the view hides it: the zygote reads its children's schedstat through it
    (_sched). Close-on-exec, and every child closes all descriptors but its result pipe before any candidate
    code runs. None when there is no /proc (the limit is then wall time)."""
    try:
        return os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None


def serve(sock, env, role):
    """One request at a time from the server: a byte carrying the two pipe ends (SCM_RIGHTS), then the plan.
    The candidate zygote also takes calls plans (runner "calls"), which come with no pipe."""
    reader, writer = sock.makefile("rb", buffering=0), sock.makefile("wb")
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 1, 2)
        except OSError:
            os._exit(0)
        if not msg:
            os._exit(0)
        plan = read_frame(reader)
        this = "calls" if role == "candidate" and isinstance(plan, dict) and plan.get("runner") == "calls" else role
        if plan is None or len(fds) != (0 if this == "calls" else 2):
            os._exit(1)
        try:
            report = run_forked(plan, env, this, fds)
        except Exception as exc:  # fork or pidfd refused (memory, process table): the server's fault, not the code's
            report = {"items": {}, "sandbox": {}, "wall_ms": 0.0, "cpu_ms": 0.0, "end": "ERROR: SandboxDied",
                      "infra": f"zygote could not run the suite: {type(exc).__name__}: {exc}"[:300]}
        finally:
            for fd in fds:
                os.close(fd)
        write_frame(writer, report)


# ---------------------------------------------------------------- one suite
class _Report:
    """What a child wrote, accepted line by line: one `sandbox` line first, then (a judge) one {"i", "o", "j"}
    line per test, each test once, or (a calls child) one {"i", "v"[, "o"]} line per call, in order, whose "o" is
    never `pass` (a value to judge, or what stopped the call). Anything else is a violation: reading stops and
    the child is killed. A candidate child writes nothing after its sandbox line (it answers the judge on its
    own pipe)."""

    def __init__(self, n_tests, calls=False):
        self.n = n_tests
        self.calls = calls
        self.line_cap = CALLS_LINE_CAP if calls else LINE_CAP
        self.items = {}
        self.done = False
        self.meta = None
        self.violation = None
        self.total = 0
        self.partial = bytearray()

    def feed(self, chunk):
        self.total += len(chunk)
        if self.total > TOTAL_CAP:
            self.violation = "report exceeds the byte cap"
            return
        start = 0
        while self.violation is None:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                self.partial += chunk[start:]
                if len(self.partial) > self.line_cap:
                    self.violation = "report line exceeds the byte cap"
                return
            self.partial += chunk[start:nl]
            line, self.partial = bytes(self.partial), bytearray()
            start = nl + 1
            self._line(line)

    def _line(self, line):
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            self.violation = "report line is not JSON"
            return
        if not isinstance(msg, dict):
            self.violation = "report line is not an object"
        elif self.meta is None:
            if set(msg) != {"sandbox"} or not isinstance(msg["sandbox"], dict):
                self.violation = "report does not start with the sandbox line"
            else:
                self.meta = msg["sandbox"]
        elif self.done:
            self.violation = "report line after the end"
        elif self.calls:
            if msg.get("i") != len(self.items) or type(msg["i"]) is not int or msg["i"] >= self.n \
                    or set(msg) not in ({"i", "v"}, {"i", "v", "o"}) or type(msg["v"]) is not list \
                    or type(msg.get("o", "")) is not str or msg.get("o") == "pass":
                self.violation = "report line has the wrong shape for its call"
            else:
                item = {"v": msg["v"]}
                if "o" in msg:
                    item["o"] = msg["o"][: child.MESSAGE_CAP + 40]
                self.items[msg["i"]] = item
        elif msg == {"done": True} and self.n:
            self.done = True
        elif set(msg) == {"i", "o", "j"} and type(msg["i"]) is int and 0 <= msg["i"] < self.n and msg["i"] not in self.items \
                and type(msg["o"]) is str and msg["j"] in ("parent", "child"):
            self.items[msg["i"]] = {"o": msg["o"][: child.MESSAGE_CAP + 40], "j": msg["j"]}
        else:
            self.violation = "report line has the wrong shape"


def _signal_name(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


def _missing_outcome(timed_out, violation, status, killed_by_us, cpu_s=0.0, cpu_hard_s=float("inf")):
    """How the child ended, as the outcome of every test it left undecided, and an infrastructure reason if the
    cause was outside the code. Failing closed: no report means the test did not pass."""
    if violation:
        return "ERROR: BadReport", None
    if timed_out:
        return "TIMEOUT", None
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU:
            return "TIMEOUT", None
        if sig == signal.SIGKILL and cpu_s >= cpu_hard_s:
            # The kernel's SIGKILL at the CPU hard limit the runner set (sandbox_child.set_limits): the code's time.
            return "TIMEOUT", None
        if sig == signal.SIGKILL and not killed_by_us:
            # The child cannot send SIGKILL (seccomp) and no sibling can signal it (uid, Landlock scope): the
            # kill came from outside (an operator, the OOM killer). Not the code's outcome.
            return "ERROR: Signal(SIGKILL)", "child killed by SIGKILL from outside the sandbox"
        # Any other signal is the code's doing (its own kill, its timers, its descriptors, its limits): seccomp
        # leaves it no way to make the kernel send SIGKILL (kernel.seccomp_program).
        return f"ERROR: Signal({_signal_name(sig)})", None
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return f"ERROR: Exited({code})", None


def _new_scratch(root, uid):
    scratch = tempfile.mkdtemp(prefix="s-", dir=root)
    if os.geteuid() == 0:
        os.chown(scratch, uid, uid)
    return scratch


def remove_tree(path):
    """rmtree that deep trees cannot break: iterative, through directory fds (no path grows, no recursion,
    one open directory at a time), never following symlinks. True when `path` is gone."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    stack = []  # (name of the current directory in its parent, subdirectories of the parent still to do)
    try:
        pending = _clear_files(fd)
        while True:
            if pending:
                name = pending.pop()
                try:
                    sub = os.open(name, flags, dir_fd=fd)
                except OSError:
                    os.unlink(name, dir_fd=fd)  # replaced by a non-directory meanwhile
                    continue
                stack.append((name, pending))
                os.close(fd)
                fd, pending = sub, _clear_files(sub)
                continue
            if not stack:
                break
            name, pending = stack.pop()
            parent = os.open("..", flags, dir_fd=fd)
            os.close(fd)
            fd = parent
            os.rmdir(name, dir_fd=fd)
    except OSError:
        return False
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError:
        return False
    return True


def _clear_files(dir_fd):
    """Unlink every non-directory in the directory; return the names of its subdirectories."""
    subdirs = []
    for name in os.listdir(dir_fd):
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            subdirs.append(name)
        else:
            os.unlink(name, dir_fd=dir_fd)
    return subdirs


def _kill_group(pid):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass


# A suite's time limit counts the time the child spends computing (on a CPU) or blocked (sleeping, waiting on
# I/O) once the sandbox's set-up is done, never the time it waits for a CPU on a busy machine: so a verdict near
# the limit is the same whatever the load. The kernel's schedstat gives on-CPU time and run-queue wait (ns). A
# busy child's run-queue wait is counted only once it is back on a CPU, so while it is runnable only its CPU
# time is used, which is exact for it (_charged_s).
# WALL_BACKSTOP_* bound the wall time whatever the load (a child starved that long is a TIMEOUT, failing closed);
# the Node watchdog (activities/exec/forkServer.ts) waits longer than the backstop.
WALL_BACKSTOP_FACTOR = 10
WALL_BACKSTOP_EXTRA_S = 5


def _read_proc(proc_fd, path):
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC, dir_fd=proc_fd)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def _sched(proc_fd, pid, wall_s):
    """(CPU seconds, seconds blocked, runnable?) of the child so far; blocked = neither on a CPU nor waiting for
    one (exact only while it is not runnable: a runnable child's current wait is not in run_delay yet). None
    when the kernel has no schedstat (the limit is then plain wall time)."""
    if proc_fd is None:
        return None
    try:
        on_cpu_ns, wait_ns = (int(x) for x in _read_proc(proc_fd, f"{pid}/schedstat").split()[:2])
        state = _read_proc(proc_fd, f"{pid}/stat").rsplit(b")", 1)[1].split()[0]
    except (OSError, ValueError, IndexError):
        return None
    return on_cpu_ns / 1e9, max(0.0, wall_s - (on_cpu_ns + wait_ns) / 1e9), state == b"R"


def _own_run_delay(proc_fd):
    """Seconds this process has waited for a CPU so far (schedstat), or None."""
    if proc_fd is None:
        return None
    try:
        return int(_read_proc(proc_fd, "self/schedstat").split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def _charged_s(sched, setup_blocked):
    """Seconds of the limit used: CPU time, plus time blocked since the sandbox's own set-up ended (its mounts
    can wait on kernel locks that other sandboxes on the machine hold: a suite measured 260 ms blocked there
    under load, 5 ms of CPU). While the child is runnable, or still in set-up (setup_blocked None), CPU only."""
    cpu_s, blocked_s, runnable = sched
    if runnable or setup_blocked is None:
        return cpu_s
    return cpu_s + max(0.0, blocked_s - setup_blocked)


def _candidate_main(plan, env, w, fds):
    cmd_r, ans_w = fds
    info = child.isolate(plan, env, (w, cmd_r, ans_w))
    child.write_line(w, json.dumps({"sandbox": info}))
    remote.serve(plan["code"], cmd_r, ans_w)


def _judge_main(plan, env, w, fds):
    ans_r, cmd_w = fds
    info = child.isolate(plan, env, (w, ans_r, cmd_w))
    child.write_line(w, json.dumps({"sandbox": info}))
    link = judge.Link(cmd_w, ans_r)
    judge.run_suite(plan, link, lambda i, o, j: child.write_line(w, json.dumps({"i": i, "o": o, "j": j})))
    child.write_line(w, json.dumps({"done": True}))
    os._exit(0)


class _Relay:
    """The candidate zygote passes every request from the judge to the candidate and every answer back, so it knows
    when the candidate is answering and when it is only waiting for the judge: the candidate's time limit counts
    the first, never the second (the judge's own work on a test is not the candidate's time). Non-blocking both
    ways with bounded buffers: neither side can stall the zygote by not reading."""

    def __init__(self, judge_cmd_r, judge_ans_w, cand_cmd_w, cand_ans_r):
        self.jr, self.jw, self.cw, self.cr = judge_cmd_r, judge_ans_w, cand_cmd_w, cand_ans_r
        for fd in (self.jw, self.cw, self.jr, self.cr):
            os.set_blocking(fd, False)
        self.to_c, self.to_j = bytearray(), bytearray()
        self.answer_left = None  # bytes of the answer frame still to come (None: waiting for a header)
        self.head = bytearray()
        self.working = False  # a request is with the candidate and its answer is not complete
        self.overflow = False

    def read_fds(self):
        return [fd for fd, buf in ((self.jr, self.to_c), (self.cr, self.to_j)) if fd is not None and len(buf) < judge.ANSWER_CAP]

    def write_fds(self):
        return [fd for fd, buf in ((self.cw, self.to_c), (self.jw, self.to_j)) if fd is not None and buf]

    def step(self, readable):
        """Moves what it can; returns "work", "idle" on a transition, else None."""
        change = None
        if self.jr in readable:
            data = self._read(self.jr)
            if data is None:
                os.close(self.jr)
                self.jr = None
                if not self.to_c:
                    self._close("cw")
            elif data:
                self.to_c += data
                if not self.working:
                    self.working, change = True, "work"
        if self.cr in readable:
            data = self._read(self.cr)
            if data is None:
                os.close(self.cr)
                self.cr = None
            elif data:
                self.to_j += data
                if self._answers_done(data) and self.working:
                    self.working, change = False, "idle"
        # Written at once (non-blocking), not on the next turn: the candidate's time starts when its request is in
        # its pipe, so that no delay of this zygote's is counted as the candidate's.
        for attr, buf in (("cw", self.to_c), ("jw", self.to_j)):
            fd = getattr(self, attr)
            if fd is not None and buf:
                try:
                    n = os.write(fd, buf)
                except BlockingIOError:
                    n = 0
                except OSError:
                    self._close(attr)
                    buf.clear()
                    continue
                del buf[:n]
        if self.jr is None and not self.to_c:
            self._close("cw")
        if self.cr is None and not self.to_j:
            self._close("jw")
        return change

    def _read(self, fd):
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return b""
        except OSError:
            return None
        return data or None

    def _answers_done(self, data):
        """Parses the answer frames' length headers: True when the data ended an answer frame."""
        done, i = False, 0
        while i < len(data):
            if self.answer_left is None:
                take = min(4 - len(self.head), len(data) - i)
                self.head += data[i:i + take]
                i += take
                if len(self.head) == 4:
                    self.answer_left = int.from_bytes(self.head, "big")
                    self.head = bytearray()
            if self.answer_left is not None:
                take = min(self.answer_left, len(data) - i)
                self.answer_left -= take
                i += take
                if self.answer_left == 0:
                    self.answer_left, done = None, True
        return done

    def _close(self, attr):
        fd = getattr(self, attr)
        if fd is not None:
            os.close(fd)
            setattr(self, attr, None)

    def close(self):
        for attr in ("cw", "jw"):
            self._close(attr)
        for fd in (self.jr, self.cr):
            if fd is not None:
                os.close(fd)
        self.jr = self.cr = None


def judge_limit_s(timeout_s):
    """CPU seconds a suite's judge may use: its tests' own work (expected values, helpers), never the candidate's."""
    return max(10.0, 2.0 * timeout_s)


def run_forked(plan, env, role, fds):
    """Forks the candidate child (role "candidate": its time limit is the suite's timeout, counting time blocked),
    the judge child (role "judge": CPU seconds only, since it waits for the candidate, and a wall backstop past the
    candidate's) or a calls child (role "calls", timed as a candidate: sandbox_calls.run_child). Returns {"items"
    (judge: test -> outcome, judged; calls: call -> its plain-data result, kept up to where the child stopped),
    "end" (how the child ended: "ERROR: Exited(0)" when it exited cleanly), "sandbox", "wall_ms", "cpu_ms",
    "infra"}."""
    report = _Report(len(plan["items"]), calls=True) if role == "calls" else _Report(len(plan.get("tests", ())))
    scratch = None if env["view"] else _new_scratch(env["scratch_root"], env["uid"])
    start = time.monotonic()
    r, w = os.pipe()
    relay = None
    if role == "candidate":
        cmd_r, cmd_w = os.pipe()
        ans_r, ans_w = os.pipe()
        child_fds = (cmd_r, ans_w)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            if role == "candidate":
                os.close(cmd_w)
                os.close(ans_r)
                _candidate_main(plan, {**env, "scratch": scratch}, w, child_fds)
            elif role == "calls":
                sandbox_calls.run_child(plan, {**env, "scratch": scratch}, w)
            else:
                _judge_main(plan, {**env, "scratch": scratch}, w, fds)
        finally:
            os._exit(70)
    os.close(w)
    if role == "candidate":
        os.close(cmd_r)
        os.close(ans_w)
        relay = _Relay(os.dup(fds[0]), os.dup(fds[1]), cmd_w, ans_r)
    timed_out = killed_by_us = False
    status = usage = None
    pidfd = os.pidfd_open(pid)
    try:
        limit = float(plan["timeout_s"])
        if role != "judge":
            backstop = start + WALL_BACKSTOP_FACTOR * limit + WALL_BACKSTOP_EXTRA_S
        else:
            backstop = start + WALL_BACKSTOP_FACTOR * float(plan["candidate_timeout_s"]) + WALL_BACKSTOP_EXTRA_S + limit
        open_fds = [r, pidfd]
        # The charged time grows no faster than wall time, so waiting (limit - charged) never overshoots.
        deadline = start + limit
        setup_blocked = None
        idle_blocked, idle_since = 0.0, None  # seconds blocked waiting for the judge; blocked time when it began
        while status is None:
            now = time.monotonic()
            if now >= deadline:
                sched = _sched(env.get("proc_fd"), pid, now - start)
                if sched is None:
                    used = now - start if role != "judge" else 0.0
                elif role != "judge":  # a candidate's or calls child's time (a calls child never waits on a judge)
                    waiting = idle_blocked + (sched[1] - idle_since if idle_since is not None else 0.0)
                    used = _charged_s(sched, setup_blocked) - (waiting if setup_blocked is not None and not sched[2] else 0.0)
                else:
                    used = sched[0]
                left = limit - used
                if left <= 0 or now >= backstop:
                    timed_out = True
                    break
                deadline = min(now + max(left, 0.01), backstop)
            wfds = relay.write_fds() if relay else []
            # This zygote's own wait for a CPU while it sleeps here: the time a starved zygote takes to notice an
            # answer, during which the candidate is already waiting for the judge (not charged to it).
            own_delay = _own_run_delay(env.get("proc_fd")) if relay and relay.working else None
            ready, writable, _ = select.select(open_fds + (relay.read_fds() if relay else []), wfds, [], max(0.0, deadline - now))
            if relay and (writable or any(fd in ready for fd in relay.read_fds())):
                change = relay.step(ready)
                if change is not None and setup_blocked is not None:
                    sched = _sched(env.get("proc_fd"), pid, time.monotonic() - start)
                    if sched is not None and change == "idle":
                        late = _own_run_delay(env.get("proc_fd"))
                        gap = max(0.0, late - own_delay) if late is not None and own_delay is not None else 0.0
                        idle_since = max(0.0, sched[1] - gap)
                    elif sched is not None and idle_since is not None:
                        idle_blocked += sched[1] - idle_since
                        idle_since = None
            if r in ready:
                chunk = os.read(r, 65536)
                if chunk:
                    had_meta = report.meta is not None
                    report.feed(chunk)
                    if report.violation:
                        break
                    if not had_meta and report.meta is not None:
                        # Set-up is over (the child's first line): blocking from here on is the code's, except (a
                        # candidate) while it waits for the judge's next request.
                        sched = _sched(env.get("proc_fd"), pid, time.monotonic() - start)
                        setup_blocked = sched[1] if sched else 0.0
                        if relay is not None and not relay.working:
                            idle_since = setup_blocked
                else:
                    open_fds.remove(r)
            if pidfd in ready:
                # Exited: what it wrote before exiting is still in the pipe (nothing else holds its write end).
                _, status, usage = os.wait4(pid, 0)
                os.set_blocking(r, False)
                try:
                    while report.violation is None and (chunk := os.read(r, 65536)):
                        report.feed(chunk)
                except BlockingIOError:
                    pass
    finally:
        if status is None:
            _kill_group(pid)
            killed_by_us = True
            _, status, usage = os.wait4(pid, 0)
        os.close(pidfd)
        os.close(r)
        if relay is not None:
            relay.close()
    wall_ms = (time.monotonic() - start) * 1000
    infra = None
    if scratch is not None and not remove_tree(scratch):
        infra = f"scratch directory {scratch} could not be removed"
    cpu_s = usage.ru_utime + usage.ru_stime
    # "ERROR: Exited(0)" is a clean end: for a candidate, only the server can tell whether it came before the judge
    # had finished (sandbox.merge).
    end, why = _missing_outcome(timed_out, report.violation, status, killed_by_us, cpu_s, child.cpu_hard_limit(limit) - 0.05)
    if role == "judge" and end == "ERROR: Exited(0)" and not report.done:
        end = "ERROR: Exited(0) before its last line"
    infra = infra or why
    if report.violation or (end != "ERROR: Exited(0)" and role != "calls"):
        # A judge that broke its report or ended abnormally (the suite's own code can do both: it runs there)
        # decides nothing: every test gets how it ended.
        report.items = {}
    # CPU time (user + system) of the child: what a mutant's limit derives from (core/mutation/timeLimit.ts).
    return {"items": {str(k): v for k, v in report.items.items()}, "end": end, "sandbox": report.meta or {},
            "wall_ms": round(wall_ms, 3), "cpu_ms": round(cpu_s * 1000, 3), "infra": infra}
