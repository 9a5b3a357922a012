"""pl_tsgemm.py - tsgemm's counters and float32 result checks for the Python clients of the
preload tier (numpy_check.py, scipy_check.py).

Owns: the ctypes view of include/tsgemm.h's struct tsgemm_stats, the lookup of tsgemm_get_stats
in the process's global scope (present only when libtsgemm.so is preloaded or linked), and the
element-wise error bound of docs/TESTING.md. Prints nothing and exits nothing: the scripts judge.
"""
import ctypes

import numpy as np

GAMMA = 2.0  # docs/TESTING.md: covers any summation order plus the final alpha/beta roundings
U32 = 2.0 ** -24  # unit roundoff of float32


class Stats(ctypes.Structure):
    """include/tsgemm.h, struct tsgemm_stats (six uint64 counters, then four doubles)."""
    _fields_ = [(name, ctypes.c_uint64) for name in
                ("calls", "illegal", "quick", "gpu", "cpu", "gpu_failed")] + \
               [(name, ctypes.c_double) for name in
                ("gpu_flops", "cpu_flops", "gpu_seconds", "cpu_seconds")]


def stats_getter():
    """A function returning tsgemm's counters now (a Stats), or None when tsgemm is not in the
    process (tsgemm_get_stats is looked up in the global scope, where LD_PRELOAD puts it)."""
    try:
        fn = ctypes.CDLL(None).tsgemm_get_stats
    except AttributeError:
        return None
    fn.argtypes = [ctypes.POINTER(Stats)]
    fn.restype = None

    def get():
        s = Stats()
        fn(ctypes.byref(s))
        return s
    return get


def check_product(c, r, absr, k):
    """Problems (a list of strings, empty when none) of a float32 result c against the float64
    reference r, elementwise |c - r| <= GAMMA * (k + 2) * 2^-24 * absr, where absr is the
    reference computed on absolute values (|alpha| |A| |B| + |beta| |C|); and the relative
    Frobenius error. NaN counts as outside the bound; an all-zero result is a problem."""
    problems = []
    if c.dtype != np.float32:
        problems.append(f"result dtype {c.dtype}")
    c64 = c.astype(np.float64)
    err = np.abs(c64 - r)
    bad = ~(err <= GAMMA * (k + 2) * U32 * absr)
    nbad = int(np.count_nonzero(bad))
    rel = float(np.linalg.norm(c64 - r) / max(np.linalg.norm(r), 1e-300))
    if nbad:
        i, j = np.unravel_index(int(np.argmax(bad)), err.shape)
        problems.append(f"{nbad} elements outside the bound, first ({i},{j}): "
                        f"got {c[i, j]!r}, want {r[i, j]!r}")
    if not np.any(c):
        problems.append("result is all zeros")
    return problems, rel


def counter_problems(s0, s1, want_calls=None):
    """Problems of the counter change s0 -> s1 for work that must have reached tsgemm: at least
    one computed call (exactly want_calls calls when given), no illegal call, no GPU failure."""
    problems = []
    calls, ran = s1.calls - s0.calls, (s1.cpu - s0.cpu) + (s1.gpu - s0.gpu)
    if calls < 1 or ran < 1 or (want_calls is not None and calls != want_calls):
        problems.append(f"did not reach tsgemm as expected (calls +{calls}, cpu+gpu +{ran}"
                        + (f", expected {want_calls} calls" if want_calls is not None else "")
                        + ")")
    if s1.illegal != s0.illegal or s1.gpu_failed != s0.gpu_failed:
        problems.append(f"illegal +{s1.illegal - s0.illegal}, "
                        f"gpu failures +{s1.gpu_failed - s0.gpu_failed}")
    return problems


def summary(s):
    """One line with the counters."""
    return (f"tsgemm counters: {s.calls} calls, {s.gpu} gpu, {s.cpu} cpu, {s.quick} quick, "
            f"{s.illegal} illegal, {s.gpu_failed} gpu failures")
