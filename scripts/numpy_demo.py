"""numpy_demo.py — an ordinary numpy program, unaware of tsgemm: float32 products of the shapes
people multiply (square, transposed, tall-skinny), timed, with a checksum and the error against a
float64 product, so a plain run and a run under LD_PRELOAD=libtsgemm.so can be compared line by
line. Used by scripts/demo.sh."""
import time

import numpy as np

rng = np.random.default_rng(2026)
cases = [("a @ b", 1024, 1024, 1024, False), ("a.T @ b", 1024, 1024, 1024, True),
         ("a @ b (tall-skinny)", 20000, 64, 512, False), ("a @ b", 2048, 2048, 2048, False)]
for name, m, n, k, trans in cases:
    a = rng.uniform(-1, 1, (k, m) if trans else (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    aa = a.T if trans else a
    c = aa @ b  # warm-up
    dt = float("inf")
    for _ in range(3):  # best of 3: one call's time is noise on a busy machine
        t0 = time.perf_counter()
        c = aa @ b
        dt = min(dt, time.perf_counter() - t0)
    ref = aa.astype(np.float64) @ b.astype(np.float64)
    err = np.linalg.norm(c - ref) / np.linalg.norm(ref)
    print(f"{name:22s} {m}x{n}x{k}: {dt * 1e3:8.2f} ms  {2 * m * n * k / dt * 1e-12:6.3f} TFLOP/s"
          f"  sum {float(c.sum(dtype=np.float64)):+.6e}  rel err {err:.2e}")
