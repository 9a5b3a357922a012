#!/bin/sh
# record-lapack.sh [LIB] [N_LU] [N_CHOL] — reference LAPACK (Debian liblapack3: /usr/lib/<multiarch>/lapack/
# liblapack.so.3, linked by path: the system's liblapack.so.3 alternative may be OpenBLAS's own
# LAPACK, whose factorisations never call sgemm_ through the PLT) factorising an N x N float32
# matrix under tsgemm (CPU path), two traces:
#   lapack-sgetrf-N_LU.trace    LU with partial pivoting (sgetrf: blocked, recursive sgetrf2
#                               panels), default N_LU = 4096: sgetrf2's recursion makes n - 1
#                               sgemm_ calls (8192: 8191 calls, 526 KB of trace, 31 s to record
#                               here; 4096 keeps the file near the ~200 KB the repository takes)
#   lapack-spotrf-N_CHOL.trace  Cholesky of a diagonally dominant SPD matrix (spotrf), default
#                               N_CHOL = 8192 (127 calls)
# Both call sgemm_ for their updates; the rest of the BLAS is the system's. Each run checks
# its factorisation's info = 0 and one residual entry.
. "$(dirname "$0")/record-common.sh"
NLU=${2:-4096}
NCH=${3:-8192}
MA=$(cc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
LAPACK=/usr/lib/$MA/lapack/liblapack.so.3
[ -f "$LAPACK" ] || { echo "record-lapack: $LAPACK not found (apt-get install liblapack3)" >&2; exit 2; }
W=$(mktemp -d)
cat >"$W/fact.c" <<'CEOF'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info);
int main(int argc, char **argv)
{
    const int n = atoi(argv[2]), chol = argv[1][0] == 'c';
    float *a = malloc(sizeof(float) * (size_t)n * n);
    int *ipiv = malloc(sizeof(int) * (size_t)n), info = -1;
    if (!a || !ipiv) return 2;
    unsigned s = 12345;
    for (size_t i = 0; i < (size_t)n * n; ++i) {
        s = s * 1103515245u + 12345u;
        a[i] = (float)((s >> 9) & 0xffff) / 65536.0f - 0.5f;
    }
    if (chol) { /* symmetric, diagonally dominant: SPD */
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < j; ++i) a[i + (size_t)j * n] = a[j + (size_t)i * n];
        for (int i = 0; i < n; ++i) a[i + (size_t)i * n] = (float)n;
        spotrf_("L", &n, a, &n, &info);
    } else {
        sgetrf_(&n, &n, a, &n, ipiv, &info);
    }
    printf("%s n=%d: info %d, a[n-1,n-1] = %g\n", chol ? "spotrf" : "sgetrf", n, info,
           a[(size_t)n * n - 1]);
    return info != 0 || !isfinite(a[(size_t)n * n - 1]);
}
CEOF
cc -O2 -o "$W/fact" "$W/fact.c" "$LAPACK" -lm
# the binary names liblapack.so.3 by soname: its folder first, or the loader takes the alternative
export LD_LIBRARY_PATH=$(dirname "$LAPACK")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
record "lapack-sgetrf-$NLU" "$W/fact" lu "$NLU"
record "lapack-spotrf-$NCH" "$W/fact" chol "$NCH"
rm -rf "$W"
