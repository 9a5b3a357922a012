"""tsgemm_py_check.py — the `tsgemm` Python package inside and outside a preloaded process
(package tier). Run by the Python under test, with the package importable (installed from the
wheel, or PYTHONPATH=<source>/python).

    --expect preloaded   tsgemm.stats() is a dict; a float32 product (numpy when importable,
                         else cblas_sgemm through ctypes from the global scope) is correct and
                         moves the counters: calls +1 or more, computed +1 or more, no illegal
                         call, no GPU failure
    --expect none        tsgemm.stats() is None (the library is not in this process)
    --installed VERSION  also: tsgemm.__version__, library_path(), info() (whose "version" is
                         VERSION), and stats() still None after info() (info never loads the
                         library into a process that lacks it)
    --numpy              the product must be numpy's (fails when numpy cannot be imported)
Prints one line; exit status 0 passed, 1 failed.
"""
import argparse
import ctypes
import os
import sys

import tsgemm


def product_problems(use_numpy):
    """Runs one float32 product; returns (problems, description)."""
    try:
        import numpy as np
    except ImportError:
        if use_numpy:
            return ["numpy cannot be imported"], "none"
        np = None
    if np is not None:
        rng = np.random.default_rng(7)
        a = rng.integers(-8, 8, size=(200, 150)).astype(np.float32) / 8
        b = rng.integers(-8, 8, size=(150, 120)).astype(np.float32) / 8
        c = a @ b
        r = a.astype(np.float64) @ b.astype(np.float64)
        # small integers over 8: every partial sum is exact in float32
        wrong = int(np.count_nonzero(c.astype(np.float64) != r))
        return ([f"{wrong} wrong elements"] if wrong else []), "numpy float32 200x150 @ 150x120"
    m, n, k = 64, 48, 80
    A = (ctypes.c_float * (m * k))(*[((i * 7) % 13 - 6) / 8 for i in range(m * k)])
    B = (ctypes.c_float * (k * n))(*[((i * 5) % 11 - 5) / 4 for i in range(k * n)])
    C = (ctypes.c_float * (m * n))()
    f = ctypes.CDLL(None).cblas_sgemm
    f.restype = None
    f(102, 111, 111, m, n, k, ctypes.c_float(1.0), A, m, B, k, ctypes.c_float(0.0), C, m)
    wrong = 0
    for j in range(n):
        for i in range(m):
            r = sum(A[i + p * m] * B[p + j * k] for p in range(k))
            wrong += C[i + j * m] != r
    return ([f"{wrong} wrong elements"] if wrong else []), "cblas_sgemm 64x48x80 via ctypes"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect", choices=("preloaded", "none"), required=True)
    ap.add_argument("--installed", metavar="VERSION")
    ap.add_argument("--numpy", action="store_true")
    a = ap.parse_args()
    problems = []
    s0 = tsgemm.stats()
    if a.expect == "none":
        if s0 is not None:
            problems.append(f"stats() is {s0!r}, expected None (not preloaded)")
        what = "stats() None"
    else:
        if not isinstance(s0, dict):
            problems.append(f"stats() is {s0!r} in a preloaded process")
            what = "no stats"
        else:
            p, what = product_problems(a.numpy)
            problems += p
            s1 = tsgemm.stats()
            calls = s1["calls"] - s0["calls"]
            ran = s1["cpu"] - s0["cpu"] + s1["gpu"] - s0["gpu"]
            if calls < 1 or ran < 1:
                problems.append(f"not intercepted: calls +{calls}, computed +{ran}")
            if s1["illegal"] != s0["illegal"] or s1["gpu_failed"] != s0["gpu_failed"]:
                problems.append("illegal calls or GPU failures counted")
            what += f": intercepted, calls +{calls} (gpu +{s1['gpu'] - s0['gpu']}, " \
                    f"cpu +{s1['cpu'] - s0['cpu']})"
    if a.installed:
        if tsgemm.__version__ != a.installed:
            problems.append(f"__version__ {tsgemm.__version__}, expected {a.installed}")
        lib = tsgemm.library_path()
        if not (os.path.isabs(lib) and os.path.isfile(lib)):
            problems.append(f"library_path() {lib!r} is not a file")
        info = tsgemm.info()
        if info.get("version") != a.installed or not info.get("cpu_blas") or \
                not isinstance(info.get("gpu"), bool) or not info.get("kernel"):
            problems.append(f"info() {info!r}")
        if a.expect == "none" and tsgemm.stats() is not None:
            problems.append("stats() is not None after info(): info() loaded the library here")
        what += f"; library {lib}; info: gpu {info.get('gpu')}, kernel '{info.get('kernel')}'"
    print("tsgemm_py_check: " + what + (": " + "; ".join(problems) if problems else ": ok"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
