#!/usr/bin/env python3
"""scipy_check.py - float32 GEMMs of scipy and scikit-learn wheels under LD_PRELOAD=libtsgemm.so
(preload tier).

scipy and scikit-learn wheels bundle their own OpenBLAS with 32-bit integers and the scipy_
symbol prefix (scipy-openblas32): scipy.linalg.blas.sgemm (f2py) and scipy.linalg.cython_blas's
sgemm (which scikit-learn's Cython code calls) both call scipy_sgemm_; the same library exports
scipy_cblas_sgemm. tsgemm exports both names; each part below proves that the calls reached
tsgemm (its counters, read through ctypes) and that the results are right (against float64):

  blas    scipy.linalg.blas.sgemm over trans_a x trans_b x C- and Fortran-ordered arrays, beta = 0
          and beta != 0 with a given c: exactly one tsgemm call each, elements within
          gamma * (k + 2) * 2^-24 * (|alpha| |op(a)| |op(b)| + |beta| |c|), gamma = 2 (docs/TESTING.md)
  cblas   scipy_cblas_sgemm through ctypes (the global name, i.e. tsgemm's), both layouts, every
          transpose pair, with the same bound; only when tsgemm is in the process
  kmeans  sklearn.cluster.KMeans (lloyd) on float32 data from a fixed start: its distance
          updates are scipy.linalg.cython_blas sgemm calls. The float32 fit must move tsgemm's
          counters and agree with the float64 fit (not tsgemm's: dgemm) on the labels exactly and
          on the centres and inertia within 1e-4 relative. With TSGEMM_LOG=3 in the environment
          the trace lines printed during the fit are captured (fd 2) and counted per entry point:
          every call the counters saw has its line, and scipy_sgemm_ is among them.

  large   (GPU machine; not a default part) scipy.linalg.blas.sgemm on --size^3, --reps calls timed
          (median printed), checked like blas

Usage: scipy_check.py [--parts blas,cblas,kmeans,large] [--expect any|cpu|gpu|none] [--size N]
  --expect any   every part reached tsgemm (CPU or GPU path); cpu: and nothing ran on the GPU;
                 gpu: and every part moved the GPU counter (run large sizes, or kmeans with
                 TSGEMM_MODE=gpu);
                 none: a run WITHOUT preload (tsgemm must not be in the process; results are
                 still checked, the cblas part is skipped)
Exit status 0 when every check passed, 1 otherwise, 77 when scipy or scikit-learn is missing.
"""
import argparse
import ctypes
import os
import re
import sys
import tempfile

try:
    import numpy as np
    import scipy
    import scipy.linalg.blas as fblas
    import sklearn
    from sklearn.cluster import KMeans
except ImportError as e:  # skipped (ctest SKIP_RETURN_CODE 77), never passed silently
    print(f"SKIPPED: {sys.executable} cannot import numpy, scipy and scikit-learn ({e}); "
          "make the venv with scripts/setup-pip-numpy.sh DIR -r tests/preload/requirements-scipy.txt")
    sys.exit(77)

from pl_tsgemm import check_product, counter_problems, stats_getter, summary  # noqa: E402

CBLAS_ROW, CBLAS_COL, CBLAS_N, CBLAS_T = 101, 102, 111, 112


class Checker:
    """Counts failures and reads tsgemm's counters around each piece of work."""

    def __init__(self, expect):
        self.expect = expect
        self.get = stats_getter()
        self.failures = 0

    def report(self, label, problems, extra=""):
        print(f"{'FAIL' if problems else 'ok  '} {label}{extra}")
        for p in problems:
            print(f"     {p}")
        self.failures += bool(problems)

    def counters(self, s0, s1, want_calls=None):
        """Problems of the counter change around one piece of work (none in a plain run)."""
        if s0 is None:
            return []
        problems = counter_problems(s0, s1, want_calls)
        if self.expect == "cpu" and s1.gpu != s0.gpu:
            problems.append("ran on the GPU, --expect cpu")
        if self.expect == "gpu" and s1.gpu == s0.gpu:
            problems.append("nothing ran on the GPU, --expect gpu")
        return problems

    def now(self):
        return self.get() if self.get else None


def reference(alpha, opa, opb, beta, c):
    """float64 alpha op(a) op(b) + beta c and the same on absolute values (the error bound)."""
    a64, b64 = opa.astype(np.float64), opb.astype(np.float64)
    r = alpha * (a64 @ b64)
    absr = abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if c is not None and beta != 0:
        r = r + beta * c.astype(np.float64)
        absr = absr + abs(beta) * np.abs(c.astype(np.float64))
    return r, absr


def part_blas(chk, rng):
    """scipy.linalg.blas.sgemm: both transposes, both array orders, beta = 0 and beta != 0."""
    for (m, n, k) in ((37, 29, 45), (130, 121, 140)):
        for order in ("C", "F"):
            for ta in (0, 1):
                for tb in (0, 1):
                    for alpha, beta in ((1.0, 0.0), (-0.5, 0.75)):
                        a = np.asarray(rng.uniform(-1, 1, (k, m) if ta else (m, k)),
                                       dtype=np.float32, order=order)
                        b = np.asarray(rng.uniform(-1, 1, (n, k) if tb else (k, n)),
                                       dtype=np.float32, order=order)
                        c = (np.asarray(rng.uniform(-1, 1, (m, n)), dtype=np.float32, order=order)
                             if beta else None)
                        r, absr = reference(alpha, a.T if ta else a, b.T if tb else b, beta, c)
                        s0 = chk.now()
                        kw = {"trans_a": ta, "trans_b": tb}
                        if c is not None:
                            kw.update(beta=beta, c=c)
                        out = fblas.sgemm(alpha, a, b, **kw)
                        s1 = chk.now()
                        problems, rel = check_product(out, r, absr, k)
                        problems += chk.counters(s0, s1, want_calls=1)
                        chk.report(f"scipy.linalg.blas.sgemm order={order} trans_a={ta} "
                                   f"trans_b={tb} m={m} n={n} k={k} alpha={alpha} beta={beta}",
                                   problems, f" rel_fro={rel:.3g}")


def part_cblas(chk, rng):
    """scipy_cblas_sgemm (LP64) through ctypes on the global name, i.e. tsgemm's definition."""
    if chk.get is None:
        print("skip scipy_cblas_sgemm: tsgemm is not in the process")
        return
    fn = ctypes.CDLL(None).scipy_cblas_sgemm
    i32, f32, fp = ctypes.c_int, ctypes.c_float, ctypes.POINTER(ctypes.c_float)
    fn.argtypes = [i32, i32, i32, i32, i32, i32, f32, fp, i32, fp, i32, f32, fp, i32]
    fn.restype = None
    m, n, k = 41, 33, 57
    for layout in (CBLAS_ROW, CBLAS_COL):
        order = "C" if layout == CBLAS_ROW else "F"
        for ta in (0, 1):
            for tb in (0, 1):
                a = np.asarray(rng.uniform(-1, 1, (k, m) if ta else (m, k)), np.float32, order=order)
                b = np.asarray(rng.uniform(-1, 1, (n, k) if tb else (k, n)), np.float32, order=order)
                c = np.asarray(rng.uniform(-1, 1, (m, n)), np.float32, order=order)
                alpha, beta = 1.25, -0.5
                r, absr = reference(alpha, a.T if ta else a, b.T if tb else b, beta, c)

                def ld(x):  # the leading dimension of x in this layout
                    return x.shape[1] if layout == CBLAS_ROW else x.shape[0]
                s0 = chk.now()
                fn(layout, CBLAS_T if ta else CBLAS_N, CBLAS_T if tb else CBLAS_N, m, n, k, alpha,
                   a.ctypes.data_as(fp), ld(a), b.ctypes.data_as(fp), ld(b), beta,
                   c.ctypes.data_as(fp), ld(c))
                s1 = chk.now()
                problems, rel = check_product(c, r, absr, k)
                problems += chk.counters(s0, s1, want_calls=1)
                chk.report(f"scipy_cblas_sgemm {'row' if layout == CBLAS_ROW else 'col'} "
                           f"transa={'T' if ta else 'N'} transb={'T' if tb else 'N'} "
                           f"m={m} n={n} k={k}", problems, f" rel_fro={rel:.3g}")


def part_large(chk, rng, size, reps):
    """scipy.linalg.blas.sgemm on size^3, timed: the median of `reps` calls after one warm-up
    call. Fortran-ordered operands: f2py passes them as they are (C-ordered ones it first copies
    into Fortran order, in Python's thread, which at 4096^2 costs more than OpenBLAS's product)."""
    import time
    a = np.asarray(rng.uniform(-1, 1, (size, size)), np.float32, order="F")
    b = np.asarray(rng.uniform(-1, 1, (size, size)), np.float32, order="F")
    r, absr = reference(1.0, a, b, 0.0, None)
    out = fblas.sgemm(1.0, a, b)  # warm-up (tsgemm: GPU start, rate measurement)
    times = []
    s0 = chk.now()
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fblas.sgemm(1.0, a, b)
        times.append(time.perf_counter() - t0)
    s1 = chk.now()
    problems, rel = check_product(out, r, absr, size)
    problems += chk.counters(s0, s1, want_calls=reps)
    times.sort()
    extra = f" rel_fro={rel:.3g} median {times[len(times) // 2] * 1e3:.2f} ms of {reps}"
    if s0 is not None:
        extra += f" gpu={s1.gpu - s0.gpu} cpu={s1.cpu - s0.cpu}"
    chk.report(f"scipy.linalg.blas.sgemm {size}^3 timed", problems, extra)


class Fd2Capture:
    """What the process writes to fd 2 (C code included) while the block runs."""

    def __enter__(self):
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode(errors="replace")
        self.file.close()
        sys.stderr.write(self.text)  # keep the lines for run_check.sh
        return False


def part_kmeans(chk, rng):
    """KMeans (lloyd) on float32 data: scipy.linalg.cython_blas sgemm, i.e. scipy_sgemm_."""
    n_samples, n_features, n_clusters = 20000, 32, 8
    centres = rng.uniform(-20, 20, (n_clusters, n_features))
    labels_true = rng.integers(0, n_clusters, n_samples)
    x64 = centres[labels_true] + rng.normal(0, 1, (n_samples, n_features))
    x32 = x64.astype(np.float32)
    init = x64[[int(np.flatnonzero(labels_true == c)[0]) for c in range(n_clusters)]]

    def fit(x):
        km = KMeans(n_clusters=n_clusters, init=init.astype(x.dtype), n_init=1, max_iter=20,
                    tol=0.0, algorithm="lloyd", random_state=0)
        return km.fit(x)

    km64 = fit(x64)  # dgemm: not tsgemm's
    tracing = os.environ.get("TSGEMM_LOG", "") == "3" and chk.get is not None
    s0 = chk.now()
    if tracing:
        with Fd2Capture() as cap:
            km32 = fit(x32)
    else:
        km32 = fit(x32)
    s1 = chk.now()
    problems = chk.counters(s0, s1)
    if km32.cluster_centers_.dtype != np.float32:
        problems.append(f"float32 fit gave {km32.cluster_centers_.dtype} centres")
    if not np.array_equal(km32.labels_, km64.labels_):
        problems.append(f"{int(np.count_nonzero(km32.labels_ != km64.labels_))} labels differ "
                        "from the float64 fit")
    scale = float(np.max(np.abs(km64.cluster_centers_)))
    dc = float(np.max(np.abs(km32.cluster_centers_.astype(np.float64) - km64.cluster_centers_)))
    if not dc <= 1e-4 * scale:
        problems.append(f"centres differ from the float64 fit by {dc:.3g} (scale {scale:.3g})")
    di = abs(km32.inertia_ - km64.inertia_) / km64.inertia_
    if not di <= 1e-4:
        problems.append(f"inertia {km32.inertia_!r} vs float64 {km64.inertia_!r} (rel {di:.3g})")
    extra = f" centres max|d|={dc:.3g} inertia rel={di:.3g}"
    if s0 is not None:
        extra += f" calls={s1.calls - s0.calls} cpu={s1.cpu - s0.cpu} gpu={s1.gpu - s0.gpu}"
    if tracing:
        per_api = {}
        for m in re.finditer(r"^tsgemm: (\S+) layout=", cap.text, re.M):
            per_api[m.group(1)] = per_api.get(m.group(1), 0) + 1
        extra += " trace " + (", ".join(f"{k}={v}" for k, v in sorted(per_api.items())) or "none")
        if per_api.get("scipy_sgemm_", 0) < 1:
            problems.append("no scipy_sgemm_ trace line during the float32 fit "
                            "(scikit-learn -> scipy.linalg.cython_blas -> scipy_sgemm_)")
        if sum(per_api.values()) != s1.calls - s0.calls:
            problems.append(f"{sum(per_api.values())} trace lines, {s1.calls - s0.calls} calls "
                            "counted")
    chk.report(f"sklearn KMeans lloyd float32 {n_samples}x{n_features} k={n_clusters}", problems,
               extra)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--parts", default="blas,cblas,kmeans",
                    help="comma list of blas, cblas, kmeans, large (large: not by default)")
    ap.add_argument("--expect", choices=("any", "cpu", "gpu", "none"), default="any")
    ap.add_argument("--size", type=int, default=4096, help="n of the large part (default 4096)")
    ap.add_argument("--reps", type=int, default=5, help="timed calls of the large part")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    chk = Checker(args.expect)
    print(f"numpy {np.__version__}, scipy {scipy.__version__} ({scipy.__file__}), scikit-learn "
          f"{sklearn.__version__}; tsgemm in process: {chk.get is not None}")
    if (args.expect == "none") != (chk.get is None):
        print("FAIL: --expect none needs a run without tsgemm, the others one with it "
              "(LD_PRELOAD=libtsgemm.so)")
        return 1
    rng = np.random.default_rng(args.seed)
    parts = {"blas": part_blas, "cblas": part_cblas, "kmeans": part_kmeans,
             "large": lambda c, r: part_large(c, r, args.size, args.reps)}
    for name in args.parts.split(","):
        if name not in parts:
            print(f"FAIL: unknown part {name!r}")
            return 1
        parts[name](chk, rng)
    if chk.get:
        print(summary(chk.get()))
    print(f"{chk.failures} failures")
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
