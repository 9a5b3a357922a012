#!/usr/bin/env bash
# scripts/setup-debian.sh — install the Debian packages tsgemm builds and tests with (needs root
# or sudo). Idempotent; used by scripts/demo.sh, scripts/test.sh and .ci/run.
#   build:  cmake, a C compiler, OpenBLAS (the CPU path), the reference CBLAS header (libblas-dev)
#   tests:  cmocka, the netlib testers (libblas-test), gfortran, Debian numpy, python3-venv (pip
#           numpy), Octave, gnuplot (the bench's plots), Open MPI + ScaLAPACK (the PSGEMM test);
#           the package tier needs nothing more: cpack comes with cmake, dpkg-deb with dpkg,
#           python3-venv + python3-numpy make its fresh venv, pkg-config builds its C client
#           (scikit-build-core is a pip package: scripts/test.sh puts it into .venv-build)
# The CUDA toolkit is not a Debian package here: with nvcc on PATH or in /usr/local/cuda the GPU
# path is built, without it the library is built CPU-only (TSGEMM_CUDA=AUTO).
set -euo pipefail
pkgs=(build-essential cmake pkg-config binutils git ca-certificates
      libopenblas-dev libblas-dev libblas-test libcmocka-dev gfortran
      python3 python3-numpy python3-venv python3-pip octave gnuplot-nox
      openmpi-bin libopenmpi-dev libscalapack-openmpi-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "setup-debian: installing ${missing[*]}" >&2
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
