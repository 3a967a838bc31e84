"""Per-suite cost of each sandbox isolation layer (issue 11), measured in one run.

For each configuration (every layer; every layer but one; none of the optional ones) a fresh process prepares a
zygote environment exactly as the fork server does, then runs N suites of a small MBPP-like suite one at a time
through sandbox.run_local (a candidate child and a judge child per suite, as the server runs them), and reports
the mean wall time per suite. Set-up steps are the candidate child's. A layer's cost is
mean(all layers) - mean(all but that layer). Configurations are interleaved over several rounds, and the
median per configuration is reported, because the machine is shared and noisy.

Run: python3 -I bench/sandbox-layers.py [--suites N] [--rounds R]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "infra", "runner"))

CODE = "def f(xs):\n    return sorted(xs)[::-1]\n"
REQ = {"code": CODE, "timeout_s": 5, "suite": {"kind": "asserts", "tests": [
    "assert f([3, 1, 2]) == [3, 2, 1]", "assert f([]) == []", "assert f([5, 5, 1]) == [5, 5, 1]"]}}


def measure(disabled, n):
    """n suites through sandbox.run_local (the candidate's child and the judge's child, as the server runs them)."""
    import sandbox
    root = tempfile.mkdtemp(prefix="er-layers-")
    os.chmod(root, 0o755)
    for _ in range(20):  # warm up (the first call builds the environment, the view included)
        r = sandbox.run_local(REQ, root, disabled=disabled, time_layers=True)
    steps = {}
    t0 = time.perf_counter()
    for _ in range(n):
        r = sandbox.run_local(REQ, root, disabled=disabled, time_layers=True)
        assert r["outcomes"] == ["pass"] * 3, r
        for k, us in r["sandbox"].get("setup_us", {}).items():
            steps.setdefault(k, []).append(us)
    ms = (time.perf_counter() - t0) * 1000 / max(n, 1)
    med = {k: statistics.median(v) for k, v in steps.items()}
    print(json.dumps({"ms": ms, "steps_us": med, "view": r["sandbox"]["view"]}))


def main():
    args = sys.argv[1:]
    if args and args[0] == "--child":
        measure(tuple(json.loads(args[1])), int(args[2]))
        return
    n = int(args[args.index("--suites") + 1]) if "--suites" in args else 300
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 3
    import sandbox_zygote as zygote
    configs = {"all layers": ()}
    for layer in zygote.LAYERS:
        configs[f"without {layer}"] = (layer,)
    configs["none (fork, setsid, uid, rlimits only)"] = zygote.LAYERS
    times = {k: [] for k in configs}
    steps = {}
    for _ in range(rounds):
        for name, disabled in configs.items():
            out = json.loads(subprocess.run([sys.executable, "-I", __file__, "--child", json.dumps(list(disabled)), str(n)],
                                            capture_output=True, text=True, check=True).stdout)
            times[name].append(out["ms"])
            if name == "all layers":
                for k, us in out["steps_us"].items():
                    steps.setdefault(k, []).append(us)
    base = statistics.median(times["all layers"])
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[:3]
    print(f"{n} suites x {rounds} rounds per configuration, one worker; load average {' '.join(load)}")
    for name, ts in times.items():
        med = statistics.median(ts)
        extra = "" if name == "all layers" else f"   layer cost {base - med:+.3f} ms" if name.startswith("without") else ""
        print(f"  {name:42s} {med:7.3f} ms/suite{extra}")
    print("  child set-up steps with every layer (median of per-suite medians, microseconds; less noisy than the")
    print("  whole-suite differences above, which also hold the layers' costs at exit and while the tests run):")
    for k, us in steps.items():
        print(f"    {k:14s} {statistics.median(us):8.1f} us")
    # The view is built once per fork server (not per suite): time that too.
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-I", __file__, "--child", "[]", "0"], capture_output=True, check=True)
    print(f"  one fork server's set-up incl. view + 20 warm-up suites: {(time.perf_counter() - t0) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
