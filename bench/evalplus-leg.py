"""EvalPlus leg of bench/oracle-mbpp.ts (issue 25): the same MBPP suites through EvalPlus's `untrusted_check`.

Runs inside its own venv with the `evalplus` PyPI package (the bench creates it under .scratch/). Reads JSONL
suites ({"id", "code", "setup", "tests"}) and prints one JSON line:
{"seconds", "suites", "passed", "failed" (ids), "workers", "version"}.

`untrusted_check` calls an entry point on inputs and compares the result with an expected value, while MBPP's
tests are assert statements. So each suite becomes: the canonical, then its setup, then an entry point
`_er_test(i)` that executes assert i in the module's globals and returns True. inputs = [[0], [1], ...],
expected = [True, ...]: one call per test under EvalPlus's own per-input time limit and guard, the way EvalPlus
runs its own MBPP+ tests, and a test passes exactly when its assert does.

Workers: a ProcessPoolExecutor whose workers each call `untrusted_check` (one forked process per suite), as
`evalplus.evaluate` does. The per-input time limit is --time-limit seconds (default 5, our oracle's default
timeout), so a slow canonical (mbpp_123) runs to the end as it does in ours.

Run: .scratch/evalplus-venv/bin/python -I bench/evalplus-leg.py SUITES.jsonl [--workers 2] [--time-limit 5]
"""

import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

ENTRY = "_er_test"


def program(s):
    # repr() keeps each test's source exact; compile() per call mirrors executing the assert as written.
    return "\n".join([
        s["code"],
        s.get("setup") or "",
        f"_ER_TESTS = {[t for t in s['tests']]!r}",
        f"def {ENTRY}(i):",
        "    exec(_ER_TESTS[i], globals())",
        "    return True",
        "",
    ])


def check(args):
    s, time_limit = args
    from evalplus.eval import PASS, untrusted_check
    n = len(s["tests"])
    stat, details = untrusted_check("mbpp", program(s), [[i] for i in range(n)], ENTRY, [True] * n,
                                    atol=0, ref_time=[0.0] * n, fast_check=False,
                                    min_time_limit=time_limit, gt_time_limit_factor=1.0)
    return stat == PASS and len(details) == n and all(details)


def main():
    args = sys.argv[1:]
    path = args[0]
    workers = int(args[args.index("--workers") + 1]) if "--workers" in args else 2
    time_limit = float(args[args.index("--time-limit") + 1]) if "--time-limit" in args else 5.0
    with open(path) as fh:
        suites = [json.loads(line) for line in fh if line.strip()]
    import evalplus
    with ProcessPoolExecutor(max_workers=workers) as ex:
        list(ex.map(check, [({"code": "x = 1", "tests": ["assert True"]}, time_limit)] * workers))  # start workers
        t0 = time.perf_counter()
        verdicts = list(ex.map(check, [(s, time_limit) for s in suites]))
        seconds = time.perf_counter() - t0
    passed = sum(verdicts)
    failed = [s.get("id", str(i)) for i, (s, ok) in enumerate(zip(suites, verdicts)) if not ok]
    print(json.dumps({"seconds": seconds, "suites": len(suites), "passed": passed, "failed": failed, "workers": workers,
                      "version": getattr(evalplus, "__version__", "?")}))


if __name__ == "__main__":
    main()
