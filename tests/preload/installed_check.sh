#!/bin/sh
# installed_check.sh CMAKE BUILD_DIR DEST CLIENT FILTER_CLIENT — what `cmake --install` puts into a
# fresh prefix, after the whole prefix is moved elsewhere (preload tier):
#   - bin/tsgemm-run finds the installed library relative to itself (<prefix>/bin ->
#     <prefix>/<libdir>), passes tsgemm_run_check.sh, and interposes on CLIENT (sgemm_client
#     built against OpenBLAS, --expect interposed) when reached through a symlink on PATH;
#   - <libdir>/tsgemm/libblas.so.3, the system-BLAS filter, finds <libdir>/libtsgemm.so.N through
#     its $ORIGIN/.. runpath: FILTER_CLIENT (blas_filter_check) --expect filter.
# DEST is emptied first. Exit status: 0 passed, 1 failed, 2 usage.
set -u
[ $# -eq 5 ] || { echo "usage: $0 CMAKE BUILD_DIR DEST CLIENT FILTER_CLIENT" >&2; exit 2; }
CMAKE=$1 BUILD=$2 DEST=$3 CLIENT=$4 FILTER_CLIENT=$5
here=$(dirname -- "$0")
rm -rf "$DEST" && mkdir -p "$DEST" || exit 1
"$CMAKE" --install "$BUILD" --prefix "$DEST/prefix" >"$DEST/install.log" 2>&1 || {
    cat "$DEST/install.log"; echo "FAIL: cmake --install"; exit 1; }
mv "$DEST/prefix" "$DEST/moved" || exit 1 # relocatable: nothing may point into the old prefix
W=$DEST/moved/bin/tsgemm-run
LIB=$(find "$DEST/moved" -name 'libtsgemm.so.[0-9]' | head -1)
[ -x "$W" ] && [ -n "$LIB" ] || { echo "FAIL: no bin/tsgemm-run or libtsgemm.so.N installed"; exit 1; }
echo "installed: $W, $LIB"
sh "$here/tsgemm_run_check.sh" "$W" "$LIB" || exit 1
# through a symlink on PATH, as a packaged command would be reached
mkdir -p "$DEST/path" && ln -sf "$W" "$DEST/path/tsgemm-run" || exit 1
PATH=$DEST/path:$PATH tsgemm-run -- "$CLIENT" --expect interposed --provider "$DEST/moved/" || {
    echo "FAIL: the client through the installed tsgemm-run was not interposed by $LIB"; exit 1; }
FILTER=$(find "$DEST/moved" -path '*/tsgemm/libblas.so.3' | head -1)
[ -n "$FILTER" ] || { echo "FAIL: no <libdir>/tsgemm/libblas.so.3 installed"; exit 1; }
LD_LIBRARY_PATH=$(dirname "$FILTER")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    "$FILTER_CLIENT" --expect filter --filter "$FILTER" || {
    echo "FAIL: the installed filter $FILTER did not route SGEMM to tsgemm"; exit 1; }
echo "installed_check: passed"
