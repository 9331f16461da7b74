# simtgpu_add_program_test(NAME name COMMAND program args...
#                          [EXPECT regex...] [REJECT regex...] [EXIT_STATUS n]
#                          [ENVIRONMENT var=value...] [TIMEOUT seconds])
# A test of a whole program: it passes only when the program exits with
# EXIT_STATUS (default 0) and its output matches every EXPECT regex (POSIX
# extended) and no REJECT regex. A crash or an unexpected exit status fails
# it whatever the output says (cmake/check-program.sh).
set(SIMTGPU_CHECK_PROGRAM ${CMAKE_CURRENT_LIST_DIR}/check-program.sh)

function(simtgpu_add_program_test)
  cmake_parse_arguments(ARG "" "NAME;EXIT_STATUS;TIMEOUT" "COMMAND;EXPECT;REJECT;ENVIRONMENT" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_COMMAND)
    message(FATAL_ERROR "simtgpu_add_program_test needs NAME and COMMAND")
  endif()
  if(NOT DEFINED ARG_EXIT_STATUS)
    set(ARG_EXIT_STATUS 0)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  set(checks --status ${ARG_EXIT_STATUS})
  foreach(re ${ARG_EXPECT})
    list(APPEND checks --expect ${re})
  endforeach()
  foreach(re ${ARG_REJECT})
    list(APPEND checks --reject ${re})
  endforeach()
  add_test(NAME ${ARG_NAME} COMMAND ${SIMTGPU_CHECK_PROGRAM} ${checks} -- ${ARG_COMMAND})
  set_tests_properties(${ARG_NAME} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  if(ARG_ENVIRONMENT)
    set_tests_properties(${ARG_NAME} PROPERTIES ENVIRONMENT "${ARG_ENVIRONMENT}")
  endif()
endfunction()

# simtgpu_cuda_test_expectations(SOURCE NAME STATUS_VAR EXPECT_VAR)
# What a tests/cuda program must do, as its source says in
# "// expect-exit-status: N" and "// expect-output: REGEX" lines (which
# tests/guest/suites/40-cuda.sh reads too); by default exit 0 and print
# "NAME: PASS".
function(simtgpu_cuda_test_expectations src name status_var expect_var)
  file(STRINGS ${src} exit_status REGEX "^// expect-exit-status: [0-9]+$")
  list(TRANSFORM exit_status REPLACE "^// expect-exit-status: " "")
  file(STRINGS ${src} expected_output REGEX "^// expect-output: ")
  list(TRANSFORM expected_output REPLACE "^// expect-output: " "")
  if(NOT exit_status)
    set(exit_status 0)
  endif()
  if(NOT expected_output)
    set(expected_output "^${name}: PASS")
  endif()
  set(${status_var} ${exit_status} PARENT_SCOPE)
  set(${expect_var} "${expected_output}" PARENT_SCOPE)
endfunction()
