# `cpack -G DEB` (or plain `cpack`) in a build folder: one Debian package "tsgemm" with what
# `cmake --install` puts into a prefix — libtsgemm.so.N (+ soname links), include/tsgemm.h,
# tsgemm_version.h and tsgemm_tuning.h, tsgemm.pc, the CMake package, tsgemm-run, tsgemm-bench,
# tsgemm-tinybench and the libblas.so.3 filter under <libdir>/tsgemm — rooted at /usr. Included
# by the top-level CMakeLists.txt.
#
# Dependencies are declared by hand, not by dpkg-shlibdeps: the library's own needs (glibc, the
# C++ runtime of the static CUDA runtime) plus OpenBLAS, which it dlopens by soname
# (libopenblas.so.0, shim/tsg_cpublas.c) and which the filter needs outright (DT_NEEDED). The
# CUDA runtime is linked statically; from the system the GPU path needs the NVIDIA driver's
# libcuda.so.1 only (Suggests). Debian ships libopenblas.so.0 from one of three builds, behind
# the metapackage libopenblas0.
set(CPACK_PACKAGE_NAME tsgemm)
set(CPACK_PACKAGE_VENDOR tsgemm)
set(CPACK_PACKAGE_CONTACT "tsgemm maintainers <tsgemm@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "drop-in GPU SGEMM for cblas_sgemm / sgemm_ callers, OpenBLAS for the rest")
# CPack writes the summary as the synopsis line and this text, indented, below it
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "libtsgemm runs large single-precision GEMM calls (cblas_sgemm, sgemm_, the ILP64 and
scipy_ names of numpy and scipy wheels) on its own CUDA kernel and everything else on
OpenBLAS. Preload it into unmodified programs with tsgemm-run, or link it (pkg-config
tsgemm, find_package(tsgemm)). Without a GPU it is OpenBLAS behind tsgemm's checks.")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6 (>= 2.34), libgcc-s1, libstdc++6, libopenblas0 | libopenblas0-pthread | libopenblas0-openmp | libopenblas0-serial, util-linux")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libcuda1 | nvidia-driver")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

# Maintainer scripts: the ldconfig trigger, and the libblas.so.3 filter registered as an
# alternative at a priority below OpenBLAS's and netlib's (so automatic mode never picks it;
# `update-alternatives --config` does), removed again on removal. Only with a multiarch
# triplet and a relative libdir (a Debian build): otherwise there is nothing to register.
set(_deb ${CMAKE_CURRENT_BINARY_DIR}/deb)
set(TSGEMM_DEB_ALT_PRIORITY 5 CACHE STRING "update-alternatives priority of the libblas.so.3 filter in the .deb (OpenBLAS: 100, netlib: 10)")
set(TSGEMM_DEB_BLAS_LINK "")
if(CMAKE_LIBRARY_ARCHITECTURE AND NOT IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(TSGEMM_DEB_BLAS_LINK /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/libblas.so.3)
  set(TSGEMM_DEB_BLAS_GROUP libblas.so.3-${CMAKE_LIBRARY_ARCHITECTURE})
  set(TSGEMM_DEB_FILTER ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/tsgemm/libblas.so.3)
endif()
foreach(_s postinst prerm)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/${_s}.in ${_deb}/${_s} @ONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/triggers ${_deb}/triggers COPYONLY)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${_deb}/postinst ${_deb}/prerm ${_deb}/triggers)
include(CPack)
