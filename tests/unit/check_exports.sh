#!/bin/sh
# check_exports.sh LIB HEADER... — the dynamic symbols libtsgemm.so defines are exactly docs/DESIGN.md's
# list: the eight BLAS names below, plus tsgemm_* functions that one of the HEADERs declares
# (include/tsgemm.h, the stable API, and include/tsgemm_tuning.h, the tuning hooks).
# Anything else (a helper that lost its `static`, a symbol of the static CUDA runtime or of
# tsg_core leaking through) would interpose on the host program and fails this test.
# Exit status: 0 passed, 1 failed (what is wrong is printed), 77 skipped (no nm), 2 usage.
set -u
[ $# -ge 2 ] || { echo "usage: $0 LIB HEADER..." >&2; exit 2; }
LIB=$1
shift
command -v nm >/dev/null 2>&1 || { echo "SKIPPED: nm not found (Debian: apt-get install binutils)"; exit 77; }
BLAS="cblas_sgemm sgemm_ cblas_sgemm64_ sgemm_64_ scipy_cblas_sgemm64_ scipy_sgemm_64_ scipy_cblas_sgemm scipy_sgemm_"
syms=$(nm -D --defined-only "$LIB" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u) || exit 1
FAILED=0
for want in $BLAS; do
    echo "$syms" | grep -qx "$want" || { echo "FAIL: $want is not exported"; FAILED=1; }
done
for s in $syms; do
    case " $BLAS " in *" $s "*) continue ;; esac
    case $s in
    tsgemm_*)
        grep -Eq "[^A-Za-z0-9_]$s\\(" "$@" ||
            { echo "FAIL: $s is exported but not declared in $*"; FAILED=1; } ;;
    *) echo "FAIL: $s is exported (not in docs/DESIGN.md's list)"; FAILED=1 ;;
    esac
done
echo "exported:" $syms
[ "$FAILED" -eq 0 ] && echo "check_exports: passed"
exit "$FAILED"
