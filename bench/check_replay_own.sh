#!/bin/sh
# check_replay_own.sh BENCH FAKE_LIB OWN_LIB TSGEMM_LIB NOP_LIB WORKDIR — tsgemm-bench --replay --own-blas
# (unit.replay_own_blas): a trace whose calls come through numpy's and scipy's names replayed over
# the stand-in GPU (libtsgemm_fake, preloaded) with libtsg_own_blas (tests/support/own_blas.c)
# standing for the program's own BLAS, and without it.
#   The rates are fixed so that the model's choice is known: the fake GPU's are fixed by the fake,
#   the CPU's file (measured once, then overwritten with a CPU of 1 TFLOP/s, 40 us at 256^3 and
#   0.3 ms at 512^3: faster than this machine, so no spot check measures it again) puts square
#   calls from 256^3 to 448^3 on both sides of the GPU's estimate, some of them between 0.5 and
#   TSG_GPU_MARGIN (0.9) of the CPU's (src/tsg_dispatch.h: the own-pool margin's band).
#   (1) with --own-blas: the header names the stand-in for both names; the shim finds it as the
#       caller's own (its TSGEMM_LOG=2 line); in the auto pass some scipy_cblas_sgemm64_ calls
#       stay on the CPU "beside the caller's own BLAS threads" (own_pool 1), no cblas_sgemm call
#       does; every result right; the CSV's own_pool column 1 for the scipy_ classes only.
#   (2) without: the not-loaded line for each name, no call kept by the own-pool margin, the
#       same calls on the GPU "model: GPU faster"; the CSV's own_pool column 0.
#   (3) refused before any call (exit 2): a folder, a bare name, tsgemm itself, a library that
#       defines none of the names (NOP_LIB: libtsg_nop_sgemm), a missing file; --own-blas
#       without --replay.
set -u
BENCH=$1 FAKE=$2 OWN=$3 TSG=$4 NOP=$5 WORK=$6
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
[ -f "$OWN" ] || fail "the stand-in own BLAS $OWN is missing"
export TSGEMM_CACHE_DIR=$WORK/cache
T=$WORK/own.trace
{ echo "# tsgemm-trace 1"
  echo "cblas_sgemm col N N 256 256 256 256 256 256 1 0 hhh 0 0 cpu 100"
  for n in 256 288 320 352 384 416 448; do
    echo "cblas_sgemm col N N $n $n $n $n $n $n 1 0 hhh 0 0 cpu 100"
    echo "scipy_cblas_sgemm64_ row N N $n $n $n $n $n $n 1 0 hhh 0 0 cpu 100"
  done
  echo "scipy_sgemm_ col T N 320 320 320 320 320 320 1 0 hhh 0 0 cpu 100"; } >"$T"

# the rates: measured once (cblas_sgemm's CPU BLAS is the one the replay's first call names), then
# the CPU's file overwritten
{ echo "# tsgemm-trace 1"; echo "cblas_sgemm col N N 256 256 256 256 256 256 1 0 hhh 0 0 cpu 100"; } >"$WORK/one.trace"
LD_PRELOAD=$FAKE TSGEMM_LOG=0 "$BENCH" --replay "$WORK/one.trace" >"$WORK/measure.txt" 2>&1 ||
    { cat "$WORK/measure.txt"; fail "the measuring replay"; }
CPU=$(ls "$TSGEMM_CACHE_DIR"/cpu-rates-v3-*.txt 2>/dev/null | head -1)
[ -n "$CPU" ] || fail "no CPU rates file in $TSGEMM_CACHE_DIR"
printf 'tsgemm-cpu-rates 2\ncpu_flops 1e12\ncpu_mid_s 0.0003\ncpu_small_s 4e-05\ncpu_latency_s 1e-07\ncpu_touch_bps 4e9\nsamples 3\ncpu_thin_m_s 0.001\ncpu_thin_n_s 0.001\n' >"$CPU"

# (1) the stand-in as the program's own BLAS
LD_PRELOAD=$FAKE TSGEMM_LOG=3 "$BENCH" --replay "$T" --own-blas "$OWN" --replay-csv "$WORK/own.csv" >"$WORK/own.txt" 2>&1; rc=$?
grep -v '^tsgemm: [a-z_0-9]* layout=' "$WORK/own.txt"
[ $rc -eq 0 ] || fail "replay with --own-blas: exit $rc"
grep -q "WRONG" "$WORK/own.txt" && fail "a result reported WRONG with --own-blas"
grep -q "CPU rates from" "$WORK/own.txt" || fail "the CPU rates were not read from the file written here"
for e in scipy_cblas_sgemm64_ scipy_sgemm_; do
    grep -q "^  own BLAS    $e ([0-9]* calls): [^ ]*/libtsg_own_blas.so stands for the program's own library" "$WORK/own.txt" ||
        fail "the header does not name the stand-in for $e"
    grep -q "^tsgemm: CPU path of $e: the caller's own .*/libtsg_own_blas.so" "$WORK/own.txt" ||
        fail "the shim did not find the stand-in for $e"
done
margin=$(grep -c "^tsgemm: scipy_cblas_sgemm64_ layout=row .* -> cpu (model: GPU faster, but not twice, beside the caller's own BLAS threads)" "$WORK/own.txt")
[ "$margin" -ge 1 ] || fail "no scipy_cblas_sgemm64_ call kept on the CPU by the own-pool margin"
grep "beside the caller's own BLAS threads" "$WORK/own.txt" | grep -q "^tsgemm: cblas_sgemm " &&
    fail "a cblas_sgemm call was decided with the own-pool margin"
grep -q '^scipy_cblas_sgemm64_,row,N,N,256,.*,1$' "$WORK/own.csv" || fail "the CSV's own_pool is not 1 for scipy_cblas_sgemm64_"
grep -q '^cblas_sgemm,col,N,N,256,.*,0$' "$WORK/own.csv" || fail "the CSV's own_pool is not 0 for cblas_sgemm"

# (2) without it: said, and the same calls on the GPU under TSG_GPU_MARGIN
LD_PRELOAD=$FAKE TSGEMM_LOG=3 "$BENCH" --replay "$T" --replay-csv "$WORK/none.csv" >"$WORK/none.txt" 2>&1; rc=$?
grep -v '^tsgemm: [a-z_0-9]* layout=' "$WORK/none.txt"
[ $rc -eq 0 ] || fail "replay without --own-blas: exit $rc"
for e in scipy_cblas_sgemm64_ scipy_sgemm_; do
    grep -q "^  own BLAS    $e ([0-9]* calls): not loaded (no --own-blas library defines it): own_pool 0" "$WORK/none.txt" ||
        fail "no not-loaded line for $e"
done
grep -q "CPU path of .*: the caller's own" "$WORK/none.txt" && fail "the shim found a caller's own library without --own-blas"
grep -q "beside the caller's own BLAS threads" "$WORK/none.txt" && fail "the own-pool margin applied without --own-blas"
gpu=$(grep -c "^tsgemm: scipy_cblas_sgemm64_ layout=row .* -> gpu (model: GPU faster)" "$WORK/none.txt")
# each pass's calls at TSGEMM_LOG=3: the auto pass's margin calls go to the GPU here
[ "$gpu" -ge "$margin" ] || fail "without --own-blas only $gpu scipy_cblas_sgemm64_ calls on the GPU by the model, want >= $margin"
grep -q '^scipy_cblas_sgemm64_,row,N,N,256,.*,0$' "$WORK/none.csv" || fail "the CSV's own_pool is not 0 without --own-blas"

# (3) refusals
mkdir -p "$WORK/dir"
for bad in "$WORK/dir" libtsg_own_blas.so "$TSG" "$NOP" "$WORK/missing.so"; do
    "$BENCH" --replay "$T" --own-blas "$bad" >"$WORK/bad.txt" 2>&1; rc=$?
    [ $rc -eq 2 ] || { cat "$WORK/bad.txt"; fail "--own-blas $bad: exit $rc, want 2"; }
    grep -q "^tsgemm-bench: --own-blas " "$WORK/bad.txt" || fail "--own-blas $bad: no reason given"
    grep -q "^  openblas " "$WORK/bad.txt" && fail "--own-blas $bad: calls ran"
done
"$BENCH" --replay "$T" --own-blas "$TSG" 2>&1 | grep -q "it is a copy of tsgemm" || fail "tsgemm itself not refused as a copy of tsgemm"
"$BENCH" --replay "$T" --own-blas "$WORK/dir" 2>&1 | grep -q "is not a regular file" || fail "a folder not refused as not a regular file"
"$BENCH" --replay "$T" --own-blas "$NOP" 2>&1 | grep -q "it defines none of scipy_cblas_sgemm64_" || fail "a library without the names not refused"
"$BENCH" --own-blas "$OWN" >/dev/null 2>&1; [ $? -eq 2 ] || fail "--own-blas without --replay accepted"
echo "replay own-BLAS checks passed"
