#!/bin/sh
# mpi_run.sh [--preload LIB] NP PROGRAM [ARGS...] — runs PROGRAM as NP ranks of Open MPI's mpirun
# on this machine alone, for the preload tier's MPI tests.
#
# Network: these machines flag any traffic that is not loopback (docs/TESTING.md, "Processes and the
# network"), so MPI runs on shared memory and loopback only: the ob1 PML with the self and vader
# (shared memory) BTLs — no UCX, no TCP BTL — and mpirun's out-of-band channel on lo. (Checked with
# strace -e connect,bind: every connect goes to 127.0.0.1 or a unix socket; Open MPI 4.1's oob
# still binds its listening sockets to the wildcard address, which sends nothing.)
# The ranks get LD_PRELOAD=LIB through -x (mpirun and its daemons are not preloaded), every
# TSGEMM_* variable of this environment, and OPENBLAS_NUM_THREADS=1 (NP ranks on 2 cores).
# --oversubscribe: more ranks than cores. Root is allowed (CI containers run as root).
# Exit status: PROGRAM's (through mpirun); 77 (skipped, with the reason) without Open MPI's mpirun.
set -u
PRELOAD=
if [ "${1:-}" = --preload ]; then
    PRELOAD=$2
    shift 2
fi
[ $# -ge 2 ] || { echo "usage: $0 [--preload LIB] NP PROGRAM [ARGS...]" >&2; exit 2; }
NP=$1
shift
MPIRUN=${MPIRUN:-mpirun}
if ! command -v "$MPIRUN" >/dev/null 2>&1; then
    echo "SKIPPED: $MPIRUN not found (Debian: apt-get install openmpi-bin libopenmpi-dev libscalapack-openmpi-dev)"
    exit 77
fi
if ! "$MPIRUN" --version 2>/dev/null | grep -q "Open MPI"; then
    echo "SKIPPED: $MPIRUN is not Open MPI's (the options below are Open MPI's)"
    exit 77
fi
set -- -np "$NP" --oversubscribe \
    --mca pml ob1 --mca btl self,vader --mca osc '^ucx' \
    --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo \
    -x OPENBLAS_NUM_THREADS=1 "$@"
[ -n "$PRELOAD" ] && set -- -x "LD_PRELOAD=$PRELOAD" "$@"
for v in $(env | sed -n 's/^\(TSGEMM_[A-Z_]*\)=.*/\1/p'); do
    set -- -x "$v" "$@"
done
# hwloc's GL component probes X displays (:0-:9) over unix sockets and 127.0.0.1:600x: pointless here
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-gl
set -- -x HWLOC_COMPONENTS "$@"
echo "mpi_run: $MPIRUN $*"
exec "$MPIRUN" "$@"
