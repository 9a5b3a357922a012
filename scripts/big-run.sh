#!/usr/bin/env bash
# scripts/big-run.sh — the big kernel family's device run in one call (issues 10-11): build only
# test_gpu_kernel and tsgemm-kbench (sm_90, the devkit), the issue-10/11 shapes against cuBLAS for
# the rule and each configuration in BENCH_CONFIGS (tsgemm-kbench --big), the gpu-tier kernel
# test on CONFIGS (edge grid forced on each, then the whole v0.1 suite under the rule), compute-sanitizer memcheck,
# racecheck, synccheck and initcheck over the small edge grid of each forced (--small-forced;
# SAN_CONFIGS narrows the last three); a short table last.
#   DEVKIT   the devkit tarball (default .devkit.tar.xz; unpacked unless .devkit/env.sh exists)
#   CONFIGS  the configurations under test (default 7,8,9,10: the big and warp-specialized families); BENCH_CONFIGS: bench list
#            (default 0 and CONFIGS)
#   BUDGET   seconds the whole call may take (default 300); REPS bench repetitions (default 10)
#   SHAPES   bench only the shapes whose name contains one of these '|'-separated texts
#   ACC_N    sizes of the accuracy ratio in the gpu.kernel step (default "4096"; "1024 4096 16384")
#   SAN_TOOLS  the compute-sanitizer tools to run (default "memcheck racecheck synccheck initcheck";
#            "" for a timing-only A/B)
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
BUDGET=${BUDGET:-300}
CONFIGS=${CONFIGS:-7,8,9,10}
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( BUDGET - $(el) - $1 )); }
# A step runs only with more than 5 seconds of its budget left (timeout 0 would mean no limit);
# otherwise its row says it was skipped.
fits() { [ "$(left "$1")" -gt 5 ]; }
[ -f .devkit/env.sh ] || tar -xJf "${DEVKIT:-.devkit.tar.xz}"
# shellcheck disable=SC1091
source .devkit/env.sh
B=build-k
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$OUT/smi.txt" 2>&1
{ cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DTSGEMM_NETLIB_DIR="$TSGEMM_DEVKIT/blas" -DTSGEMM_TEST_TIERS="unit;gpu" &&
  cmake --build $B -j"$(nproc)" --target test_gpu_kernel tsgemm-kbench; } > "$OUT/build.log" 2>&1
rows=("build rc=$? $(el)s")
if fits 170; then
  TSGEMM_BENCH_SHAPES="${SHAPES:-}" timeout "$(left 170)" $B/bench/tsgemm-kbench --big "${REPS:-10}" "${BENCH_CONFIGS:-0,$CONFIGS}" > "$OUT/bigbench.txt" 2>&1
  rows+=("bench rc=$? $(el)s")
else rows+=("bench skipped: no time left"); fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/smi.txt" 2>&1
if fits 60; then
  TSGEMM_ACCURACY_N="${ACC_N:-4096}" TSGEMM_KERNEL_CONFIG=$CONFIGS timeout "$(left 60)" \
    $B/tests/gpu/test_gpu_kernel > "$OUT/gpu.txt" 2>&1
  rows+=("gpu.kernel rc=$? $(el)s: $(grep -E '^[0-9]+ checks' "$OUT/gpu.txt" | tail -1)")
else rows+=("gpu.kernel skipped: no time left"); fi
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in ${SAN_TOOLS-memcheck racecheck synccheck initcheck}; do
  # memcheck covers every configuration under test; SAN_CONFIGS narrows the slower three
  cfgs=$CONFIGS; [ "$tool" = memcheck ] || cfgs=${SAN_CONFIGS:-$CONFIGS}
  need=6; [ "$tool" = memcheck ] && need=25
  fits $need || { rows+=("$tool skipped: no time left"); continue; }
  # racecheck takes about 70 s per big-family configuration under --small-forced (v0.7 run 3:
  # six did not fit in 380 s): start it only when all of them fit
  est=$(( 75 * $(echo "$cfgs" | tr ',' '\n' | grep -c .) ))
  if [ "$tool" = racecheck ] && [ "$(left 0)" -lt "$est" ]; then
    rows+=("racecheck skipped: needs about $est s, $(left 0) s left"); continue
  fi
  TSGEMM_KERNEL_CONFIG=$cfgs timeout "$(left $need)" "$cs" --tool "$tool" --error-exitcode 99 \
    $B/tests/gpu/test_gpu_kernel --small-forced > "$OUT/$tool.txt" 2>&1
  rows+=("$tool (configs $cfgs) rc=$? $(el)s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.txt" | tail -1) $(grep -E '^[0-9]+ checks' "$OUT/$tool.txt" | tail -1)")
done
grep -hsE '^FAIL' "$OUT/gpu.txt" "$OUT/memcheck.txt" | head -6
grep -hsE '^config (7|8|9|1[0-9])' "$OUT/gpu.txt" | sed -E 's/ [0-9]+ blocks.SM, binary sm_90//' | cut -c1-150
grep -sE '^accuracy' "$OUT/gpu.txt" | cut -c1-110
sed -n '/^ratio to cuBLAS/,$p' "$OUT/bigbench.txt" 2>/dev/null
printf '%s\n' "${rows[@]}"
