#!/usr/bin/env bash
# scripts/pack-build.sh — build the device machine's build folder here and pack it for `carry`, so
# that a device call spends none of its time on the build (the build stage takes 154 s of an H100
# call, docs/NOTES.md "2026-12-07 twenty-fourth session"; here it takes about 5 minutes on 2 cores).
#
# It runs scripts/device-run.sh's own build stage on this machine (the same configure line: sm_90,
# the devkit's OpenBLAS, cmocka and netlib testers, build-dev/ under this checkout) and writes
# build-carry/build-dev.tar.xz (about 14 MiB: objects, static archives, CMake's own files and any
# rates cache left out). Name build-carry in the device tool's `carry`; device-run.sh unpacks it
# when build-dev/ is not there. The build folder's paths are absolute: it runs only where the
# checkout has the same path as here (the device machine's is /work/main, as is this one's), and
# device-run.sh refuses a pack whose CMakeCache.txt names another source folder.
# Needs .devkit/ (scripts/devkit.sh) and CUDA's nvcc; no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f .devkit/env.sh ] && [ ! -f .devkit.tar.xz ]; then
  echo "pack-build: no .devkit/: run scripts/devkit.sh first" >&2; exit 2
fi
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
OUT=$log scripts/device-run.sh build > "$log/summary.txt" 2>&1 || {
  cat "$log/summary.txt"; tail -30 "$log/build.log" 2>/dev/null; exit 1; }
mkdir -p build-carry
tar --exclude='*/CMakeFiles' --exclude='*.o' --exclude='*.a' --exclude='build-dev/cache*' \
  --exclude='build-dev/Testing' -cf - build-dev | xz -T0 -6 > build-carry/build-dev.tar.xz.tmp
mv build-carry/build-dev.tar.xz.tmp build-carry/build-dev.tar.xz
echo "pack-build: build-carry/build-dev.tar.xz ($(du -h build-carry/build-dev.tar.xz | cut -f1)," \
  "tree $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- CMakeLists.txt cmake include src shim gpu kernels tests bench || echo ' with local changes'))"
