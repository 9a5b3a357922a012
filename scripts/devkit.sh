#!/usr/bin/env bash
# scripts/devkit.sh — prepare .devkit/ for a run on the GPU device machine (run it here, on the
# development machine; the device machine has no package registry).
#
# It runs the project's shared devkit tool (OpenBLAS, netlib libblas.so.3, the netlib testers;
# see ../shared/tools/devkit) and adds what our build needs beyond it: the reference CBLAS header
# (cblas-netlib.h, Debian libblas-dev) and cmocka (libcmocka0, libcmocka-dev), plus a folder
# laid out like Debian's /usr/lib/<multiarch>/blas (libblas.so.3 next to the testers).
# .devkit/ is git-ignored; name it in the device tool's `carry`. It also writes .devkit.tar.xz
# (about 5 MiB against 39): carry that instead when the call must also carry wheels (.whl/, for
# the scipy stage), since a call carries 64 MiB at most; scripts/device-run.sh unpacks it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$here/.devkit}
devkit=${TSGEMM_SHARED_DEVKIT:-$here/../shared/tools/devkit}
"$devkit" "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkgs="libblas-dev libcmocka0 libcmocka-dev"
( cd "$work" && apt-get download $pkgs >/dev/null 2>&1 ) || {
  apt-get update >/dev/null && ( cd "$work" && apt-get download $pkgs >/dev/null ); }
for f in "$work"/*.deb; do dpkg -x "$f" "$work/root"; done
ma=x86_64-linux-gnu
r=$work/root/usr
cp "$r/include/$ma/cblas-netlib.h" "$r/include/$ma/cblas_mangling.h" "$dest/include/"
cp "$r/include/cmocka.h" "$dest/include/"
cp -L "$r/lib/$ma/libcmocka.so.0" "$dest/lib/"
ln -sf libcmocka.so.0 "$dest/lib/libcmocka.so"
mkdir -p "$dest/blas"
ln -sf ../netlib/libblas.so.3 "$dest/blas/libblas.so.3"
for t in xscblat3 sin3 xblat3s sblat3.in; do ln -sf "../blastest/$t" "$dest/blas/$t"; done
cat >> "$dest/env.sh" <<'ENV'
# added by tsgemm scripts/devkit.sh: headers and libraries for CMake's find_* calls
export CMAKE_PREFIX_PATH=$TSGEMM_DEVKIT${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
ENV
du -sh "$dest"
if [ "$dest" = "$here/.devkit" ]; then
  tar -C "$here" -cJf "$here/.devkit.tar.xz" .devkit
  du -sh "$here/.devkit.tar.xz"
fi
