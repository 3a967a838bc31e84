"""What every sandbox child does to itself (isolate: namespaces, uid, limits, Landlock, seccomp, audit hook), the
pytest shim that test code imports, and how an exception becomes an outcome (classify).

Two kinds of child use it: the candidate (sandbox_remote: runs the candidate's code, answers calls) and the judge
(sandbox_judge: runs the suite's code with the candidate's names as proxies). Another language's runner can call
isolate() before it execs its own toolchain's binary under the same layers.
"""

import builtins
import ctypes
import math
import os
import re
import resource
import signal
import sys
import tempfile
import time
import types

import sandbox_kernel as kernel

MESSAGE_CAP = 200
# Taken when the runner is imported, before any untrusted code: replacing os.write later changes what that code
# calls, not what the runner writes with.
_os_write = os.write


# ---------------------------------------------------------------- the pytest shim (raises, approx)
class _RaisesContext:
    def __init__(self, expected, match=None):
        self.expected = expected
        self.match = match
        self.value = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            raise AssertionError(f"DID NOT RAISE {self.expected!r}")
        if not issubclass(exc_type, self.expected):
            return False
        if self.match is not None and not re.search(self.match, str(exc)):
            raise AssertionError(f"Regex pattern {self.match!r} did not match {str(exc)!r}")
        self.value = exc
        return True


class _Approx:
    """pytest.approx: numbers with math.isclose, lists/tuples/dicts of them element-wise, anything else by ==."""

    __slots__ = ("expected", "rel", "abs")

    def __init__(self, expected, rel, abs_):
        self.expected, self.rel, self.abs = expected, rel, abs_

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


def _make_pytest_shim():
    mod = types.ModuleType("pytest")
    mod.raises = lambda expected, match=None: _RaisesContext(expected, match)
    mod.approx = lambda expected, rel=None, abs=None: _Approx(expected, 1e-6 if rel is None else rel, 1e-12 if abs is None else abs)
    return mod


PYTEST = _make_pytest_shim()
sys.modules["pytest"] = PYTEST


# ---------------------------------------------------------------- first layer: the audit hook
class _CappedText:
    """sys.stdout/sys.stderr replacement: counts what is written, keeps nothing."""

    def __init__(self):
        self.size = 0

    def write(self, s):
        self.size += len(s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False


def classify(exc):
    if isinstance(exc, AssertionError):
        msg = str(exc)
        if not msg:
            return "FAIL"
        return "FAIL: " + msg.replace("\n", " ")[:MESSAGE_CAP]
    return "ERROR: " + type(exc).__name__


def _within(path, root):
    try:
        real = os.path.realpath(path)
    except Exception:
        return False
    return real == root or real.startswith(root + os.sep)


_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_ALWAYS_REFUSED = {
    "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec", "os.system", "subprocess.Popen",
    "os.kill", "os.killpg", "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "socket.sendto", "os.setuid", "os.chroot", "sys.setprofile", "sys.settrace",
}
_PATH_EVENTS = {"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.symlink",
                "os.link", "os.truncate", "os.utime", "shutil.rmtree", "shutil.copyfile", "shutil.move"}


def _install_audit_hook(scratch):
    """A first layer only: a hook sees Python-level events, not what ctypes or dir_fd calls do; the kernel
    layers below it are what actually hold."""
    def hook(event, args):
        if event in _ALWAYS_REFUSED:
            raise PermissionError(f"sandbox: {event} is not allowed")
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS)
            if writing and isinstance(path, (str, bytes, os.PathLike)) and not _within(os.fsdecode(path), scratch):
                raise PermissionError(f"sandbox: writing outside the scratch directory: {path!r}")
        elif event in _PATH_EVENTS:
            for p in args[:2]:
                if isinstance(p, (str, bytes, os.PathLike)) and not _within(os.fsdecode(p), scratch):
                    raise PermissionError(f"sandbox: {event} outside the scratch directory")

    sys.addaudithook(hook)


# ---------------------------------------------------------------- privileges and limits
PR_SET_PDEATHSIG, PR_SET_KEEPCAPS, PR_CAPBSET_DROP = 1, 8, 24
CAP_DAC_READ_SEARCH = 2
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}.get(os.uname().machine)
_libc = kernel._libc


def drop_root(uid, keep_read_search):
    """Become `uid` with an empty bounding set. With the read-only view in place nothing else is needed to
    import the stdlib; without it (no mount namespace) the interpreter may live where `uid` cannot read
    (pyenv under /root, mode 0700), so CAP_DAC_READ_SEARCH is kept alone, and Landlock confines what it reads.
    Returns the capabilities kept."""
    keep = {CAP_DAC_READ_SEARCH} if keep_read_search else set()
    if keep:
        _libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
    for cap in range(64):
        if cap not in keep:
            _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)  # without KEEPCAPS this clears every capability
    if keep and _SYS_CAPSET is not None:
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        bit = 1 << CAP_DAC_READ_SEARCH
        data = (ctypes.c_uint32 * 6)(bit, bit, 0, 0, 0, 0)  # effective, permitted, inheritable (x2 words)
        _libc.syscall(_SYS_CAPSET, header, data)
        _libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    _libc.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    return sorted(keep)


def cpu_hard_limit(timeout_s):
    """The CPU seconds after which the kernel SIGKILLs the child (the soft limit, one second less, sends SIGXCPU)."""
    return int(timeout_s) + 2


def set_limits(timeout_s, memory_mb, nproc=1):
    cpu = cpu_hard_limit(timeout_s) - 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    mem = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024 * 1024,) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Counts every process of this uid (one per fork server): 1 means this child may not fork or start threads.
    # (A calls suite's runner, Node or Go, needs threads: sandbox_calls raises it and refuses new processes.)
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def isolate(plan, env, keep_fds):
    """Everything a sandbox child (candidate or judge) does to itself before untrusted code runs. Returns the layers
    in force. Every descriptor but `keep_fds` is closed; 0, 1 and 2 become /dev/null.

    `env` is the zygote's environment: {"uid", "view": bool, "scratch" (None with a view), "landlock_paths":
    (read, write, device files) | None, "seccomp": bytes | None, "disabled": layers switched off (only the
    per-layer benchmark, bench/sandbox-layers.py, switches any off)}. `plan` gives "timeout_s" and "memory_mb"."""
    off = env.get("disabled", ())
    info = {}
    clock = _StepClock(env.get("time_layers", False))
    try:
        os.setsid()
    except PermissionError:  # already a process-group leader (the `once` baseline is started detached)
        pass
    root = os.geteuid() == 0
    info["netns"] = env["netns"]
    info["pidns"] = env.get("pidns", False)
    if env["view"]:
        info["private_tmp"] = kernel.private_namespaces(env["uid"])
        clock.mark("private_tmp")
        scratch = "/tmp"
    else:
        info["private_tmp"] = False
        scratch = env["scratch"]
    info["ipc_uts"] = root and "ipc_uts" not in off and kernel.own_ipc_uts()
    clock.mark("ipc_uts")
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    _close_all_but(keep_fds)
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": scratch, "TMPDIR": scratch, "LANG": "C.UTF-8"})
    tempfile.tempdir = scratch
    clock.mark("fds_env")
    if root:
        info["uid"] = env["uid"]
        info["caps_kept"] = drop_root(env["uid"], keep_read_search=not env["view"])
    else:
        info["uid"] = os.getuid()
        info["caps_kept"] = []
        _libc.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    # After the uid change (which clears it): die with the zygote (the PID namespace makes that certain).
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    clock.mark("uid_caps")
    set_limits(plan["timeout_s"], plan.get("memory_mb", 1024), plan.get("nproc", 1))
    clock.mark("rlimits")
    ruleset_fd = -1
    if env["landlock_paths"] is not None:
        read, write, devices = env["landlock_paths"]
        ruleset_fd, _ = kernel.landlock_ruleset(read, [scratch if p == env.get("scratch_root") else p for p in write], devices)
    info["landlock"] = kernel.landlock_restrict(ruleset_fd)
    if ruleset_fd >= 0:
        os.close(ruleset_fd)
    clock.mark("landlock")
    # Without the view the interpreter may need CAP_DAC_READ_SEARCH (drop_root), which a new user namespace drops.
    info["userns"] = env["view"] and "userns" not in off and kernel.own_userns()
    clock.mark("userns")
    info["seccomp"] = kernel.seccomp_apply(env["seccomp"])
    clock.mark("seccomp")
    sys.stdout = _CappedText()
    sys.stderr = _CappedText()
    sys.stdin = None
    info["audit_hook"] = "audit_hook" not in off
    if info["audit_hook"]:
        _install_audit_hook(os.path.realpath(scratch))
    clock.mark("audit_hook")
    if clock.on:
        info["setup_us"] = clock.steps
    return info


_SYS_CLOSE_RANGE = {"x86_64": 436, "aarch64": 436}.get(os.uname().machine)


def _close_all_but(keep_fds):
    """Close every fd from 3 up except `keep_fds`: close_range(2) where the kernel has it (one syscall instead of
    65,000 close calls, ~0.5 ms a suite), else os.closerange."""
    lo = 3
    for keep in sorted(set(keep_fds)) + [0x100000000]:
        hi = keep - 1
        if lo <= hi:
            if _SYS_CLOSE_RANGE is None or _libc.syscall(_SYS_CLOSE_RANGE, ctypes.c_uint(lo), ctypes.c_uint(min(hi, 0xFFFFFFFF)), ctypes.c_uint(0)) != 0:
                os.closerange(lo, min(hi + 1, 65536))
        lo = max(lo, keep + 1)


class _StepClock:
    """Per-step set-up time in microseconds, for bench/sandbox-layers.py only (off in the fork server)."""

    def __init__(self, on):
        self.on, self.steps = on, {}
        self.last = time.perf_counter() if on else 0.0

    def mark(self, step):
        if self.on:
            now = time.perf_counter()
            self.steps[step] = round((now - self.last) * 1e6, 1)
            self.last = now


def write_line(fd, text):
    data = (text + "\n").encode()
    while data:
        data = data[_os_write(fd, data):]


def run_whole(code, setup, test, entry=None):
    """One test run whole next to the candidate (a child-judged test, or the `once` baseline): the outcome.
    For a check program (entry set), the program is loaded first in its own namespace and `check` taken before
    the candidate's code runs; it then gets the candidate's other names it does not define."""
    ns = {"__name__": "__main__", "__builtins__": builtins, "pytest": PYTEST}
    try:
        if entry:
            exec(compile(test, "<test>", "exec"), ns)
            check = ns["check"]
            cand = {"__name__": "__main__", "__builtins__": builtins, "pytest": PYTEST}
            exec(compile(code, "<candidate>", "exec"), cand)
            for k, v in cand.items():
                ns.setdefault(k, v)
            check(cand[entry])
        else:
            obj = compile(test, "<test>", "exec")
            exec(compile(code, "<candidate>", "exec"), ns)
            if setup:
                exec(compile(setup, "<setup>", "exec"), ns)
            exec(obj, ns)
        return "pass"
    except BaseException as exc:  # SystemExit, KeyboardInterrupt and MemoryError are outcomes too
        return classify(exc)
