# record-common.sh — sourced by the record-*.sh scripts of bench/traces (not run on its own).
# Sets LIB (the libtsgemm to preload: $1, default build/libtsgemm.so.0 under the source tree),
# SRC (the source tree), OUTDIR (where the .trace goes: $TRACE_DIR, default bench/traces) and
# the recording environment: TSGEMM_MODE=cpu (traces are recorded on the CPU path: every call
# runs on OpenBLAS, the times are OpenBLAS's behind tsgemm's checks), TSGEMM_LOG=0, a private
# cache folder. record NAME CMD...: runs CMD with TSGEMM_TRACE=$OUTDIR/NAME.trace (removed
# first), then prints the trace's call count, size and how long the recording took.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
LIB=${1:-$SRC/build/libtsgemm.so.0}
[ -f "$LIB" ] || { echo "$(basename "$0"): $LIB not found (build first, or pass the library)" >&2; exit 2; }
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
OUTDIR=${TRACE_DIR:-$SRC/bench/traces}
mkdir -p "$OUTDIR"
export TSGEMM_MODE=cpu TSGEMM_LOG=0
TSGEMM_CACHE_DIR=$(mktemp -d)
export TSGEMM_CACHE_DIR
trap 'rm -rf "$TSGEMM_CACHE_DIR"' EXIT
record() {
    name=$1
    shift
    rm -f "$OUTDIR/$name.trace"
    t0=$(date +%s.%N)
    LD_PRELOAD=$LIB TSGEMM_TRACE=$OUTDIR/$name.trace "$@"
    t1=$(date +%s.%N)
    calls=$(grep -vc '^#' "$OUTDIR/$name.trace" || true)
    printf '%s: %s calls, %s bytes, recorded in %.1f s\n' "$name.trace" "$calls" \
        "$(wc -c <"$OUTDIR/$name.trace")" "$(echo "$t1 - $t0" | bc)"
}
