#!/usr/bin/env bash
# scripts/test.sh — the test command (README, and CI through .ci/run): install the Debian
# packages, make the pip venvs (numpy; pinned scipy + scikit-learn), build, run every tier with
# ctest. Tiers that need a GPU report "Skipped" on a machine without one; they never pass silently.
#   BUILD_DIR   build folder (default build)
#   CTEST_ARGS  extra ctest arguments, e.g. "-L unit" to run one tier
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
scripts/setup-debian.sh
scripts/setup-pip-numpy.sh .venv-numpy
scripts/setup-pip-numpy.sh .venv-scipy -r tests/preload/requirements-scipy.txt
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release
cmake --build "$B" -j"$(nproc)"
# shellcheck disable=SC2086
ctest --test-dir "$B" --output-on-failure -j"$(nproc)" ${CTEST_ARGS:-}
# Why the gpu tier was skipped, if it was (ctest shows only "Skipped"; -V shows each test's line)
if [ -x "$B/tests/gpu/gpu_probe" ] && ! "$B/tests/gpu/gpu_probe" > "$B/gpu-probe.txt" 2>&1; then
  echo "gpu tier skipped: $(cat "$B/gpu-probe.txt")"
fi
