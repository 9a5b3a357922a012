#!/bin/sh
# tsgemm_run_installed.sh CMAKE BUILD_DIR DEST CLIENT — tsgemm-run after `cmake --install` into a
# fresh prefix (preload tier): the installed wrapper must find the installed library relative to
# itself (<prefix>/bin -> <prefix>/<libdir>), keep working after the whole prefix is moved, and
# interpose on CLIENT (sgemm_client built against OpenBLAS, run with --expect interposed).
# DEST is emptied first; the command line of the wrapper is checked by tsgemm_run_check.sh.
# Exit status: 0 passed, 1 failed, 2 usage.
set -u
[ $# -eq 4 ] || { echo "usage: $0 CMAKE BUILD_DIR DEST CLIENT" >&2; exit 2; }
CMAKE=$1 BUILD=$2 DEST=$3 CLIENT=$4
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
echo "tsgemm_run_installed: passed"
