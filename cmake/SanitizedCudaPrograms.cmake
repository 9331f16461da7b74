# CUDA programs with an instrumented host side, for the sanitizer build
# (SIMTGPU_SANITIZE with SIMTGPU_SIM_ONLY and SIMTGPU_UMD_LIBS). The release
# build's simtcc (SIMTGPU_RELEASE_BUILD_DIR) builds them, so that LLVM is not
# built a second time under ASan; -Xcompiler gives their host code
# -fsanitize=address,undefined, and they run on this build's sanitized
# libsimtcudart, libsimtgpu and simulator (tests/scripts/run_sanitized.sh).
# docs/testing.md says which programs and why.
set(SANITIZED_SIMTCC ${SIMTGPU_RELEASE_BUILD_DIR}/bin/simtcc)
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(STATUS "sanitizers: CUDA programs need a GCC sanitizer build, not built")
  return()
endif()
# One sanitizer runtime per process: GCC's, which this build's libraries
# need. Clang 16's instrumentation calls the same runtime interface, so
# clang's own runtime stays out of the link and GCC's comes first in it.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                OUTPUT_VARIABLE SANITIZED_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libubsan.so
                OUTPUT_VARIABLE SANITIZED_LIBUBSAN OUTPUT_STRIP_TRAILING_WHITESPACE)
set(SANITIZED_FLAGS -O2 -g -Xcompiler=-fsanitize=address -Xcompiler=-fsanitize=undefined
    -Xcompiler=-fno-sanitize-recover=undefined -Xcompiler=-fno-omit-frame-pointer
    -Xcompiler=-fno-sanitize-link-runtime ${SANITIZED_LIBASAN} ${SANITIZED_LIBUBSAN})
set(SANITIZED_DIR ${CMAKE_BINARY_DIR}/sanitized-cuda)
set(sanitized_outputs)

# sanitized_cuda_program(NAME SOURCE EXIT_STATUS EXPECT... [ENVIRONMENT ...])
function(sanitized_cuda_program name src status)
  cmake_parse_arguments(ARG "" "" "EXPECT;ENVIRONMENT" ${ARGN})
  get_filename_component(src_dir ${src} DIRECTORY)
  set(out ${SANITIZED_DIR}/${name})
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SANITIZED_DIR}
    COMMAND ${SANITIZED_SIMTCC} ${SANITIZED_FLAGS} -I${src_dir} ${src} -o ${out}
    DEPENDS ${SANITIZED_SIMTCC} ${src}
    COMMENT "simtcc (host side under ASan/UBSan) ${name}"
    VERBATIM)
  set(sanitized_outputs ${sanitized_outputs} ${out} PARENT_SCOPE)
  # A sanitizer's report exits 86, never a status a program may expect.
  simtgpu_add_program_test(NAME sanitizers.${name}
    COMMAND ${CMAKE_SOURCE_DIR}/tests/scripts/run_sanitized.sh ${CMAKE_BINARY_DIR}/lib ${out}
    EXIT_STATUS ${status} EXPECT ${ARG_EXPECT}
    REJECT "AddressSanitizer" "LeakSanitizer" "runtime error:"
    ENVIRONMENT SIMTGPU_TRANSPORT=sim ASAN_OPTIONS=exitcode=86
                UBSAN_OPTIONS=exitcode=86:print_stacktrace=1 ${ARG_ENVIRONMENT}
    TIMEOUT 300)
endfunction()

# The failures of issue 20: a kernel that faults and an allocation that
# fails, each run to its exit (the exit-time shutdown once wrote
# libsimtgpu's thread-local error string after it was freed).
set(failures ${CMAKE_SOURCE_DIR}/examples/failures)
sanitized_cuda_program(failures.illegal_address ${failures}/illegal_address.cu 1
  EXPECT "^cudaDeviceSynchronize: cudaErrorIllegalAddress" ENVIRONMENT SIMTGPU_JOB_TIMEOUT_MS=1000)
sanitized_cuda_program(failures.out_of_vram ${failures}/out_of_vram.cu 1
  EXPECT "^cudaMalloc\\(1 MiB\\) afterwards: cudaSuccess$")
# tests/cuda programs of the runtime's error, exit and registration paths, and
# of its host-function thread (stream_callbacks).
foreach(name exit_live_work exit_failed_check exit_static_cleanup exit_static_launch assert printf
        constant_memory stream_callbacks)
  set(src ${CMAKE_SOURCE_DIR}/tests/cuda/${name}.cu)
  simtgpu_cuda_test_expectations(${src} ${name} status expected)
  sanitized_cuda_program(cuda.${name} ${src} ${status} EXPECT ${expected})
endforeach()
add_custom_target(sanitized_cuda_programs ALL DEPENDS ${sanitized_outputs})
