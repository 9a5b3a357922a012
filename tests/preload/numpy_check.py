#!/usr/bin/env python3
"""numpy_check.py - numpy float32 matmul under LD_PRELOAD=libtsgemm.so (preload tier).

Checks that numpy's float32 products are right (against numpy float64 on the same inputs) and that
they reached tsgemm (its counters, read through ctypes from the global scope, move by at least one
computed call per product). Debian's python3-numpy reaches cblas_sgemm; a pip wheel's bundled
OpenBLAS reaches scipy_cblas_sgemm64_ (older wheels: cblas_sgemm64_), which tsgemm exports too
(fault class 11: two BLAS copies in one process). Products: a @ b, a.T @ b, a @ b.T and the
row-strided view a[::2] @ b (leading dimension larger than the rows). Not tested as sgemm: a @ a.T
(numpy calls ssyrk) and a[:, ::2] (no BLAS at all).

Reusable on the GPU machine:
  --sizes 200,4096   square-ish sizes (default: 200 and 37, small and odd)
  --tall             add tall-skinny cases (65536 x 64 @ 64 x 256, and its k = 65536 transpose)
  --expect any|cpu|gpu|gpu-all|none
                     any: each product reached tsgemm and ran on its CPU or GPU path;
                     cpu: and none ran on the GPU; gpu: and the counters show GPU calls (at least
                     one product ran on the GPU; each line says where it ran); gpu-all: every
                     product ran on the GPU (sizes above the threshold, or TSGEMM_MODE=gpu);
                     none: a run WITHOUT preload (tsgemm must not be in the process), e.g. to
                     time the plain BLAS with --time
  --time             print the best-of---reps time of each product (compare with a plain run),
                     timed right after the first product and before the float64 check (whose
                     dgemm would leave numpy's OpenBLAS threads spinning through the timed calls;
                     docs/NOTES.md), and each repetition's time
Elements are checked against |c - r| <= gamma * (k + 2) * 2^-24 * (|a| @ |b|) with gamma = 2
(docs/TESTING.md); the relative Frobenius error is printed. Exit status 0 = all checks passed.
"""
import argparse
import sys
import time

try:
    import numpy as np
except ImportError as e:  # a Python without numpy: skipped (ctest SKIP_RETURN_CODE 77), not passed
    print(f"SKIPPED: {sys.executable} cannot import numpy ({e})")
    sys.exit(77)

from pl_tsgemm import check_product, counter_problems, stats_getter, summary  # noqa: E402


def cases(sizes, tall, rng):
    """(label, make_operands, k) for each product; operands are float32 numpy arrays."""
    def rand(*shape):
        return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)

    out = []
    for s in sizes:
        m, n, k = s, max(1, s - 5), s + 7
        out.append((f"a @ b        m={m} n={n} k={k}", lambda m=m, n=n, k=k: (rand(m, k), rand(k, n)), k))
        out.append((f"a.T @ b      m={m} n={n} k={k}", lambda m=m, n=n, k=k: (rand(k, m).T, rand(k, n)), k))
        out.append((f"a @ b.T      m={m} n={n} k={k}", lambda m=m, n=n, k=k: (rand(m, k), rand(n, k).T), k))
        out.append((f"a[::2] @ b   m={m} n={n} k={k}", lambda m=m, n=n, k=k: (rand(2 * m, k)[::2], rand(k, n)), k))
    if tall:
        out.append(("tall a @ b   m=65536 n=256 k=64", lambda: (rand(65536, 64), rand(64, 256)), 64))
        out.append(("tall a.T @ b m=64 n=64 k=65536", lambda: (rand(65536, 64).T, rand(65536, 64)), 65536))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="200,37", help="comma-separated sizes (default 200,37)")
    ap.add_argument("--tall", action="store_true", help="add tall-skinny cases")
    ap.add_argument("--expect", choices=("any", "cpu", "gpu", "gpu-all", "none"), default="any")
    ap.add_argument("--time", action="store_true", help="print the time of each product")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions (best is printed)")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]

    get = stats_getter()
    print(f"numpy {np.__version__} from {np.__file__}; tsgemm in process: {get is not None}")
    if args.expect == "none" and get is not None:
        print("FAIL: --expect none but tsgemm_get_stats is in the process (preloaded?)")
        return 1
    if args.expect != "none" and get is None:
        print("FAIL: tsgemm_get_stats is not in the process: run with LD_PRELOAD=libtsgemm.so")
        return 1

    rng = np.random.default_rng(args.seed)
    failures = 0
    total_gpu = 0
    for label, make, k in cases(sizes, args.tall, rng):
        a, b = make()
        assert a.dtype == np.float32 and b.dtype == np.float32
        s0 = get() if get else None
        t0 = time.perf_counter()
        c = a @ b
        first = time.perf_counter() - t0
        timing = ""
        if args.time:  # timed before the float64 check: its dgemm leaves BLAS threads spinning
            times = []
            for _ in range(max(0, args.reps)):
                t0 = time.perf_counter()
                a @ b
                times.append(time.perf_counter() - t0)
            best = min(times + [first])
            m, n = a.shape[0], b.shape[1]
            timing = (f" time={best:.6f}s ({2.0 * m * n * k / best / 1e9:.1f} GFLOP/s; first "
                      f"{first * 1e3:.2f} ms, then {' '.join(f'{t * 1e3:.2f}' for t in times)})")
        s1 = get() if get else None
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        problems, rel = check_product(c, a64 @ b64, np.abs(a64) @ np.abs(b64), k)
        where = ""
        if s1 is not None:
            calls = s1.calls - s0.calls
            cpu, gpu = s1.cpu - s0.cpu, s1.gpu - s0.gpu
            where = f" calls={calls} cpu={cpu} gpu={gpu}"
            problems += counter_problems(s0, s1)
            if args.expect == "cpu" and gpu:
                problems.append("ran on the GPU, --expect cpu")
            if args.expect == "gpu-all" and gpu < 1:
                problems.append("did not run on the GPU, --expect gpu-all")
            total_gpu += gpu
        status = "FAIL" if problems else "ok  "
        print(f"{status} {label} rel_fro={rel:.3g}{where}{timing}")
        for p in problems:
            print(f"     {p}")
        failures += bool(problems)
    if get:
        print(summary(get()))
        if args.expect == "gpu" and total_gpu < 1:
            print("FAIL: --expect gpu but no product ran on the GPU")
            failures += 1
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
