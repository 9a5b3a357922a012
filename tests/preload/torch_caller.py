#!/usr/bin/env python3
"""torch_caller.py - a real CUDA program as tsgemm's caller (issue 7; device machine only).

PyTorch links the shared CUDA runtime (libcudart.so), so it is the kind of program the residency
gate must recognise after tsgemm has already started its own GPU. This script loads libtsgemm.so
with ctypes (no LD_PRELOAD: torch's own CPU BLAS is left alone), starts tsgemm's GPU first
(tsgemm_kernel_info) and only then makes torch's tensors, so the gate sees CUDA arrive after its
start. Then it calls cblas_sgemm with device pointers (torch.cuda tensors' data_ptr), in both
layouts and all four transposes, beta 0 and nonzero, padded leading dimensions, against a float64
product; a write queued by torch on the current stream just before the call must be seen; the
calling thread's current device must be unchanged; and, with --time N, device-operand N^3 calls
are timed against torch.mm (cuBLAS) on the same tensors.

  torch_caller.py LIBTSGEMM [--time N]
Exit status: 0 all checks passed, 1 a check failed, 77 skipped (no torch or no CUDA device).
"""
import argparse
import ctypes
import sys
import time

try:
    import torch
except ImportError as e:
    print(f"SKIPPED: no torch ({e})")
    sys.exit(77)

ROW, COL = 101, 102
NOTRANS, TRANS = 111, 112


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lib", help="path of libtsgemm.so")
    ap.add_argument("--time", type=int, default=0, metavar="N", help="time N^3 device calls")
    args = ap.parse_args()

    lib = ctypes.CDLL(args.lib)
    info = ctypes.create_string_buffer(512)
    if lib.tsgemm_kernel_info(info, 512) != 0:  # starts tsgemm's GPU before torch touches CUDA
        print(f"SKIPPED: tsgemm has no usable GPU: {info.value.decode()}")
        sys.exit(77)
    if not torch.cuda.is_available():
        print("SKIPPED: torch sees no CUDA device")
        sys.exit(77)
    f = lib.cblas_sgemm
    f.restype = None
    f.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                  ctypes.c_int, ctypes.c_float, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                  ctypes.c_int, ctypes.c_float, ctypes.c_void_p, ctypes.c_int]
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    g = torch.Generator(device="cpu").manual_seed(7)
    fails = 0
    m, n, k, pad = 517, 263, 389, 5
    for layout in (ROW, COL):
        for ta in (NOTRANS, TRANS):
            for tb in (NOTRANS, TRANS):
                for beta in (0.0, -0.75):
                    # op(A) is m x k, op(B) k x n, C m x n; storage in the caller's layout
                    def stored(rows, cols, trans):
                        r, c = (cols, rows) if trans else (rows, cols)
                        if layout == ROW:  # r x c row-major with ld = c + pad
                            buf = torch.randn(r, c + pad, generator=g)
                            return buf, c + pad, buf[:, :c].clone()
                        buf = torch.randn(c, r + pad, generator=g)  # column-major: transpose
                        return buf, r + pad, buf[:, :r].clone().t()
                    A, lda, a = stored(m, k, ta == TRANS)
                    B, ldb, b = stored(k, n, tb == TRANS)
                    C, ldc, c = stored(m, n, False)
                    opa = a.t() if ta == TRANS else a
                    opb = b.t() if tb == TRANS else b
                    ref = 1.25 * (opa.double() @ opb.double()) + beta * c.double()
                    dA, dB, dC = A.to(dev), B.to(dev), C.to(dev)
                    # a write on torch's stream right before the call: A scaled by 2, alpha halved
                    dA.mul_(2.0)
                    f(layout, ta, tb, m, n, k, 0.625, dA.data_ptr(), lda, dB.data_ptr(), ldb,
                      beta, dC.data_ptr(), ldc)
                    if torch.cuda.current_device() != 0:
                        print("FAIL: the current device changed")
                        fails += 1
                    got = dC.cpu()
                    got = got[:, :n] if layout == ROW else got[:, :m].t()
                    bound = 2 * (k + 2) * 2.0**-24 * (1.25 * (opa.abs().double() @ opb.abs().double())
                                                      + abs(beta) * c.abs().double())
                    bad = int(((got.double() - ref).abs() > bound + 1e-30).sum())
                    edge = n if layout == ROW else m  # the padding of C is not touched
                    pad_ok = torch.equal(dC.cpu()[:, edge:], C[:, edge:])
                    tag = f"{'row' if layout == ROW else 'col'} {'NT'[ta == TRANS]}{'NT'[tb == TRANS]} beta={beta}"
                    if bad or not pad_ok:
                        print(f"FAIL: {tag}: {bad} elements off, padding kept: {pad_ok}")
                        fails += 1
                    else:
                        print(f"ok {tag}")
    if args.time:
        N = args.time
        dA = torch.randn(N, N, device=dev)
        dB = torch.randn(N, N, device=dev)
        dC = torch.empty(N, N, device=dev)

        def ours():
            f(COL, NOTRANS, NOTRANS, N, N, N, 1.0, dA.data_ptr(), N, dB.data_ptr(), N, 0.0,
              dC.data_ptr(), N)

        def theirs():
            torch.mm(dA, dB, out=dC)
            torch.cuda.synchronize()

        for fn in (ours, theirs):
            fn()
        best = {}
        for name, fn in (("tsgemm cblas_sgemm (device pointers)", ours), ("torch.mm (cuBLAS)", theirs)):
            ts = []
            for _ in range(10):
                t0 = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t0)
            ts.sort()
            best[name] = ts[len(ts) // 2]
            print(f"time {N}^3 {name}: median {ts[len(ts) // 2] * 1e3:.3f} ms, "
                  f"{2 * N**3 / ts[len(ts) // 2] / 1e12:.1f} TFLOP/s")
    print(f"torch caller: {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
