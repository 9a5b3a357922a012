/*
 * tsg_blas_filter.c — libblas.so.3 as a filter: a system BLAS whose single-precision GEMM is
 * tsgemm's and everything else OpenBLAS's, for Debian's libblas.so.3 alternative (docs/USING.md,
 * "As the system BLAS"). It defines no BLAS symbol itself; the link gives it
 *   DT_AUXILIARY libtsgemm.so.N   (ld --auxiliary): an optional filtee, searched first
 *   DT_NEEDED    libopenblas.so.0 (ld --no-as-needed)
 *   DT_RUNPATH   $ORIGIN/..       (libtsgemm.so.N sits one folder up: build/ or <libdir>/)
 * so for a program linked with -lblas, glibc resolves sgemm_, cblas_sgemm and the other names
 * tsgemm exports to libtsgemm and dgemm_, cblas_dgemm and the rest to OpenBLAS, in the global
 * scope and in a dlopen'ed module's local scope alike; tsgemm's CPU side is that same OpenBLAS
 * (an OpenBLAS already in the process). Without libtsgemm.so.N the auxiliary filtee is skipped
 * silently and the filter is plain OpenBLAS, never a program that cannot start. Measured with
 * glibc 2.36 (tests/preload, blas_filter): a standard filter (--filter=libopenblas.so.0) plus the
 * auxiliary one resolves sgemm_ to OpenBLAS, and a plain DT_NEEDED libtsgemm works but makes every
 * BLAS program fail to start once tsgemm is removed; hence this combination.
 * Must not: define any symbol a BLAS defines (it would shadow both libraries).
 */

/* ISO C wants one declaration; the note names the file for whoever runs `strings` on it. */
static const char tsg_filter_note[] __attribute__((used)) =
    "tsgemm's libblas.so.3 filter: SGEMM from libtsgemm (auxiliary filtee), the rest from OpenBLAS";
