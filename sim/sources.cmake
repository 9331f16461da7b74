# The simulator's source files, one list for sim/CMakeLists.txt and for the
# fuzzers' clang build (tests/fuzz), which compile the same code.
set(SIM_SOURCE_FOLDERS . command_processor dispatch sm isa device mem timing trace support)
set(sim_source_globs)
foreach(folder ${SIM_SOURCE_FOLDERS})
  list(APPEND sim_source_globs ${CMAKE_CURRENT_LIST_DIR}/src/${folder}/*.cpp)
endforeach()
file(GLOB SIM_SOURCES CONFIGURE_DEPENDS ${sim_source_globs})
