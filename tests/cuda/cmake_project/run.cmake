# SPDX-License-Identifier: MIT
# cmake -DSIMTCC=... -DRUNTIME_DIR=... -DSOURCE=... -DBINARY=... -DGENERATOR=...
#       -P run.cmake:
# configures the project in SOURCE with CMake's CUDA language and
# CMAKE_CUDA_COMPILER=simtcc, builds it and runs its programs, each of
# which checks itself against the CPU and prints "NAME: PASS". affine_map
# has a C++ source, so CMake links it with the C++ compiler, which gives it
# no rpath to libsimtcudart: CMAKE_BUILD_RPATH does (docs/simtcc.md, "CMake").
file(REMOVE_RECURSE ${BINARY})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} -G ${GENERATOR}
                        -DCMAKE_CUDA_COMPILER=${SIMTCC} -DCMAKE_BUILD_TYPE=Release
                        -DCMAKE_BUILD_RPATH=${RUNTIME_DIR}
                RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "configuring with CMAKE_CUDA_COMPILER=${SIMTCC} failed (${status})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY} RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "building the project failed (${status})")
endif()
foreach(program saxpy affine_map)
  execute_process(COMMAND ${BINARY}/${program} RESULT_VARIABLE status OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  message("${output}")
  if(status OR NOT output MATCHES "(^|\n)${program}: PASS")
    message(FATAL_ERROR "${program} failed (${status})")
  endif()
endforeach()
message("cmake_project: PASS")
