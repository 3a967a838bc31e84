"""The zygote: forks one child per plan, reads its report strictly, always kills and reaps it.

The zygote is forked by the judge before the judge reads any request, and it only ever receives plans (the
candidate's code and, per plan, either the candidate's parts of the parent-judged tests or the tests judged in
the child), so a child forked from it finds no expected value of a parent-judged test in its memory. It never runs candidate code itself.
"""

import json
import os
import select
import signal
import stat
import tempfile
import time

import sandbox_calls
import sandbox_child as child
import sandbox_kernel as kernel
import sandbox_values as values
from sandbox_wire import read_frame, write_frame

LINE_CAP = values.MAX_BYTES + 4096
TOTAL_CAP = 64 * 1024 * 1024
UID_BASE = 0x10000000  # + the judge's pid: one uid per live fork server, so siblings cannot signal each other


# ---------------------------------------------------------------- environment, prepared once
LAYERS = ("view", "netns", "landlock", "seccomp", "audit_hook")


def prepare(judge_pid, scratch_root, disabled=()):
    """Build what every child shares: the view (root only), the Landlock paths, the seccomp program.
    `disabled` switches layers off, for the per-layer benchmark only (the fork server never passes it)."""
    env = {"uid": UID_BASE + judge_pid, "view": False, "scratch_root": scratch_root, "view_error": None,
           "disabled": tuple(disabled), "proc_fd": _open_proc()}
    if os.geteuid() == 0 and "view" not in disabled:
        mountpoint = tempfile.mkdtemp(prefix="view-", dir=scratch_root)
        try:
            kernel.build_view(mountpoint)
            env["view"] = True
        except OSError as exc:
            env["view_error"] = str(exc)
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


def serve(req_fd, res_fd, env):
    reader, writer = os.fdopen(req_fd, "rb"), os.fdopen(res_fd, "wb")
    while True:
        plan = read_frame(reader)
        if plan is None:
            os._exit(0)
        try:
            report = run_forked(plan, env)
        except Exception as exc:  # fork or pidfd refused (memory, process table): the server's fault, not the code's
            n = len(plan["items"])
            report = {"items": [{"o": "ERROR: SandboxDied"}] * n, "sandbox": {}, "wall_ms": 0.0, "cpu_ms": 0.0,
                      "infra": f"zygote could not run the suite: {type(exc).__name__}: {exc}"[:300], "violation": None}
        write_frame(writer, report)


# ---------------------------------------------------------------- one suite
class _Report:
    """What the child wrote, accepted line by line in the only order the runner writes it: one `sandbox`
    line first, then test i for i = 0, 1, ... Anything else is a violation: reading stops, the child is
    killed, and the tests not yet reported get `ERROR: BadReport` (only candidate code can cause it)."""

    def __init__(self, kinds):
        self.kinds = kinds  # "e" (values for the judge) or "s" (outcome decided in the child), per test
        self.items = []
        self.meta = None
        self.violation = None
        self.total = 0
        self.partial = bytearray()

    @property
    def complete(self):
        return len(self.items) == len(self.kinds)

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
                if len(self.partial) > LINE_CAP:
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
        elif self.complete or msg.get("i") != len(self.items) or type(msg.get("i")) is not int:
            self.violation = "report line out of order"
        elif self.kinds[msg["i"]] == "e" and set(msg) in ({"i", "v"}, {"i", "v", "o"}) and type(msg["v"]) is list \
                and (type(msg.get("o", "")) is str and msg.get("o") != "pass"):
            # A parent-judged test: the values of its candidate parts, and what stopped it early (never `pass`).
            item = {"v": msg["v"]}
            if "o" in msg:
                item["o"] = msg["o"][: child.MESSAGE_CAP + 40]
            self.items.append(item)
        elif set(msg) == {"i", "o"} and isinstance(msg["o"], str) and not (self.kinds[msg["i"]] == "e" and msg["o"] == "pass"):
            self.items.append({"o": msg["o"][: child.MESSAGE_CAP + 40]})
        else:
            self.violation = "report line has the wrong shape for its test"


def _signal_name(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


def _missing_outcome(timed_out, violation, status, killed_by_us, cpu_s=0.0, cpu_hard_s=float("inf")):
    """The outcome of every test the child did not report, and an infrastructure reason if the cause was
    outside the code. Failing closed: no report means the test did not pass."""
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


def _charged_s(sched, setup_blocked):
    """Seconds of the limit used: CPU time, plus time blocked since the sandbox's own set-up ended (its mounts
    can wait on kernel locks that other sandboxes on the machine hold: a suite measured 260 ms blocked there
    under load, 5 ms of CPU). While the child is runnable, or still in set-up (setup_blocked None), CPU only."""
    cpu_s, blocked_s, runnable = sched
    if runnable or setup_blocked is None:
        return cpu_s
    return cpu_s + max(0.0, blocked_s - setup_blocked)


def run_forked(plan, env):
    kinds = ["e" if "p" in it else "s" for it in plan["items"]]
    report = _Report(kinds)
    scratch = None if env["view"] else _new_scratch(env["scratch_root"], env["uid"])
    start = time.monotonic()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        runner = sandbox_calls.run_child if plan.get("runner") == "calls" else child.run_plan
        runner(plan, {**env, "scratch": scratch}, w)  # never returns
    os.close(w)
    timed_out = killed_by_us = False
    status = usage = None
    pidfd = os.pidfd_open(pid)
    try:
        limit = float(plan["timeout_s"])
        backstop = start + WALL_BACKSTOP_FACTOR * limit + WALL_BACKSTOP_EXTRA_S
        open_fds = [r, pidfd]
        # The charged time grows no faster than wall time, so waiting (limit - charged) never overshoots.
        deadline = start + limit
        setup_blocked = None
        while status is None:
            now = time.monotonic()
            if now >= deadline:
                sched = _sched(env.get("proc_fd"), pid, now - start)
                left = limit - (now - start if sched is None else _charged_s(sched, setup_blocked))
                if left <= 0 or now >= backstop:
                    timed_out = True
                    break
                deadline = min(now + left, backstop)
            ready, _, _ = select.select(open_fds, [], [], max(0.0, deadline - now))
            if r in ready:
                chunk = os.read(r, 65536)
                if chunk:
                    had_meta = report.meta is not None
                    report.feed(chunk)
                    if report.violation:
                        break
                    if not had_meta and report.meta is not None:
                        # Set-up is over (the child's first line): blocking from here on is the code's.
                        sched = _sched(env.get("proc_fd"), pid, time.monotonic() - start)
                        setup_blocked = sched[1] if sched else 0.0
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
    wall_ms = (time.monotonic() - start) * 1000
    infra = None
    if scratch is not None and not remove_tree(scratch):
        infra = f"scratch directory {scratch} could not be removed"
    items = list(report.items)
    cpu_s = usage.ru_utime + usage.ru_stime
    if len(items) < len(kinds):
        missing, why = _missing_outcome(timed_out, report.violation, status, killed_by_us, cpu_s, child.cpu_hard_limit(limit) - 0.05)
        infra = infra or why
        items += [{"o": missing}] * (len(kinds) - len(items))
    # CPU time (user + system) of the child: what a mutant's limit derives from (core/mutation/timeLimit.ts).
    cpu_ms = cpu_s * 1000
    return {"items": items, "sandbox": report.meta or {}, "wall_ms": round(wall_ms, 3), "cpu_ms": round(cpu_ms, 3),
            "infra": infra, "violation": report.violation}
