#!/bin/sh
# wheel_check.sh SRC BUILD_PYTHON VERSION WORK — the Python wheel as a user gets it (package tier):
#   1. BUILD_PYTHON (a venv with scikit-build-core: scripts/setup-pip-numpy.sh <source>/.venv-build
#      -r tests/package/requirements-build.txt) runs `pip wheel --no-build-isolation --no-index` on
#      SRC, CPU-only (-Ccmake.define.TSGEMM_CUDA=OFF: CI's 2 cores would spend most of the budget
#      on the kernels again; the CUDA wheel is the same CMake build with the GPU objects added),
#      in WORK/skbuild; no network;
#   2. the wheel holds the library (one real file), tsgemm-run, tsgemm-bench, the Python package,
#      and no CUDA runtime or driver library;
#   3. a fresh venv (Debian's python3 with its system site-packages for Debian numpy) installs it
#      with --no-index; the commands are on PATH; `tsgemm-run python ...` and `python -m tsgemm
#      run ...` intercept a numpy float32 product (tsgemm.stats() and the TSGEMM_LOG=2 exit
#      summary), tsgemm.stats() is None without the preload, info() and library_path() answer;
#      tsgemm-bench starts; a C client builds with the venv's pkg-config file and runs;
#   4. pip uninstall leaves the venv's file list exactly as before the install.
# Exit status: 0 passed, 1 failed, 77 skipped (a prerequisite missing: the line says which).
set -u
[ $# -eq 4 ] || { echo "usage: $0 SRC BUILD_PYTHON VERSION WORK" >&2; exit 2; }
SRC=$1 BPY=$2 VERSION=$3 T=$4
here=$(cd -- "$(dirname -- "$0")" && pwd -P)
PY=${TSGEMM_PKG_VENV_PYTHON:-/usr/bin/python3}
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$BPY" ] && "$BPY" -c 'import scikit_build_core' 2>/dev/null ||
    skip "no build venv with scikit-build-core at $BPY (scripts/setup-pip-numpy.sh .venv-build -r tests/package/requirements-build.txt, IMPORT=scikit_build_core)"
"$PY" -c 'import numpy, ensurepip' 2>/dev/null ||
    skip "$PY lacks numpy or venv support (Debian: apt-get install python3-numpy python3-venv)"
command -v cc >/dev/null && command -v pkg-config >/dev/null || skip "no cc or pkg-config"
rm -rf "$T" && mkdir -p "$T" || exit 1

# 1. the wheel
echo "== pip wheel (CPU-only) in $T/skbuild"
"$BPY" -m pip wheel --disable-pip-version-check --no-build-isolation --no-deps --no-index \
    -w "$T/dist" --config-settings=cmake.define.TSGEMM_CUDA=OFF \
    --config-settings=build-dir="$T/skbuild" "$SRC" >"$T/wheel.log" 2>&1 ||
    { tail -40 "$T/wheel.log"; fail "pip wheel"; }
W=$(ls "$T"/dist/tsgemm-"$VERSION"-py3-none-*.whl 2>/dev/null | head -1)
[ -n "$W" ] || { ls -l "$T/dist"; fail "no tsgemm-$VERSION-py3-none-*.whl (version from CMakeLists.txt)"; }
echo "wheel: $W ($(wc -c <"$W") bytes)"

# 2. its contents
"$PY" - "$W" "$VERSION" <<'PYEOF' || fail "wheel contents"
import sys, zipfile
w, v = sys.argv[1], sys.argv[2]
names = {i.filename: i for i in zipfile.ZipFile(w).infolist()}
d = f"tsgemm-{v}.data/data/"
want = ["tsgemm/__init__.py", "tsgemm/__main__.py", d + "lib/libtsgemm.so.0", d + "lib/libtsgemm.so",
        d + "bin/tsgemm-run", d + "bin/tsgemm-bench", d + "lib/pkgconfig/tsgemm.pc",
        d + "lib/tsgemm/include/tsgemm.h", d + "lib/tsgemm/include/tsgemm_tuning.h",
        d + "lib/tsgemm/include/tsgemm_version.h",
        d + "lib/tsgemm/cmake/tsgemmConfig.cmake"]
bad = [f"missing {n}" for n in want if n not in names]
bad += [f"not executable: {n}" for n in (d + "bin/tsgemm-run", d + "bin/tsgemm-bench")
        if n in names and not (names[n].external_attr >> 16) & 0o111]
bad += [f"bundles {n}" for n in names if any(x in n for x in ("cudart", "libcuda", "cublas", "nvrtc"))]
bad += [f"a second copy of the library: {n}" for n in names if "libtsgemm.so.0." in n]
if names.get(d + "lib/libtsgemm.so") and names[d + "lib/libtsgemm.so"].file_size > 100:
    bad.append("lib/libtsgemm.so is not the one-line linker script")
print("wheel contents:", "; ".join(bad) if bad else f"ok ({len(names)} files)")
sys.exit(1 if bad else 0)
PYEOF

# 3. a fresh venv
V=$T/venv
"$PY" -m venv --system-site-packages "$V" || fail "$PY -m venv"
"$V/bin/python" -m pip --version >/dev/null || fail "pip in the venv"
(cd "$V" && find . | LC_ALL=C sort) >"$T/files.before"
"$V/bin/python" -m pip install --disable-pip-version-check --no-index --no-deps -q "$W" ||
    fail "pip install $W"
PATH=$V/bin:$PATH
export PATH
cd "$T" || exit 1 # not the source tree: `import tsgemm` must find the installed package
[ "$(command -v tsgemm-run)" = "$V/bin/tsgemm-run" ] || fail "tsgemm-run is not on PATH from the venv"
[ "$(command -v tsgemm-bench)" = "$V/bin/tsgemm-bench" ] || fail "tsgemm-bench is not on PATH from the venv"
LIB=$V/lib/libtsgemm.so.0
tsgemm-run --version | grep -qxF "tsgemm-run (tsgemm $VERSION): preloads $LIB" ||
    fail "tsgemm-run --version: $(tsgemm-run --version)"
[ "$(python -m tsgemm path)" = "$LIB" ] || fail "python -m tsgemm path: $(python -m tsgemm path)"
CHECK=$here/tsgemm_py_check.py
python "$CHECK" --expect none --installed "$VERSION" || fail "not preloaded"
for how in "tsgemm-run --log 2" "python -m tsgemm run --log 2"; do
    # shellcheck disable=SC2086
    $how python "$CHECK" --expect preloaded --numpy 2>"$T/err" || {
        cat "$T/err"; fail "$how python ... (numpy product)"; }
    grep -Eq '^tsgemm: summary: [1-9][0-9]* calls: .* 0 illegal, 0 refused$' "$T/err" || {
        cat "$T/err"; fail "$how: no TSGEMM_LOG=2 exit summary with calls"; }
    echo "$how: $(grep '^tsgemm: summary' "$T/err")"
done
tsgemm-bench --help >/dev/null 2>&1 || fail "tsgemm-bench --help (the installed bench does not start)"
PKG_CONFIG_PATH=$V/lib/pkgconfig
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
cc -o "$T/pkg_client" "$here/pkg_client.c" $(pkg-config --cflags --libs tsgemm) ||
    fail "cc with the venv's tsgemm.pc ($(pkg-config --cflags --libs tsgemm))"
LD_LIBRARY_PATH=$V/lib "$T/pkg_client" "$VERSION" || fail "pkg_client against the venv's library"

# 4. uninstall
cd / || exit 1
"$V/bin/python" -m pip uninstall --disable-pip-version-check -y -q tsgemm || fail "pip uninstall"
(cd "$V" && find . | LC_ALL=C sort) >"$T/files.after"
diff "$T/files.before" "$T/files.after" || fail "pip uninstall left the venv changed (diff above: < before, > after)"
echo "wheel_check: passed"
