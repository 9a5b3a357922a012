#!/usr/bin/env bash
# scripts/demo.sh — the main job (README's first command): install the Debian packages, build
# libtsgemm.so and tsgemm-bench, then show tsgemm on real input against OpenBLAS:
#   1. tsgemm-bench --quick --reps 7: end-to-end cblas_sgemm of tsgemm (auto and GPU-forced), OpenBLAS
#      itself, cuBLAS and NVBLAS where present — side by side, every result checked;
#   2. an unmodified numpy program (Debian's python3-numpy), run plain and under
#      LD_PRELOAD=libtsgemm.so with TSGEMM_LOG=2, printing both results and where the calls ran.
# On a machine without a GPU it says so and compares tsgemm (then OpenBLAS behind tsgemm's
# checks) with OpenBLAS.
#   BUILD_DIR   build folder (default build)   BENCH_ARGS  tsgemm-bench arguments (default --quick --reps 7)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
scripts/setup-debian.sh
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$B" -j"$(nproc)" >/dev/null
echo "== tsgemm-bench ${BENCH_ARGS:---quick --reps 7}"
# shellcheck disable=SC2086
"$B/bench/tsgemm-bench" ${BENCH_ARGS:---quick --reps 7}
if ! "$B/tests/gpu/gpu_probe" >/dev/null 2>&1; then
  echo "(no GPU here: tsgemm runs every call on OpenBLAS, so tsgemm/openblas differences above are"
  echo " run-to-run noise; on a GPU machine the same command shows the GPU columns)"
fi
echo
echo "== an unmodified numpy program: plain, then under LD_PRELOAD=$B/libtsgemm.so"
prog=scripts/numpy_demo.py
echo "-- plain numpy (its BLAS: $(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)'), Debian's)"
/usr/bin/python3 "$prog"
echo "-- the same program under LD_PRELOAD=libtsgemm.so TSGEMM_LOG=2"
LD_PRELOAD=$PWD/$B/libtsgemm.so TSGEMM_LOG=2 /usr/bin/python3 "$prog"
