#!/bin/sh
# gpu_rates_stale.sh CLIENT DIR — a GPU rates cache that prices the kernel far too slow (as a
# process measured under compute-sanitizer leaves it: docs/NOTES.md "2026-12-07 twenty-first
# session", 1.1 TFLOP/s cached on an H100 that runs 48.7) is measured again by the next process,
# whose spot check of the kernel reads it faster (shim/tsg_measure.c TSG_GPU_STALE_FACTOR); a
# cache that reads the kernel faster than the spot check is left as it is. In each math, whose
# files are apart. CLIENT makes one auto-mode call above the GPU floor over the stand-in GPU
# (test_warm prime), whose measurement and spot check both read 40 TFLOP/s.
set -u
client=$1 dir=$2
export TSGEMM_CACHE_DIR="$dir" TSGEMM_LOG=2 TSGEMM_PIN_AT_START=0 TSGEMM_MODE=
rm -rf "$dir"
for math in fp32 3xtf32; do
  export TSGEMM_MATH=$math
  out=$("$client" prime 2>&1) || { echo "FAIL: $math: the priming process"; echo "$out"; exit 1; }
  echo "$out" | grep -q "fake-gpu: measured" || { echo "FAIL: $math: the first process did not measure"; exit 1; }
  if [ $math = fp32 ]; then f=$(ls "$dir"/gpu-rates-*.txt | grep -v -- '-[0-9a-z]*tf32\.txt$')
  else f=$(ls "$dir"/gpu-rates-*-$math.txt); fi
  [ -n "$f" ] && [ -f "$f" ] || { echo "FAIL: $math: no GPU rates file in $dir"; ls "$dir"; exit 1; }
  field() { awk -v k="$1" '$1 == k { print $2 }' "$f"; }
  good=$(field gpu_flops)
  set_flops() { awk -v v="$1" '$1 == "gpu_flops" { print $1, v; next } { print }' "$f" > "$f.new" && mv "$f.new" "$f"; }
  # a tool's 40x: the next process's spot check reads 40 TFLOP/s against 1 cached
  set_flops 1e12
  out=$("$client" prime 2>&1) || { echo "FAIL: $math: the process after the edit"; echo "$out"; exit 1; }
  echo "$out" | grep 'spot check'
  echo "$out" | grep -q 'measured again' || { echo "FAIL: $math: a kernel rate 40x too slow was kept"; exit 1; }
  echo "$out" | grep -q "fake-gpu: measured 1 (math" || { echo "FAIL: $math: no measurement after the spot check"; exit 1; }
  now=$(field gpu_flops)
  echo "$math: kernel measured $good FLOP/s, edited to 1e12, after the next process $now"
  awk -v now="$now" -v good="$good" 'BEGIN { exit !(now == good) }' ||
    { echo "FAIL: $math: the cache reads $now (the measurement: $good)"; exit 1; }
  # a cached rate the spot check does not beat by 1.5x is read as it is: 1.4x under it, and above
  for v in 2.9e13 1e14; do
    set_flops $v
    out=$("$client" prime 2>&1) || { echo "FAIL: $math: the process with $v cached"; exit 1; }
    echo "$out" | grep -q 'fake-gpu: measured' && { echo "FAIL: $math: a cache of $v FLOP/s was measured again"; echo "$out" | grep 'spot'; exit 1; }
    echo "$out" | grep -q 'GPU rates from' || { echo "FAIL: $math: the process with $v cached did not read the cache"; exit 1; }
    [ "$(field gpu_flops)" = "$v" ] || { echo "FAIL: $math: the cache changed from $v"; exit 1; }
  done
done
echo "ok"
