"""Kernel isolation layers for the sandbox child, through raw syscalls (ctypes; no third-party package).

Each function returns whether its layer is now in force; none raises on a kernel that lacks the feature, so
the sandbox can say exactly which layers it had (sandbox.py records them per result).

  view      (zygote, once)  a mount namespace whose root is a read-only tmpfs holding only what Python needs:
                            the interpreter's prefix and sys.path, /usr (shared libraries), a few /etc files,
                            /dev/{null,zero,urandom,random}; pivot_root into it, the host tree detached.
  netns     (zygote, once)  a network namespace with nothing in it (loopback down), shared by the server's
                            children, which run one at a time; per child it would cost ~1-3 ms for nothing more
                            (sockets are refused by seccomp, abstract ones scoped by Landlock).
  private   (child)         own mount namespace; a fresh size- and inode-capped tmpfs on /tmp (the scratch
                            directory) and /dev/shm, gone with the child's namespace when it dies.
  landlock  (child)         read-only beneath the view's paths, read-write beneath /tmp and /dev/shm, no TCP
                            bind or connect, no signals and no abstract unix sockets outside its own domain.
  pidns     (server, once)  a PID namespace whose init is the zygote: its children die with it (own_pidns).
  ipc, uts  (child)         own System V IPC / POSIX mqueue namespace and host name (own_ipc_uts).
  userns    (child)         own user namespace with nothing mapped, after the uid change (own_userns).
  seccomp   (child)         refuses syscalls no test needs (sockets, ptrace, mounts, namespaces, keyrings, bpf,
                            io_uring, module loading, file handles), changing resource limits (setrlimit,
                            prlimit64 with a new limit), sending SIGKILL to anyone and asking the kernel to send
                            a signal of its choice later (timer_create, mq_notify, F_SETSIG), so a
                            SIGKILL death is always from outside the child (the oracle reports it as an
                            infrastructure fault, not as the code's outcome).
"""

import ctypes
import os
import struct
import sys

_libc = ctypes.CDLL(None, use_errno=True)
_ARCH = os.uname().machine

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID = 0x00020000, 0x40000000, 0x20000000
CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWUSER = 0x08000000, 0x04000000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2

_SYSCALLS = {
    "x86_64": {"pivot_root": 155, "landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446},
    "aarch64": {"pivot_root": 41, "landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446},
}.get(_ARCH, {})


def _check(ret, what):
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(src, target, fstype, flags, data=None):
    _check(_libc.mount(src.encode() if src else None, target.encode(), fstype.encode() if fstype else None, flags,
                       data.encode() if data else None), f"mount {target}")


# ---------------------------------------------------------------- the read-only view (built once, by the zygote)
def view_paths():
    """Host paths the child may read: the interpreter and its import path, shared libraries, a few /etc files."""
    wanted = [sys.prefix, sys.base_prefix, sys.exec_prefix, "/usr", "/etc/ld.so.cache", "/etc/localtime"]
    # The runner's own directory is left out: the zygote imported every runner module before forking.
    here = os.path.dirname(os.path.abspath(__file__))
    wanted += [p for p in sys.path if p and os.path.isabs(p) and os.path.realpath(p) != here]
    out = []
    for p in wanted:
        p = os.path.realpath(p)
        if os.path.exists(p) and p not in out:
            out.append(p)
    # Drop paths already inside another one (a bind of the parent covers them).
    return sorted(p for p in out if not any(q != p and p.startswith(q.rstrip("/") + "/") for q in out))


DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


def build_view(mountpoint):
    """Enter a private mount namespace whose root is the minimal read-only view. Root only; the caller's
    process (the zygote) and everything it forks see only the view afterwards. Returns the paths bound."""
    _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", mountpoint, "tmpfs", MS_NOSUID, "size=1m,nr_inodes=4096,mode=0755")
    paths = view_paths()
    for p in paths:
        _bind_ro(p, mountpoint + p)
    for top in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):  # merged-/usr symlinks, as on the host
        host = "/" + top
        if os.path.islink(host) and not os.path.exists(mountpoint + host):
            os.symlink(os.readlink(host), mountpoint + host)
    os.makedirs(mountpoint + "/dev/shm", exist_ok=True)
    for dev in DEVICES:
        if os.path.exists(dev):
            open(mountpoint + dev, "w").close()
            _mount(dev, mountpoint + dev, None, MS_BIND)
    os.makedirs(mountpoint + "/tmp", 0o755, exist_ok=True)
    os.chdir(mountpoint)
    # pivot_root(".", "."): the old root ends up stacked under the new one and is detached at once.
    _check(_libc.syscall(_SYSCALLS["pivot_root"], b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "umount old root")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
    return paths


def _bind_ro(src, dst):
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        open(dst, "w").close()
    _mount(src, dst, None, MS_BIND | MS_REC)
    _mount(None, dst, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


# ---------------------------------------------------------------- per child: private namespaces and scratch
def private_namespaces(uid, tmp_mb=64, tmp_inodes=4096):
    """Own mount namespace; fresh capped tmpfs on /tmp and /dev/shm owned by `uid`. Root only."""
    if _libc.unshare(CLONE_NEWNS) != 0:
        return False
    opts = f"uid={uid},gid={uid},mode=0700"
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_mb}m,nr_inodes={tmp_inodes},{opts}")
    _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, f"size=1m,nr_inodes=64,{opts}")
    return True


def own_netns():
    return _libc.unshare(CLONE_NEWNET) == 0


def own_pidns():
    """A PID namespace for this process's next children (root only): the first one forked is its init, and when
    that init dies the kernel kills every process in it, whatever they did to their own signals. The fork server
    calls it before forking its zygotes, so every sandbox child dies with its zygote (PR_SET_PDEATHSIG can be
    cleared by the child; this cannot)."""
    return _libc.unshare(CLONE_NEWPID) == 0


def own_proc():
    """In a new PID namespace: a handle on a procfs of that namespace (the pids fork() returns there), mounted on
    the view's /tmp, opened, then detached at once, so nobody else sees it. None when it cannot be mounted."""
    try:
        _mount("proc", "/tmp", "proc", MS_NOSUID | MS_NODEV | 8)  # 8: MS_NOEXEC
    except OSError:
        return None
    try:
        return os.open("/tmp", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    finally:
        _libc.umount2(b"/tmp", MNT_DETACH)


def own_ipc_uts():
    """Per child (root only): its own System V IPC (shared memory, semaphores, message queues) and POSIX message
    queue namespace, and its own host name. An IPC namespace dies with its last process: nothing a suite leaves
    there reaches the host or the next suite. True when both are in force."""
    return _libc.unshare(CLONE_NEWIPC | CLONE_NEWUTS) == 0


def own_userns():
    """Per child, after it became its sandbox uid: a user namespace of its own with no id mapped. Its ids show as
    the overflow id, and whatever capability it holds inside applies to nothing the host owns. True when in force."""
    return _libc.unshare(CLONE_NEWUSER) == 0


# ---------------------------------------------------------------- Landlock
_FS_BITS_BY_ABI = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_TRUNCATE, FS_IOCTL_DEV = 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2


def landlock_abi():
    if "landlock_create_ruleset" not in _SYSCALLS:
        return 0
    v = _libc.syscall(_SYSCALLS["landlock_create_ruleset"], None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return v if v > 0 else 0


def landlock_ruleset(read_paths, write_paths, device_files):
    """A ruleset fd (not yet applied) and the ABI it was built for; (-1, abi) when Landlock is unavailable.
    Rules hold inodes, not names (a rule on the /tmp mount point does not cover a tmpfs mounted on it later),
    so the child builds its ruleset after mounting its own /tmp."""
    abi = landlock_abi()
    if abi < 1:
        return -1, 0
    fs_all = (1 << _FS_BITS_BY_ABI.get(abi, 16)) - 1
    file_rights = fs_all & (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
    net = (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0
    attr = struct.pack("=QQQ", fs_all, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    buf = ctypes.create_string_buffer(attr, 24)
    fd = _libc.syscall(_SYSCALLS["landlock_create_ruleset"], buf, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        return -1, abi
    rules = [(p, FS_EXECUTE | FS_READ_FILE | FS_READ_DIR) for p in read_paths]
    rules += [(p, fs_all) for p in write_paths] + [(p, file_rights & ~FS_EXECUTE) for p in device_files]
    for path, access in rules:
        try:
            pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not os.path.isdir(path):
                access &= file_rights
            rule = ctypes.create_string_buffer(struct.pack("=Qi", access, pfd), 12)
            if _libc.syscall(_SYSCALLS["landlock_add_rule"], fd, 1, rule, 0) != 0:
                os.close(fd)
                raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
        finally:
            os.close(pfd)
    return fd, abi


def landlock_restrict(ruleset_fd):
    """Apply the ruleset to this process (needs no_new_privs). True when in force."""
    if ruleset_fd < 0:
        return False
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    return _libc.syscall(_SYSCALLS["landlock_restrict_self"], ruleset_fd, 0) == 0


# ---------------------------------------------------------------- seccomp
AUDIT_ARCH_X86_64 = 0xC000003E
_RET_ALLOW, _RET_KILL_PROCESS, _RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_EPERM, _SIGKILL = 1, 9
# x86_64 numbers. Sockets: the network namespace has no route, but unix path sockets would still reach host
# services if the view ever showed one; refusing socket() closes that door whatever the view holds.
_DENIED_X86_64 = {
    "socket": 41, "socketpair": 53, "connect": 42, "bind": 49, "ptrace": 101, "process_vm_readv": 310,
    "process_vm_writev": 311, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272,
    "setns": 308, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321, "perf_event_open": 298,
    "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "kexec_load": 246,
    "kexec_file_load": 320, "init_module": 175, "finit_module": 313, "delete_module": 176, "reboot": 169,
    "swapon": 167, "swapoff": 168, "acct": 163, "quotactl": 179, "open_by_handle_at": 304,
    "name_to_handle_at": 303, "fanotify_init": 300, "open_tree": 428, "move_mount": 429, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "syslog": 103,
    "settimeofday": 164, "clock_settime": 227, "adjtimex": 159,
    # Limits are set by the runner before the filter; the code may read them, never change them: a child that
    # lowered its own CPU hard limit would die by SIGKILL, which only the outside may send (an infra fault).
    "setrlimit": 160,
    # Ways to have the kernel send a signal of the code's choice later, SIGKILL included (which the code may not send
    # itself): a POSIX timer or message queue notification (sigevent), and F_SETSIG below. Blocked so that a
    # SIGKILL death stays the supervisor's or the outside's, never the code's own doing.
    "timer_create": 222, "mq_open": 240, "mq_notify": 244,
}
# prlimit64(pid, resource, new_limit, old_limit): allowed only as a read (new_limit NULL), how getrlimit is made.
_PRLIMIT64 = 302
# fcntl(fd, F_SETSIG, sig): the signal the kernel sends on I/O readiness; refused (any other fcntl command passes).
_FCNTL, _F_SETSIG = 72, 10
# Signal-sending syscalls and the index of their signal argument: SIGKILL is refused, other signals pass.
_SIGNAL_X86_64 = {"kill": (62, 1), "tkill": (200, 1), "tgkill": (234, 2), "rt_sigqueueinfo": (129, 1),
                  "rt_tgsigqueueinfo": (297, 2), "pidfd_send_signal": (424, 1)}


def _bpf(code, k, jt=0, jf=0):
    return (code, jt, jf, k)


def seccomp_program():
    """The BPF filter as packed bytes (x86_64 only), or None elsewhere."""
    if _ARCH != "x86_64":
        return None
    LD_ABS_W, JEQ_K, JGE_K, RET_K = 0x20, 0x15, 0x35, 0x06
    denied = sorted(_DENIED_X86_64.values())
    sig = list(_SIGNAL_X86_64.values())
    prog = [_bpf(LD_ABS_W, 4), _bpf(JEQ_K, AUDIT_ARCH_X86_64, jt=1), _bpf(RET_K, _RET_KILL_PROCESS), _bpf(LD_ABS_W, 0)]
    # Layout after this point: [x32 check] [one JEQ per denied] [one JEQ per signal syscall] [JEQ prlimit64]
    #   [JEQ fcntl] ALLOW [per signal syscall: LD arg, JEQ SIGKILL, ALLOW] [prlimit64: 2 x (LD, JNE deny), ALLOW]
    #   [fcntl: LD arg 1, JEQ F_SETSIG deny, ALLOW] DENY
    n_head = 1 + len(denied) + len(sig) + 2
    sig_block_len = 3
    tail_start = len(prog) + n_head + 1  # index of the first signal block
    prlimit_at = tail_start + sig_block_len * len(sig)
    fcntl_at = prlimit_at + 5
    deny_at = fcntl_at + 3

    def jump_to(target, here):
        return target - (here + 1)

    here = len(prog)
    prog.append(_bpf(JGE_K, 0x40000000, jt=jump_to(deny_at, here)))  # x32 syscall numbers
    for nr in denied:
        here = len(prog)
        prog.append(_bpf(JEQ_K, nr, jt=jump_to(deny_at, here)))
    for j, (nr, _) in enumerate(sig):
        here = len(prog)
        prog.append(_bpf(JEQ_K, nr, jt=jump_to(tail_start + sig_block_len * j, here)))
    here = len(prog)
    prog.append(_bpf(JEQ_K, _PRLIMIT64, jt=jump_to(prlimit_at, here)))
    here = len(prog)
    prog.append(_bpf(JEQ_K, _FCNTL, jt=jump_to(fcntl_at, here)))
    prog.append(_bpf(RET_K, _RET_ALLOW))
    for _, arg in sig:
        prog.append(_bpf(LD_ABS_W, 16 + 8 * arg))  # low 32 bits of the argument (little endian)
        here = len(prog)
        prog.append(_bpf(JEQ_K, _SIGKILL, jt=jump_to(deny_at, here)))
        prog.append(_bpf(RET_K, _RET_ALLOW))
    assert len(prog) == prlimit_at
    for half in (0, 4):  # new_limit (argument 2) must be NULL: both 32-bit halves zero
        prog.append(_bpf(LD_ABS_W, 16 + 8 * 2 + half))
        here = len(prog)
        prog.append(_bpf(JEQ_K, 0, jf=jump_to(deny_at, here)))
    prog.append(_bpf(RET_K, _RET_ALLOW))
    assert len(prog) == fcntl_at
    prog.append(_bpf(LD_ABS_W, 16 + 8 * 1))
    here = len(prog)
    prog.append(_bpf(JEQ_K, _F_SETSIG, jt=jump_to(deny_at, here)))
    prog.append(_bpf(RET_K, _RET_ALLOW))
    assert len(prog) == deny_at
    prog.append(_bpf(RET_K, _RET_ERRNO | _EPERM))
    assert all(0 <= ins[1] <= 255 for ins in prog)
    return b"".join(struct.pack("=HBBI", *ins) for ins in prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def seccomp_apply(program):
    """Install the filter on this process (after no_new_privs). True when in force."""
    if program is None:
        return False
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    return _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0
