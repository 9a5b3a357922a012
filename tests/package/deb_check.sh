#!/bin/sh
# deb_check.sh CPACK BUILD_DIR VERSION WORK CMAKE — the .deb of `cpack -G DEB` (package tier),
# checked without installing it (the machine's own packages and alternatives are never touched):
#   1. cpack -G DEB on BUILD_DIR's CPackConfig.cmake makes tsgemm_VERSION_<arch>.deb in WORK;
#   2. dpkg-deb -c lists the library with its soname links, the header, tsgemm.pc, the CMake
#      package, tsgemm-run, tsgemm-bench and the libblas.so.3 filter; Depends names OpenBLAS
#      (libopenblas0 | its three builds), nothing CUDA; no CUDA runtime is shipped;
#   3. the maintainer scripts, run with a PATH that holds only a stand-in update-alternatives,
#      register the filter at configure and withdraw it at remove (not at upgrade);
#   4. dpkg -x into WORK/root: a C client built with that root's pkg-config file
#      (PKG_CONFIG_PATH, and again with --define-prefix) and one built with find_package(tsgemm)
#      (CMAKE_PREFIX_PATH) run correctly against the extracted library; the extracted tsgemm-run
#      preloads the extracted library.
# Exit status: 0 passed, 1 failed, 77 skipped (a prerequisite missing: the line says which).
set -u
[ $# -eq 5 ] || { echo "usage: $0 CPACK BUILD_DIR VERSION WORK CMAKE" >&2; exit 2; }
CPACK=$1 B=$2 VERSION=$3 T=$4 CMAKE=$5
here=$(cd -- "$(dirname -- "$0")" && pwd -P)
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
for t in dpkg-deb dpkg pkg-config cc; do
    command -v "$t" >/dev/null || skip "no $t (Debian: apt-get install dpkg pkg-config build-essential)"
done
[ -f "$B/CPackConfig.cmake" ] || fail "no $B/CPackConfig.cmake"
rm -rf "$T" && mkdir -p "$T" || exit 1

# 1. the package
"$CPACK" -G DEB -B "$T/out" --config "$B/CPackConfig.cmake" >"$T/cpack.log" 2>&1 ||
    { tail -30 "$T/cpack.log"; fail "cpack -G DEB"; }
DEB=$(ls "$T"/out/tsgemm_"$VERSION"_*.deb 2>/dev/null | head -1)
[ -n "$DEB" ] || { ls -l "$T/out"; fail "no tsgemm_${VERSION}_<arch>.deb"; }
echo "deb: $DEB ($(wc -c <"$DEB") bytes)"

# 2. contents and control fields
dpkg-deb -c "$DEB" >"$T/contents" || fail "dpkg-deb -c"
L=$(sed -n 's|.* \./usr/\(.*\)/libtsgemm\.so\.0 -> .*|\1|p' "$T/contents")
[ -n "$L" ] || { cat "$T/contents"; fail "no ./usr/<libdir>/libtsgemm.so.0 soname link"; }
for re in "./usr/$L/libtsgemm\.so\.$VERSION\$" "./usr/$L/libtsgemm\.so\.0 -> libtsgemm\.so\.$VERSION\$" \
    "./usr/$L/libtsgemm\.so -> libtsgemm\.so\.0\$" "./usr/include/tsgemm\.h\$" \
    "./usr/include/tsgemm_tuning\.h\$" "./usr/include/tsgemm_version\.h\$" \
    "./usr/$L/pkgconfig/tsgemm\.pc\$" "./usr/$L/cmake/tsgemm/tsgemmConfig\.cmake\$" \
    "./usr/$L/cmake/tsgemm/tsgemmConfigVersion\.cmake\$" "./usr/$L/cmake/tsgemm/tsgemmTargets\.cmake\$" \
    "./usr/bin/tsgemm-run\$" "./usr/bin/tsgemm-bench\$" "./usr/$L/tsgemm/libblas\.so\.3\$"; do
    grep -Eq " $re" "$T/contents" || { cat "$T/contents"; fail "dpkg-deb -c: nothing matches '$re'"; }
done
grep -Eq 'cudart|libcuda|cublas' "$T/contents" && fail "the package ships a CUDA library"
grep -E '^-rwx.* \./usr/bin/tsgemm-(run|bench)$' "$T/contents" | wc -l | grep -qx 2 ||
    fail "tsgemm-run / tsgemm-bench not executable"
DEP=$(dpkg-deb -f "$DEB" Depends)
echo "Depends: $DEP"
case $DEP in
*"libopenblas0 | libopenblas0-pthread | libopenblas0-openmp | libopenblas0-serial"*) ;;
*) fail "Depends does not name OpenBLAS: $DEP" ;;
esac
case $DEP in *cuda* | *nvidia*) fail "Depends names CUDA: $DEP" ;; esac
[ "$(dpkg-deb -f "$DEB" Version)" = "$VERSION" ] || fail "Version $(dpkg-deb -f "$DEB" Version)"

# 3. maintainer scripts against a stand-in update-alternatives (PATH holds nothing else)
dpkg-deb -e "$DEB" "$T/control" || fail "dpkg-deb -e"
grep -qx 'activate-noawait ldconfig' "$T/control/triggers" || fail "no ldconfig trigger"
mkdir -p "$T/stub" || exit 1
printf '#!/bin/sh\necho "$*" >>"%s"\n' "$T/ua.log" >"$T/stub/update-alternatives"
chmod +x "$T/stub/update-alternatives"
ua() { : >"$T/ua.log"; env -i PATH="$T/stub" /bin/sh "$T/control/$1" "$2" || fail "$1 $2: status $?"; cat "$T/ua.log"; }
got=$(ua postinst configure)
echo "postinst configure -> update-alternatives $got"
case $got in
"--install /usr/lib/"*"/libblas.so.3 libblas.so.3-"*" /usr/$L/tsgemm/libblas.so.3 5") ;;
*) fail "postinst configure ran: update-alternatives $got" ;;
esac
got=$(ua prerm remove)
case $got in
"--remove libblas.so.3-"*" /usr/$L/tsgemm/libblas.so.3") ;;
*) fail "prerm remove ran: update-alternatives $got" ;;
esac
[ -z "$(ua prerm upgrade)" ] || fail "prerm upgrade touched the alternatives"
[ -z "$(ua postinst abort-upgrade)" ] || fail "postinst abort-upgrade touched the alternatives"

# 4. extracted, built against, run
R=$T/root
dpkg -x "$DEB" "$R" || fail "dpkg -x"
LIBDIR=$R/usr/$L
for how in plain define-prefix; do
    if [ $how = plain ]; then
        flags=$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --cflags --libs tsgemm)
    else
        flags=$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --define-prefix --cflags --libs tsgemm)
    fi || fail "pkg-config ($how)"
    case $flags in *"$R"/usr/*) ;; *) fail "pkg-config ($how) does not point into $R: $flags" ;; esac
    # shellcheck disable=SC2086
    cc -o "$T/client-$how" "$here/pkg_client.c" $flags || fail "cc $flags"
    LD_LIBRARY_PATH=$LIBDIR "$T/client-$how" "$VERSION" || fail "client built with pkg-config ($how)"
done
mkdir -p "$T/cmk" || exit 1
cat >"$T/cmk/CMakeLists.txt" <<CMEOF
cmake_minimum_required(VERSION 3.16)
project(pkg_client C)
find_package(tsgemm $VERSION EXACT REQUIRED)
add_executable(pkg_client "$here/pkg_client.c")
target_link_libraries(pkg_client PRIVATE tsgemm::tsgemm)
CMEOF
"$CMAKE" -S "$T/cmk" -B "$T/cmk/b" -DCMAKE_PREFIX_PATH="$R/usr" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF >"$T/cmk.log" 2>&1 &&
    "$CMAKE" --build "$T/cmk/b" >>"$T/cmk.log" 2>&1 || { tail -20 "$T/cmk.log"; fail "find_package(tsgemm) client"; }
grep -q "$R/usr" "$T/cmk/b/CMakeCache.txt" || fail "find_package(tsgemm) did not find the extracted package"
"$T/cmk/b/pkg_client" "$VERSION" || fail "client built with find_package(tsgemm)" # its RUNPATH: the extracted lib
"$R/usr/bin/tsgemm-run" --version | grep -qxF "tsgemm-run (tsgemm $VERSION): preloads $LIBDIR/libtsgemm.so.0" ||
    fail "extracted tsgemm-run: $("$R/usr/bin/tsgemm-run" --version)"
"$R/usr/bin/tsgemm-run" sh -c 'case ":$LD_PRELOAD:" in *":$1:"*) exit 0;; esac; exit 1' sh "$LIBDIR/libtsgemm.so.0" ||
    fail "extracted tsgemm-run does not preload $LIBDIR/libtsgemm.so.0"
echo "deb_check: passed"
