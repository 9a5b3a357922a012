# check_tinybench.cmake — ctest unit.tinybench: a short `tsgemm-tinybench --check` run with
# libtsgemm next to OpenBLAS. It must exit 0 (every result exact, the library's counters saw the
# calls), and its CSV must hold one row per name x size x library with positive, finite times.
# Speed is not asserted. Arguments: -DBENCH=<tsgemm-tinybench> -DLIB=<libtsgemm.so>
# -DWORKDIR=<scratch directory>; -DGLOBAL=ON: the library is preloaded instead (LD_PRELOAD, the
# bench's --global), as in a program linked to OpenBLAS.
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
if(GLOBAL)
  set(ENV{LD_PRELOAD} "${LIB}")
  set(which --global tsgemm)
else()
  set(which --lib "${LIB}" --label tsgemm)
endif()
execute_process(
  COMMAND "${BENCH}" --check --f77 --rounds 3 --sizes 2,3,8 --target-us 200 ${which}
          --csv out.csv
  WORKING_DIRECTORY "${WORKDIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(WRITE "${WORKDIR}/stdout.txt" "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tsgemm-tinybench exited with ${rc}\n${out}\n${err}")
endif()
if(NOT out MATCHES "2 libraries, results exact \\(12 checks\\)")
  message(FATAL_ERROR "no 'results exact' line\n${out}\n${err}")
endif()
if(NOT out MATCHES "tsgemm: counters confirm the calls")
  message(FATAL_ERROR "the library's counters were not read\n${out}")
endif()
file(STRINGS "${WORKDIR}/out.csv" rows)
list(GET rows 0 head)
if(NOT head STREQUAL "api,n,lib,rounds,calls,median_ns,q1_ns,q3_ns,over_ns,over_q1_ns,over_q3_ns,ratio")
  message(FATAL_ERROR "unexpected CSV header: ${head}")
endif()
list(REMOVE_AT rows 0)
list(LENGTH rows nrows)
if(NOT nrows EQUAL 12) # 2 names x 3 sizes x 2 libraries
  message(FATAL_ERROR "expected 12 CSV rows, got ${nrows}")
endif()
foreach(row ${rows})
  string(REPLACE "," ";" f "${row}")
  list(GET f 0 api)
  list(GET f 2 lib)
  list(GET f 5 median)
  list(GET f 11 ratio)
  if(NOT api MATCHES "^(cblas_sgemm|sgemm_)$" OR NOT lib MATCHES "^(openblas|tsgemm)$")
    message(FATAL_ERROR "bad row: ${row}")
  endif()
  if(NOT median MATCHES "^[0-9]+\\.[0-9]+$" OR median LESS_EQUAL 0)
    message(FATAL_ERROR "no positive time in: ${row}")
  endif()
  if(NOT ratio MATCHES "^[0-9]+\\.[0-9]+$" OR ratio LESS_EQUAL 0)
    message(FATAL_ERROR "no positive ratio in: ${row}")
  endif()
endforeach()
message(STATUS "tinybench: ${nrows} rows, results exact")
