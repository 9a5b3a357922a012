#!/bin/sh
# check_model.sh MODEL_CHECK WORKDIR — tsgemm-model-check on a made-up machine (unit.model_check):
# a 4096^3 class the model sends to the GPU, measured faster there (right); the same shape measured
# 40x slower on the GPU (flagged WRONG SIDE, its loss counted); a 64^3 class kept on the CPU (right);
# then a file that is not --replay-csv output and a malformed row, both refused with exit 2.
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
echo "not a csv" >"$WORK/bad.csv"
"$TOOL" "$WORK/gpu.txt" "$WORK/cpu.txt" "$WORK/bad.csv" >/dev/null 2>&1; [ $? -eq 2 ] || fail "a file without the header accepted"
{ echo "$H"; echo "cblas_sgemm,col,N,N,4096"; } >"$WORK/short.csv"
"$TOOL" "$WORK/gpu.txt" "$WORK/cpu.txt" "$WORK/short.csv" >/dev/null 2>&1; [ $? -eq 2 ] || fail "a short row accepted"
echo "model check ok"
