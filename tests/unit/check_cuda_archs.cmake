# check_cuda_archs.cmake — the default CUDA architectures (top-level CMakeLists.txt: sm_90 SASS and
# compute_80 PTX; docs/DESIGN.md: "build for the H200 natively") must survive a second configure of the
# same build folder, which scripts/test.sh and scripts/demo.sh do on every run.
#   cmake -DSRC=<source> -DWORK=<scratch folder> -DNVCC=<nvcc> -P check_cuda_archs.cmake
# Configures SRC twice in WORK (no tests, no build) and requires sm_90 code and compute_80 PTX in
# the nvcc command for kernels/tsg_kernel.cu both times. Owns nothing else.
file(REMOVE_RECURSE "${WORK}")
foreach(pass first second)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${WORK} -DTSGEMM_TESTS=OFF -DTSGEMM_CUDA=ON
                          -DCMAKE_CUDA_COMPILER=${NVCC}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${pass} configure failed:\n${out}")
  endif()
  file(READ "${WORK}/compile_commands.json" db)
  string(REGEX MATCH "\"command\": \"[^\"]*kernels/tsg_kernel\\.cu[^\"]*\"" cmd "${db}")
  string(REGEX MATCHALL "generate-code=[^ ]+" archs "${cmd}")
  message(STATUS "${pass} configure: ${archs}")
  if(NOT cmd)
    message(STATUS "SKIP: no compile command for kernels/tsg_kernel.cu in ${WORK}/compile_commands.json")
    return()
  endif()
  if(NOT cmd MATCHES "sm_90")
    message(FATAL_ERROR "after the ${pass} configure kernels/tsg_kernel.cu is built without sm_90 "
                        "code (${archs}); the default architecture list was lost")
  endif()
  # PTX for every other GPU, or they would have no GPU path at all (the driver JIT-compiles it)
  if(NOT cmd MATCHES "code=\\[compute_80\\]")
    message(FATAL_ERROR "after the ${pass} configure kernels/tsg_kernel.cu is built without "
                        "compute_80 PTX (${archs}): a GPU without SASS of its own would get no GPU path")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
