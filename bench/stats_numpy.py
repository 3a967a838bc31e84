"""The vectorised numpy version of bench/stats.ts's resampling, for its ratio: the same statistics (ratios of column
sums) and paired differences on the same data, resampled with numpy's own generator (so its intervals are close to,
not equal to, ours), counts x matrix through BLAS, percentiles along the replicate axis.

Reads the file bench/stats.ts writes (little-endian: int32 n, m, R, seed, S, P; float64 columns [m][n]; int32
num[S], den[S] (-1 = ones); int32 pair_a[P], pair_b[P]) and prints one JSON line: wall and CPU seconds of the
computation (not of Python's start or the read), and a checksum of the intervals.
"""
import json
import sys
import time

import numpy as np


def main(path: str) -> None:
    raw = open(path, "rb").read()
    n, m, R, seed, S, P = np.frombuffer(raw, dtype="<i4", count=6)
    off = 24
    cols = np.frombuffer(raw, dtype="<f8", count=m * n, offset=off).reshape(m, n)
    off += 8 * m * n
    ints = np.frombuffer(raw, dtype="<i4", count=2 * S + 2 * P, offset=off)
    num, den, pa, pb = ints[:S], ints[S : 2 * S], ints[2 * S : 2 * S + P], ints[2 * S + P :]
    X = np.ascontiguousarray(np.concatenate([cols, np.ones((1, n))]).T)  # n x (m+1); the last column is the ones
    den = np.where(den < 0, m, den)

    wall, cpu = time.perf_counter(), time.process_time()
    rng = np.random.default_rng(int(seed))
    sums = np.empty((R, m + 1))
    block = 500
    for r0 in range(0, R, block):
        b = min(block, R - r0)
        idx = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
        counts = np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
        sums[r0 : r0 + b] = counts @ X
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = sums[:, num] / sums[:, den]
    ci = np.percentile(ratios, [2.5, 97.5], axis=0)
    diffs = ratios[:, pa] - ratios[:, pb]
    pci = np.percentile(diffs, [2.5, 97.5], axis=0)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({"wall_s": wall, "cpu_s": cpu, "numpy": np.__version__, "checksum": float(np.nansum(ci) + np.nansum(pci))}))


if __name__ == "__main__":
    main(sys.argv[1])
