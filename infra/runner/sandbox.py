"""Execution sandbox for untrusted Python code (code under test is written by LLMs or mutated on purpose).

Two entry points share the same child logic:
  serve   a pre-warmed fork server: reads framed JSON requests on stdin, forks one child per suite,
          answers framed JSON results on stdout. Parent and child are separate functions (as EvalPlus does);
          the parent never runs candidate code and holds no threads or database handles when it forks.
  once    the naive baseline: one fresh `python -I` per suite, same limits, same child logic, no fork.

Frames: 4-byte big-endian length + UTF-8 JSON.
Request: {"id", "code", "suite": {"kind": "asserts", "tests": [...], "setup"?} | {"kind": "check",
          "program", "entry_point"}, "timeout_s", "memory_mb"?}
Result:  {"id", "outcomes": [...], "wall_ms", "sandbox": {...what isolation was in force}}

Isolation, layered (each layer covers what the one before may not):
  fork -> setsid (own process group, killed whole on timeout) -> own network namespace where the kernel
  allows -> chdir to a fresh scratch dir -> rlimits (CPU, address space, file size, open files, processes,
  no core) -> drop to `nobody` when started as root (root ignores RLIMIT_NPROC and can write anywhere) ->
  an audit hook that refuses process creation, sockets and writes outside the scratch dir -> stdin/stdout/
  stderr on /dev/null with sys.stdout/sys.stderr capped in memory.
Per-test outcomes stream to the parent as they finish, so a child that dies or hangs mid-suite still
reports the tests it completed; the status of an unreported test is decided by the parent (fail closed).
"""

import builtins
import ctypes
import json
import os
import resource
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import types

# Warm the modules that candidate code commonly imports, so forked children start with them loaded.
import bisect, collections, copy, datetime, decimal, fractions, functools, heapq, itertools, math  # noqa: E401,F401
import operator, random, re, statistics, string, typing, unicodedata  # noqa: E401,F401

RUNNER_VERSION = "sandbox-1"
CLONE_NEWNET = 0x40000000
NOBODY = 65534
OUTPUT_CAP = 64 * 1024
MESSAGE_CAP = 200

_libc = ctypes.CDLL(None, use_errno=True)


# ---------------------------------------------------------------- the pytest.raises shim
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


def _make_pytest_shim():
    mod = types.ModuleType("pytest")
    mod.raises = lambda expected, match=None: _RaisesContext(expected, match)
    mod.approx = lambda expected, rel=1e-6, abs=1e-12: _Approx(expected, rel, abs)
    return mod


class _Approx:
    def __init__(self, expected, rel, abs_):
        self.expected, self.rel, self.abs = expected, rel, abs_

    def __eq__(self, other):
        return math.isclose(other, self.expected, rel_tol=self.rel, abs_tol=self.abs)


PYTEST = _make_pytest_shim()
sys.modules["pytest"] = PYTEST


# ---------------------------------------------------------------- child side
class _CappedText:
    """sys.stdout/sys.stderr replacement: keeps the first OUTPUT_CAP characters, drops the rest."""

    def __init__(self):
        self.size = 0

    def write(self, s):
        self.size += len(s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False


def _classify(exc):
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


PR_SET_PDEATHSIG, PR_SET_KEEPCAPS, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 8, 24, 38
CAP_DAC_READ_SEARCH = 2
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}.get(os.uname().machine)


def _drop_root():
    """Become `nobody`, keeping only CAP_DAC_READ_SEARCH.

    Root ignores RLIMIT_NPROC and may write anywhere, so root must go. But the interpreter may live where
    `nobody` cannot read (pyenv under /root, mode 0700), and candidate code must still import the stdlib:
    keeping the read-and-search capability, and nothing else, keeps imports working without write access.
    No new privileges can be gained afterwards (setuid binaries are inert), and the bounding set is empty
    but for that one capability.
    """
    _libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
    for cap in range(64):
        if cap != CAP_DAC_READ_SEARCH:
            _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)
    if _SYS_CAPSET is not None:
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        bit = 1 << CAP_DAC_READ_SEARCH
        data = (ctypes.c_uint32 * 6)(bit, bit, 0, 0, 0, 0)  # effective, permitted, inheritable (x2 words)
        _libc.syscall(_SYS_CAPSET, header, data)
    _libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    return True


def _set_limits(timeout_s, memory_mb):
    cpu = int(timeout_s) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    mem = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024 * 1024,) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Counts every process of the (unprivileged) user: 1 means this child may not fork or start threads.
    resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))


def _isolate(scratch, timeout_s, memory_mb, result_fd):
    """Everything the child does to itself before candidate code runs. Returns what was in force."""
    info = {}
    try:
        os.setsid()
    except PermissionError:  # already a process-group leader (the `once` baseline is started detached)
        pass
    info["netns"] = _libc.unshare(CLONE_NEWNET) == 0
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    os.closerange(3, result_fd)
    os.closerange(result_fd + 1, 65536)
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": scratch, "TMPDIR": scratch, "LANG": "C.UTF-8"})
    tempfile.tempdir = scratch
    info["uid_dropped"] = _drop_root() if os.geteuid() == 0 else False
    # After the uid change (which clears it): die with the fork server, never outlive it.
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    _set_limits(timeout_s, memory_mb)
    sys.stdout = _CappedText()
    sys.stderr = _CappedText()
    sys.stdin = None
    _install_audit_hook(os.path.realpath(scratch))
    info["audit_hook"] = True
    return info


def _emit(fd, obj):
    data = (json.dumps(obj) + "\n").encode()
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _tests_of(suite):
    if suite["kind"] == "asserts":
        return suite["tests"]
    return [suite["program"]]


def child_main(req, scratch, result_fd):
    """Runs in the child. Never returns normally: exits the process."""
    try:
        info = _isolate(scratch, req["timeout_s"], req.get("memory_mb", 1024), result_fd)
        _emit(result_fd, {"sandbox": info})
        suite = req["suite"]
        tests = _tests_of(suite)
        try:
            code_obj = compile(req["code"], "<candidate>", "exec")
            setup = suite.get("setup") if suite["kind"] == "asserts" else None
            setup_obj = compile(setup, "<setup>", "exec") if setup else None
            test_objs = [compile(t, f"<test {i}>", "exec") for i, t in enumerate(tests)]
        except BaseException as exc:  # syntax errors, null bytes, surrogates: every test gets the same verdict
            outcome = "ERROR: " + type(exc).__name__
            for i in range(len(tests)):
                _emit(result_fd, {"i": i, "o": outcome})
            os._exit(0)
        for i, test_obj in enumerate(test_objs):
            ns = {"__name__": "__main__", "__builtins__": builtins, "pytest": PYTEST}
            try:
                exec(code_obj, ns)
                if setup_obj is not None:
                    exec(setup_obj, ns)
                exec(test_obj, ns)
                if suite["kind"] == "check":
                    ns["check"](ns[suite["entry_point"]])
                outcome = "pass"
            except BaseException as exc:  # SystemExit, KeyboardInterrupt and MemoryError are outcomes too
                outcome = _classify(exc)
            _emit(result_fd, {"i": i, "o": outcome})
    except BaseException:
        os._exit(70)
    os._exit(0)


# ---------------------------------------------------------------- parent side
def _signal_name(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


def _finish(n_tests, reported, timed_out, status):
    """Fill in unreported tests. Failing closed: no report means the test did not pass."""
    if timed_out:
        missing = "TIMEOUT"
    elif status is None:
        missing = "ERROR: NoResult"
    elif os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        missing = "TIMEOUT" if sig == signal.SIGXCPU else f"ERROR: Signal({_signal_name(sig)})"
    else:
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
        missing = f"ERROR: Exited({code})"
    return [reported.get(i, missing) for i in range(n_tests)]


def _parse_lines(buf, reported, meta):
    *lines, rest = buf.split(b"\n")
    for line in lines:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if "sandbox" in msg:
            meta.update(msg["sandbox"])
        elif isinstance(msg.get("i"), int) and isinstance(msg.get("o"), str):
            reported.setdefault(msg["i"], msg["o"][: MESSAGE_CAP + 16])
    return rest


def _kill_group(pid):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except ProcessLookupError:
            pass
        except PermissionError:
            pass


def _new_scratch(root):
    scratch = tempfile.mkdtemp(prefix="s-", dir=root)
    if os.geteuid() == 0:
        os.chown(scratch, NOBODY, NOBODY)
    return scratch


def run_forked(req, scratch_root):
    n_tests = len(_tests_of(req["suite"]))
    scratch = _new_scratch(scratch_root)
    r, w = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        child_main(req, scratch, w)
    os.close(w)
    deadline = start + float(req["timeout_s"])
    reported, meta, buf, timed_out = {}, {}, b"", False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([r], [], [], left)
        if not ready:
            continue
        chunk = os.read(r, 65536)
        if not chunk:
            break
        buf = _parse_lines(buf + chunk, reported, meta)
    os.close(r)
    _kill_group(pid)
    _, status = os.waitpid(pid, 0)
    wall_ms = (time.monotonic() - start) * 1000
    shutil.rmtree(scratch, ignore_errors=True)
    if len(reported) == n_tests:
        timed_out = False  # finished in time; the deadline passed while we were collecting its exit
    outcomes = _finish(n_tests, reported, timed_out, None if timed_out else status)
    return {"id": req.get("id"), "outcomes": outcomes, "wall_ms": round(wall_ms, 3), "sandbox": meta}


def _read_frame(stream):
    head = stream.read(4)
    if len(head) < 4:
        return None
    (size,) = struct.unpack(">I", head)
    return json.loads(stream.read(size))


def _write_frame(stream, obj):
    data = json.dumps(obj).encode()
    stream.write(struct.pack(">I", len(data)) + data)
    stream.flush()


def serve():
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)  # go when the Node process that started us goes
    scratch_root = tempfile.mkdtemp(prefix="execretrieval-")
    os.chmod(scratch_root, 0o755)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    _write_frame(stdout, {"ready": True, "runner_version": RUNNER_VERSION, "pid": os.getpid()})
    try:
        while True:
            req = _read_frame(stdin)
            if req is None:
                break
            try:
                result = run_forked(req, scratch_root)
            except Exception as exc:  # a bad request must not take the server down
                result = {"id": req.get("id"), "error": f"{type(exc).__name__}: {exc}"}
            _write_frame(stdout, result)
    finally:
        shutil.rmtree(scratch_root, ignore_errors=True)


def once(scratch_root):
    """Naive baseline: this process *is* the child (`python -I sandbox.py once <scratch-root>`); the caller
    enforces the wall-clock limit by killing our process group and removes the scratch root afterwards."""
    req = json.loads(sys.stdin.buffer.read())
    scratch = _new_scratch(scratch_root)
    child_main(req, scratch, os.dup(1))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        once(sys.argv[2])
