#!/usr/bin/env bash
# scripts/kernel-run.sh — the kernel family's device run in one call (issue 11): build only
# test_gpu_kernel and tsgemm-kbench (sm_90, the devkit), the per-configuration bench against
# cuBLAS (tsgemm-kbench), the gpu-tier
# kernel test (edge grid on every configuration), compute-sanitizer memcheck over the small edge
# grid of every configuration, auto mode's rates and choices; a short table last. BUDGET (seconds, default 225) bounds the call.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
BUDGET=${BUDGET:-225}
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
[ -f .devkit/env.sh ] || tar -xJf .devkit.tar.xz
# shellcheck disable=SC1091
source .devkit/env.sh
B=build-k
{ cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DTSGEMM_NETLIB_DIR="$TSGEMM_DEVKIT/blas" -DTSGEMM_TEST_TIERS="unit;gpu" &&
  cmake --build $B -j"$(nproc)" --target test_gpu_kernel tsgemm-kbench gpu_probe; } > "$OUT/build.log" 2>&1
rows=("build rc=$? $(el)s")
timeout $(( BUDGET - $(el) - 100 )) $B/bench/tsgemm-kbench ${REPS:-20} > "$OUT/kbench.txt" 2>&1
rows+=("bench rc=$? $(el)s")
timeout $(( BUDGET - $(el) - 40 )) $B/tests/gpu/test_gpu_kernel > "$OUT/gpu.txt" 2>&1
rows+=("gpu.kernel rc=$? $(el)s: $(grep -E '^[0-9]+ checks' "$OUT/gpu.txt" | tail -1)")
# auto mode's crossover (host memory, the pipeline; rates measured fresh)
OPENBLAS_CORETYPE=SkylakeX TSGEMM_CACHE_DIR=$B/cache-rates TSGEMM_LOG=2 timeout 40 $B/tests/gpu/gpu_probe --rates > "$OUT/rates.txt" 2>&1
rows+=("rates rc=$? $(el)s")
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout $(( BUDGET - $(el) - 3 )) "$cs" --tool memcheck --error-exitcode 99 \
  $B/tests/gpu/test_gpu_kernel --small > "$OUT/memcheck.txt" 2>&1
rows+=("memcheck rc=$? $(el)s: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.txt" | tail -1) $(grep -E '^[0-9]+ checks' "$OUT/memcheck.txt" | tail -1)")
grep -E '^FAIL' "$OUT/gpu.txt" "$OUT/memcheck.txt" | head -8
grep -E '^config [0-9]' "$OUT/gpu.txt" "$OUT/memcheck.txt" | sed -E 's/, [0-9]-stage.*binary sm_90//' | cut -c1-120
grep -E '^accuracy|repeat' "$OUT/gpu.txt"
grep -E 'rates \(math [a-z0-9]+\):|auto mode' "$OUT/rates.txt" | cut -c1-200
sed -n '/^per configuration/,$p' "$OUT/kbench.txt"
printf '%s\n' "${rows[@]}"
