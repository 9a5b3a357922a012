#!/usr/bin/env bash
# scripts/test.sh — the test command (README, and CI through .ci/run): install the Debian
# packages, make the pip venvs (numpy; pinned scipy + scikit-learn; scikit-build-core for the
# package tier's wheel), build, run every tier with
# ctest, then the sanitizer build (CPU-only library, unit tier with the fuzzer under ASan + UBSan;
# about 20 s on 2 cores). Tiers that need a GPU report "Skipped" on a machine without one; they
# never pass silently.
#   BUILD_DIR       build folder (default build)
#   CTEST_ARGS      extra ctest arguments, e.g. "-L unit" to run one tier
#   ASAN_BUILD_DIR  folder of the sanitizer build (default build-asan); SANITIZE=0 skips it
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
scripts/setup-debian.sh
scripts/setup-pip-numpy.sh .venv-numpy
scripts/setup-pip-numpy.sh .venv-scipy -r tests/preload/requirements-scipy.txt
IMPORT=scikit_build_core scripts/setup-pip-numpy.sh .venv-build -r tests/package/requirements-build.txt
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release
cmake --build "$B" -j"$(nproc)"
# shellcheck disable=SC2086
ctest --test-dir "$B" --output-on-failure -j"$(nproc)" ${CTEST_ARGS:-}
if [ "${SANITIZE:-1}" != 0 ]; then
  BA=${ASAN_BUILD_DIR:-build-asan}
  cmake -S . -B "$BA" -DCMAKE_BUILD_TYPE=Release -DTSGEMM_SANITIZE=ON -DTSGEMM_TEST_TIERS=unit
  cmake --build "$BA" -j"$(nproc)"
  ctest --test-dir "$BA" --output-on-failure -j"$(nproc)" -L unit
fi
# Why the gpu tier was skipped, if it was (ctest shows only "Skipped"; -V shows each test's line)
if [ -x "$B/tests/gpu/gpu_probe" ] && ! "$B/tests/gpu/gpu_probe" > "$B/gpu-probe.txt" 2>&1; then
  echo "gpu tier skipped: $(cat "$B/gpu-probe.txt")"
fi
