# tsgemm_no_fast_math.cmake — no fast-math in any compile or link flag, C or CUDA.
#
# Fast-math (-ffast-math, -Ofast, -funsafe-math-optimizations, -ffinite-math-only; nvcc
# --use_fast_math, -ftz=true, -prec-div=false, -prec-sqrt=false) lets the compiler assume there
# are no NaN/Inf and flush denormals: alpha = 0 / beta = 0 / NaN propagation rules and denormal
# scalars, which the tests and the fuzzer check, would then hold by luck or not at all.
#
# Two uses:
#   include() + tsg_forbid_fast_math()   configure time, from the top-level CMakeLists.txt: the
#       flag variables of every language and configuration, directory and target options
#   cmake -DDB=compile_commands.json -P tsgemm_no_fast_math.cmake    test time (unit.no_fast_math):
#       every command the build really runs (environment CFLAGS, toolchain files, per-source
#       flags included), after a self-test that the pattern catches each spelling
# Owns the pattern; must not change any flag itself.

set(TSG_FAST_MATH_REGEX
    "(-ffast-math|-Ofast|-funsafe-math-optimizations|-ffinite-math-only|-use_fast_math|-ftz[= ]*true|-prec-div[= ]*false|-prec-sqrt[= ]*false)")

# Appends "where: flag" to the list named by out_var when text holds a fast-math flag.
function(tsg_fast_math_scan where text out_var)
  if(text MATCHES "${TSG_FAST_MATH_REGEX}")
    set(_l ${${out_var}})
    list(APPEND _l "${where}: ${CMAKE_MATCH_1}")
    set(${out_var} ${_l} PARENT_SCOPE)
  endif()
endfunction()

# The folders below dir (dir included) and the targets they define, recursively.
function(_tsg_walk dir dirs_var targets_var)
  set(_d ${dir})
  get_property(_t DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(_subs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(_s IN LISTS _subs)
    _tsg_walk(${_s} _more_d _more_t)
    list(APPEND _d ${_more_d})
    list(APPEND _t ${_more_t})
  endforeach()
  set(${dirs_var} ${_d} PARENT_SCOPE)
  set(${targets_var} ${_t} PARENT_SCOPE)
endfunction()

# Configure time: FATAL_ERROR naming every place a fast-math flag was found.
function(tsg_forbid_fast_math)
  set(_found "")
  set(_configs DEBUG RELEASE RELWITHDEBINFO MINSIZEREL)
  if(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" _bt)
    list(APPEND _configs ${_bt})
    list(REMOVE_DUPLICATES _configs)
  endif()
  foreach(_v C_FLAGS CUDA_FLAGS CXX_FLAGS EXE_LINKER_FLAGS SHARED_LINKER_FLAGS MODULE_LINKER_FLAGS)
    tsg_fast_math_scan("CMAKE_${_v}" "${CMAKE_${_v}}" _found)
    foreach(_c IN LISTS _configs)
      tsg_fast_math_scan("CMAKE_${_v}_${_c}" "${CMAKE_${_v}_${_c}}" _found)
    endforeach()
  endforeach()
  _tsg_walk(${PROJECT_SOURCE_DIR} _dirs _targets)
  foreach(_d IN LISTS _dirs)
    foreach(_p COMPILE_OPTIONS LINK_OPTIONS)
      get_property(_val DIRECTORY ${_d} PROPERTY ${_p})
      tsg_fast_math_scan("directory ${_d} ${_p}" "${_val}" _found)
    endforeach()
  endforeach()
  foreach(_t IN LISTS _targets)
    foreach(_p COMPILE_OPTIONS INTERFACE_COMPILE_OPTIONS LINK_OPTIONS INTERFACE_LINK_OPTIONS
               COMPILE_FLAGS LINK_FLAGS STATIC_LIBRARY_OPTIONS)
      get_target_property(_val ${_t} ${_p})
      if(_val)
        tsg_fast_math_scan("target ${_t} ${_p}" "${_val}" _found)
      endif()
    endforeach()
  endforeach()
  if(_found)
    list(JOIN _found "\n  " _msg)
    message(FATAL_ERROR "fast-math flags are not allowed in tsgemm (NaN/Inf/denormal semantics are "
                        "part of the BLAS contract):\n  ${_msg}")
  endif()
endfunction()

# ---- script mode: cmake -DDB=<compile_commands.json> [-DREQUIRE=a.c,b.cu] -P this file -------
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  # the self-test: a check that cannot fail proves nothing
  set(_caught "")
  foreach(_cmd "cc -O2 -ffast-math -c x.c" "cc -Ofast -c x.c" "nvcc --use_fast_math -c x.cu"
               "nvcc -use_fast_math x.cu" "nvcc -ftz=true x.cu" "nvcc --ftz true x.cu"
               "nvcc -Xcompiler=-ffast-math x.cu" "cc -funsafe-math-optimizations x.c"
               "cc -ffinite-math-only x.c" "nvcc --prec-div=false x.cu")
    set(_one "")
    tsg_fast_math_scan("selftest" "${_cmd}" _one)
    if(NOT _one)
      message(FATAL_ERROR "self-test: the pattern misses '${_cmd}'")
    endif()
  endforeach()
  set(_one "")
  tsg_fast_math_scan("selftest" "nvcc -O3 -ftz=false --prec-div=true -lineinfo -ffp-contract=fast x.cu" _one)
  if(_one)
    message(FATAL_ERROR "self-test: the pattern flags a clean command: ${_one}")
  endif()

  if(NOT DB OR NOT EXISTS "${DB}")
    message(FATAL_ERROR "no compile database '${DB}' (CMAKE_EXPORT_COMPILE_COMMANDS)")
  endif()
  file(READ "${DB}" _json)
  string(JSON _n LENGTH "${_json}")
  if(_n EQUAL 0)
    message(FATAL_ERROR "${DB} lists no commands")
  endif()
  set(_found "")
  set(_files "")
  math(EXPR _last "${_n} - 1")
  foreach(_i RANGE ${_last})
    string(JSON _file GET "${_json}" ${_i} file)
    string(JSON _cmd ERROR_VARIABLE _err GET "${_json}" ${_i} command)
    if(_err)
      string(JSON _cmd GET "${_json}" ${_i} arguments) # the other form of an entry
    endif()
    list(APPEND _files "${_file}")
    tsg_fast_math_scan("${_file}" "${_cmd}" _found)
  endforeach()
  string(REPLACE "," ";" _required "${REQUIRE}")
  foreach(_r IN LISTS _required) # files whose commands must be there (the CUDA one when built)
    set(_hit ${_files})
    list(FILTER _hit INCLUDE REGEX "${_r}$")
    if(NOT _hit)
      message(FATAL_ERROR "${DB} has no command for ${_r}")
    endif()
  endforeach()
  if(_found)
    list(JOIN _found "\n  " _msg)
    message(FATAL_ERROR "fast-math flags in compile commands:\n  ${_msg}")
  endif()
  message(STATUS "no fast-math flag in ${_n} compile commands (self-test passed)")
endif()
