#!/usr/bin/env python3
"""one_pool.py - one OpenBLAS thread pool per process under LD_PRELOAD=libtsgemm.so (preload tier).

A numpy wheel's float32 products reach tsgemm through scipy_cblas_sgemm64_ (a scipy wheel's
through scipy_sgemm_), names whose CPU path is the wheel's own OpenBLAS. tsgemm must then load no
CPU BLAS of its own: neither for the tiny-call path's gate nor to describe or measure the CPU for
the rates (docs/NOTES.md "2026-12-06 one OpenBLAS pool per process (issue 37)"); a second OpenBLAS
starts a second pool of worker threads, which spin beside the program's.

The script makes a few products above the tiny-call floor (128^3) — with --scipy first through
scipy.linalg.blas.sgemm, then through numpy — checks them against float64 and that they reached
tsgemm (its counters), then lists the OpenBLAS-like objects mapped (/proc/self/maps: a file name
with openblas, libblas or gotoblas in it) and requires exactly --objects of them, every one inside
the venv's site-packages (the wheels' own: numpy.libs, scipy.libs). An object elsewhere (the
system's libopenblas) is tsgemm's doing and fails the run, named.

Usage: one_pool.py [--scipy] [--objects N]   (N: 1 for numpy alone, 2 with --scipy)
Exit status 0 when every check passed, 1 otherwise, 77 when numpy (or with --scipy, scipy) is
missing.
"""
import argparse
import os
import re
import sys

try:
    import numpy as np
except ImportError as e:  # skipped (ctest SKIP_RETURN_CODE 77), never passed silently
    print(f"SKIPPED: {sys.executable} cannot import numpy ({e})")
    sys.exit(77)

from pl_tsgemm import check_product, stats_getter, summary  # noqa: E402

BLAS_LIKE = re.compile(r"openblas|libblas|gotoblas", re.IGNORECASE)


def mapped_blas():
    """The real paths of the OpenBLAS-like objects mapped in this process, sorted."""
    paths = set()
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/"):
                path = parts[5].strip()
                if BLAS_LIKE.search(os.path.basename(path)):
                    paths.add(os.path.realpath(path))
    return sorted(paths)


def products(use_scipy, rng):
    """(label, c, a, b, k) of each product; with use_scipy the scipy.linalg.blas ones first."""
    def rand(*shape):
        return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)

    out = []
    if use_scipy:
        import scipy.linalg.blas as fblas
        for m, n, k in ((200, 190, 210), (300, 257, 129)):
            a, b = rand(m, k), rand(k, n)
            out.append((f"scipy sgemm m={m} n={n} k={k}", fblas.sgemm(1.0, a, b), a, b, k))
    for m, n, k in ((200, 195, 207), (300, 300, 300), (129, 140, 150)):
        a, b = rand(m, k), rand(k, n)
        out.append((f"numpy a @ b  m={m} n={n} k={k}", a @ b, a, b, k))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scipy", action="store_true", help="also products through scipy.linalg.blas.sgemm, first")
    ap.add_argument("--objects", type=int, default=1, help="OpenBLAS-like objects the wheels bring")
    args = ap.parse_args()
    if args.scipy:
        try:
            import scipy.linalg.blas  # noqa: F401
        except ImportError as e:
            print(f"SKIPPED: {sys.executable} cannot import scipy ({e})")
            return 77

    get = stats_getter()
    if get is None:
        print("FAIL: tsgemm is not in the process (tsgemm_get_stats not found): run it preloaded")
        return 1
    failed = False
    s0 = get()
    done = products(args.scipy, np.random.default_rng(37))
    s1 = get()
    for label, c, a, b, k in done:
        r = a.astype(np.float64) @ b.astype(np.float64)
        absr = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
        problems, rel = check_product(c, r, absr, k)
        print(f"{label}: rel err {rel:.2e}" + (f"  FAIL: {'; '.join(problems)}" if problems else ""))
        failed |= bool(problems)
    ran = (s1.cpu - s0.cpu) + (s1.gpu - s0.gpu)
    if ran < len(done):
        print(f"FAIL: {len(done)} products but tsgemm ran {ran} calls: the products did not reach tsgemm")
        failed = True
    print(summary(s1))

    site = os.path.realpath(os.path.dirname(os.path.dirname(np.__file__)))
    blas = mapped_blas()
    outside = [p for p in blas if not p.startswith(site + os.sep)]
    print(f"OpenBLAS-like objects mapped ({len(blas)}): " + ", ".join(blas))
    if outside:
        print(f"FAIL: {len(outside)} OpenBLAS-like object(s) outside the wheels' site-packages ({site}): "
              + ", ".join(outside) + " — a second OpenBLAS thread pool, loaded by tsgemm, though "
              "every call here runs on the wheels' own OpenBLAS")
        failed = True
    if len(blas) != args.objects:
        print(f"FAIL: {len(blas)} OpenBLAS-like objects mapped, expected exactly {args.objects} "
              "(the wheels' own: one pool each)")
        failed = True
    print("one_pool: " + ("FAILED" if failed else "passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
