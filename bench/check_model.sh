#!/bin/sh
# check_model.sh MODEL_CHECK WORKDIR — tsgemm-model-check on a made-up machine (unit.model_check):
# a 4096^3 class the model sends to the GPU, measured faster there (right); the same shape measured
# 40x slower on the GPU (flagged WRONG SIDE, its loss counted); a 64^3 class kept on the CPU (right);
# the own-pool margin's classes (the own_pool column, --own-pool); then a file that is not
# --replay-csv output and a malformed row, both refused with exit 2.
set -u
TOOL=$1 WORK=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
cat >"$WORK/gpu.txt" <<'R'
tsgemm-gpu-rates 15
h2d_bps 50000000000
d2h_bps 50000000000
gpu_flops 50000000000000
gpu_latency_s 2.0000000000000002e-05
gpu_tile_m 128
gpu_tile_n 128
gpu_slots 132
gpu_split_min_k 256
gpu_device_bytes 8589934592
R
cat >"$WORK/cpu.txt" <<'R'
tsgemm-cpu-rates 2
cpu_flops 1000000000000
cpu_mid_s 0.0005
cpu_small_s 0.0001
cpu_latency_s 1e-07
cpu_touch_bps 4000000000
samples 3
cpu_thin_m_s 0.002
cpu_thin_n_s 0.002
R
H="entry,layout,transa,transb,m,n,k,lda,ldb,ldc,alpha,beta,fresh_c,calls,recorded_ms,openblas_ms,tsgemm_ms,gpu_ms,tsgemm_on_gpu"
{ echo "$H"
  echo "cblas_sgemm,col,N,N,4096,4096,4096,4096,4096,4096,1,0,0,2,300,280,12,12,2"
  echo "sgemm_,col,N,N,4096,4096,4096,4096,4096,4096,1,0,0,1,150,140,5000,5000,1"
  echo "cblas_sgemm,row,T,N,64,64,64,64,64,64,1,0,0,3,0.1,0.03,0.03,0.3,0"; } >"$WORK/classes.csv"
"$TOOL" "$WORK/gpu.txt" "$WORK/cpu.txt" "$WORK/classes.csv" >"$WORK/out.txt" 2>&1; rc=$?
cat "$WORK/out.txt"
[ $rc -eq 0 ] || fail "exit $rc"
[ "$(grep -c 'WRONG SIDE' "$WORK/out.txt")" = 1 ] || fail "want exactly one WRONG SIDE row"
grep -q '^sgemm_ col NN 4096x4096x4096 .* gpu .* WRONG SIDE (35.71x)$' "$WORK/out.txt" || fail "the slow-GPU class not flagged with its ratio"
grep -q '^cblas_ col NN 4096x4096x4096 .* gpu  *2 *$' "$WORK/out.txt" || fail "the 4096^3 class not on the GPU, or flagged"
grep -q '^cblas_ row TN 64x64x64 .* cpu  *0 *$' "$WORK/out.txt" || fail "the 64^3 class not on the CPU, or flagged"
grep -q '^3 classes; the model.s side over 10% slower than the other in 1, 4860.000 ms lost' "$WORK/out.txt" || fail "summary"
# The own-pool margin (src/tsg_dispatch.h TSG_GPU_MARGIN_OWN_POOL): on this machine 256^3 is
# priced 0.061 ms on the GPU against 0.100 on the CPU (0.61: inside 0.5-0.9, TSG_GPU_MARGIN). Through cblas_sgemm
# it goes to the GPU; through scipy_cblas_sgemm64_ with own_pool 1 (the replay's --own-blas) the
# margin keeps it on the CPU (marked, the GPU's measured 0.03 ms over 2 calls summed apart), with
# own_pool 0 it goes to the GPU; kept on the CPU with the GPU measured 3x faster is wrong even
# beside the own pool (past 1.10 / 0.5). A file without the column: own_pool 0; --own-pool 1
# overrides it.
HO="$H,own_pool"
{ echo "$HO"
  echo "cblas_sgemm,row,N,N,256,256,256,256,256,256,1,0,0,2,0.2,0.1,0.07,0.085,2,0"
  echo "scipy_cblas_sgemm64_,row,N,N,256,256,256,256,256,256,1,0,0,2,0.2,0.2,0.2,0.17,0,1"
  echo "scipy_sgemm_,col,N,N,256,256,256,256,256,256,1,0,0,1,0.1,0.1,0.07,0.07,1,0"
  echo "scipy_cblas_sgemm,col,T,N,256,256,256,256,256,256,1,0,0,1,0.3,0.3,0.3,0.1,0,1"; } >"$WORK/own.csv"
"$TOOL" "$WORK/gpu.txt" "$WORK/cpu.txt" "$WORK/own.csv" >"$WORK/own.txt" 2>&1; rc=$?
cat "$WORK/own.txt"
[ $rc -eq 0 ] || fail "own-pool file: exit $rc"
grep -q "^the own-BLAS names .* decided with own_pool as the file's own_pool column says" "$WORK/own.txt" || fail "own-pool header"
grep -q '^cblas_ row NN 256x256x256 .* gpu  *2 *$' "$WORK/own.txt" || fail "cblas_sgemm 256^3 not on the GPU"
grep -q '^scipy_ row NN 256x256x256 .* cpu  *0 own-pool margin (1.18x)$' "$WORK/own.txt" || fail "own_pool 1 at 0.61: not kept on the CPU by the margin"
grep -q '^scipy_ col NN 256x256x256 .* gpu  *1 *$' "$WORK/own.txt" || fail "own_pool 0 at 0.61: not on the GPU"
grep -q '^scipy_ col TN 256x256x256 .* cpu  *0 WRONG SIDE (3.00x, own-pool margin)$' "$WORK/own.txt" || fail "the GPU 3x faster beside the own pool not flagged"
grep -q '^4 classes; the model.s side over 10% slower than the other in 1, 0.200 ms lost .*; the own-pool margin kept 1 more on the CPU, not wrong, the GPU measured 0.030 ms faster over their calls$' "$WORK/own.txt" ||
    fail "own-pool summary"
{ echo "$H"; echo "scipy_cblas_sgemm64_,row,N,N,256,256,256,256,256,256,1,0,0,2,0.2,0.2,0.2,0.17,0"; } >"$WORK/old.csv"
"$TOOL" "$WORK/gpu.txt" "$WORK/cpu.txt" "$WORK/old.csv" >"$WORK/old.txt" 2>&1 || fail "old file: exit $?"
grep -q '^the own-BLAS names .* decided with own_pool 0 (the file has no own_pool column)$' "$WORK/old.txt" || fail "old file header"
grep -q '^scipy_ row NN 256x256x256 .* gpu  *0 *$' "$WORK/old.txt" || { cat "$WORK/old.txt"; fail "a file without the column: not own_pool 0"; }
"$TOOL" --own-pool 1 "$WORK/gpu.txt" "$WORK/cpu.txt" "$WORK/old.csv" >"$WORK/old1.txt" 2>&1 || fail "--own-pool 1: exit $?"
grep -q '^scipy_ row NN 256x256x256 .* cpu  *0 own-pool margin' "$WORK/old1.txt" || { cat "$WORK/old1.txt"; fail "--own-pool 1 not applied"; }
"$TOOL" --own-pool 2 "$WORK/gpu.txt" "$WORK/cpu.txt" "$WORK/old.csv" >/dev/null 2>&1; [ $? -eq 2 ] || fail "--own-pool 2 accepted"
echo "not a csv" >"$WORK/bad.csv"
"$TOOL" "$WORK/gpu.txt" "$WORK/cpu.txt" "$WORK/bad.csv" >/dev/null 2>&1; [ $? -eq 2 ] || fail "a file without the header accepted"
{ echo "$H"; echo "cblas_sgemm,col,N,N,4096"; } >"$WORK/short.csv"
"$TOOL" "$WORK/gpu.txt" "$WORK/cpu.txt" "$WORK/short.csv" >/dev/null 2>&1; [ $? -eq 2 ] || fail "a short row accepted"
echo "model check ok"
