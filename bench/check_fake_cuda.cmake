# check_fake_cuda.cmake — ctest bench_fake_cuda: tsgemm-bench against host-memory stand-ins for
# cudart, cuBLAS and NVBLAS (fake_cuda.c). Arguments: -DBENCH=<tsgemm-bench> -DFAKE_DIR=<folder
# of the stand-ins> -DWORKDIR=<scratch directory>.
#   run 1: right results -> cublas+copies, cublas-kernel, nvblas, nvblas-tuned ok with times for
#          every shape (all transposes, both layouts, beta != 0); tsgemm's GPU columns n/a.
#          CUDA's runtime is loaded only after every shape's host columns.
#   run 2: FAKE_CUBLAS_PERTURB=1 -> those four columns WRONG, with an error and no time.
cmake_minimum_required(VERSION 3.24) # policies: keep empty list elements (empty CSV fields)
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
set(shapes "64 100,60,30:T,N:row 50,70,90:N,T:row 33,44,55:T,T 40,30,20:T,T:row 31,17,9:N,T")
set(fake_cols cublas+copies cublas-kernel nvblas nvblas-tuned)

function(run_bench csv expect extra_env)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${FAKE_DIR} CUDA_VISIBLE_DEVICES=-1 ${extra_env}
            "${BENCH}" --shapes "${shapes}" --beta 0.5 --reps 2 --kernel-reps 2
            --nvblas-lib "${FAKE_DIR}/libnvblas.so.13" --csv ${csv}
    WORKING_DIRECTORY "${WORKDIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(WRITE "${WORKDIR}/${csv}.stdout.txt" "${out}")
  file(WRITE "${WORKDIR}/${csv}.stderr.txt" "${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tsgemm-bench exited with ${rc}\n${out}\n${err}")
  endif()
  if(NOT out MATCHES "Fake GPU")
    message(FATAL_ERROR "the stand-in cudart was not used\n${out}")
  endif()
  # the host columns of every shape (the first pass's last progress line) before CUDA's runtime
  # is loaded: until then tsgemm sees a program that does not use CUDA (shim/tsg_residency.h)
  string(REPLACE " " ";" shape_list "${shapes}")
  list(LENGTH shape_list nshapes)
  set(pad "")
  if(nshapes LESS 10)
    set(pad " ") # the progress line's "[%2d/%d]"
  endif()
  string(FIND "${err}" "[${pad}${nshapes}/${nshapes}]" host_done)
  string(FIND "${err}" "fake cudart: loaded" rt_loaded)
  if(host_done LESS 0 OR NOT rt_loaded GREATER host_done)
    message(FATAL_ERROR "the stand-in cudart was loaded before the host columns ran\n${err}")
  endif()
  file(READ "${WORKDIR}/${csv}" text)
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REGEX REPLACE "\n$" "" text "${text}")
  string(REPLACE "\n" ";" rows "${text}")
  list(REMOVE_AT rows 0)
  set(seen 0)
  foreach(row IN LISTS rows)
    string(FIND "${row}" "\"" q)
    string(SUBSTRING "${row}" 0 ${q} fields)
    string(SUBSTRING "${row}" ${q} -1 reason)
    string(REPLACE "," ";" f "${fields}")
    list(GET f 8 impl)
    list(GET f 10 median)
    list(GET f 14 err)
    list(GET f 15 status)
    set(what "${row}")
    if(impl IN_LIST fake_cols)
      math(EXPR seen "${seen} + 1")
      if(expect STREQUAL "ok" AND NOT (status STREQUAL "ok" AND median GREATER 0))
        message(FATAL_ERROR "expected ok with a time: ${what}\n${out}")
      elseif(expect STREQUAL "WRONG" AND NOT (status STREQUAL "WRONG" AND median STREQUAL "" AND err GREATER 0))
        message(FATAL_ERROR "expected WRONG with an error and no time: ${what}\n${out}")
      endif()
    elseif(impl STREQUAL "tsgemm-gpu" OR impl STREQUAL "tsgemm-kernel")
      if(NOT status STREQUAL "n/a" OR reason STREQUAL "\"\"")
        message(FATAL_ERROR "tsgemm's GPU columns must be n/a with a reason here: ${what}")
      endif()
    elseif(NOT status STREQUAL "ok")
      message(FATAL_ERROR "CPU column not ok: ${what}\n${out}")
    endif()
  endforeach()
  if(NOT seen EQUAL 24)  # 6 shapes x 4 columns
    message(FATAL_ERROR "expected 24 rows of the stand-in columns, got ${seen}")
  endif()
endfunction()

run_bench(right.csv ok "")
run_bench(wrong.csv WRONG FAKE_CUBLAS_PERTURB=1)
message(STATUS "bench_fake_cuda: stand-in CUDA columns ok, and WRONG when perturbed")
