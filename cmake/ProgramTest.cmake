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
