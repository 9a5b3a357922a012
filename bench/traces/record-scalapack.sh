#!/bin/sh
# record-scalapack.sh [LIB] [BUILD] — scalapack-psgemm.trace: one rank of ScaLAPACK's PSGEMM
# (Debian libscalapack-openmpi) over 4 MPI ranks (2 x 2 grid) under tsgemm (CPU path), the local
# sgemm_ calls PBLAS makes for three distributed 1024 x 1024 x 1024 products (NN, TN, NT; NB 64).
# The program is the preload tier's psgemm_check (BUILD/tests/preload/tsg_psgemm_check, default the
# library's folder), started by tests/preload/mpi_run.sh: loopback and shared memory only. Every
# rank writes its own trace (TSGEMM_TRACE with %p); rank 0's — the lowest process id's is not
# necessarily it, so each rank's file is named by OMPI_COMM_WORLD_RANK — is kept.
. "$(dirname "$0")/record-common.sh"
BUILD=${2:-$(dirname "$LIB")}
PROG=$BUILD/tests/preload/tsg_psgemm_check
[ -x "$PROG" ] || { echo "record-scalapack: $PROG not found (build the tests)" >&2; exit 2; }
W=$(mktemp -d)
t0=$(date +%s.%N)
sh "$SRC/tests/preload/mpi_run.sh" --preload "$LIB" 4 sh -c \
    'TSGEMM_TRACE='"$W"'/rank$OMPI_COMM_WORLD_RANK.trace exec "$0" "$@"' "$PROG" 1024 1024 1024 64
t1=$(date +%s.%N)
mv "$W/rank0.trace" "$OUTDIR/scalapack-psgemm.trace"
rm -rf "$W"
printf 'scalapack-psgemm.trace: %s calls, %s bytes, recorded in %.1f s (4 ranks)\n' \
    "$(grep -vc '^#' "$OUTDIR/scalapack-psgemm.trace")" "$(wc -c <"$OUTDIR/scalapack-psgemm.trace")" \
    "$(echo "$t1 - $t0" | bc)"
