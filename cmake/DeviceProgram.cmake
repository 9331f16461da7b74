# simtgpu_add_device_program(NAME SOURCES... [CFLAGS flags...] [LDFLAGS flags...])
# Builds a bare-metal RV64GC ELF (C or assembly) with Debian's clang-16 and
# ld.lld-16, linked at 0x10000 like the standard RISC-V toolchains. The image
# lands in ${CMAKE_BINARY_DIR}/device/NAME.elf; the target is NAME.
find_program(SIMTGPU_DEVICE_CC clang-16 REQUIRED)
find_program(SIMTGPU_DEVICE_LD ld.lld-16 REQUIRED)

function(simtgpu_add_device_program name)
  cmake_parse_arguments(ARG "" "" "SOURCES;CFLAGS;LDFLAGS" ${ARGN})
  set(out ${CMAKE_BINARY_DIR}/device/${name}.elf)
  set(objects)
  foreach(src ${ARG_SOURCES})
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(base ${src} NAME)
    set(obj ${CMAKE_BINARY_DIR}/device/${name}.d/${base}.o)
    add_custom_command(
      OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/device/${name}.d
      COMMAND ${SIMTGPU_DEVICE_CC} --target=riscv64-unknown-elf -march=rv64gc -mabi=lp64d
              -mcmodel=medany -ffreestanding -fno-builtin -nostdlib -O2 -Wall -Wextra
              -I${CMAKE_SOURCE_DIR}/include ${ARG_CFLAGS} -MD -MF ${obj}.d -c ${abs} -o ${obj}
      DEPENDS ${abs}
      # the headers it includes (simtgpu/hw.h's windows among them), as clang lists them
      DEPFILE ${obj}.d
      COMMENT "Device: ${base}"
      VERBATIM)
    list(APPEND objects ${obj})
  endforeach()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${SIMTGPU_DEVICE_LD} -static -nostdlib ${ARG_LDFLAGS} ${objects} -o ${out}
    DEPENDS ${objects}
    COMMENT "Device link: ${name}.elf"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${out})
endfunction()
