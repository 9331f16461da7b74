// The test kernels' device ELF, embedded in the test binaries so that they
// run anywhere (the guest has no build tree).
#include <cstdint>

asm(".section .rodata\n"
    ".balign 16\n"
    ".global umd_test_kernels_begin\n"
    "umd_test_kernels_begin:\n"
    ".incbin \"" UMD_TEST_KERNELS "\"\n"
    ".global umd_test_kernels_end\n"
    "umd_test_kernels_end:\n"
    ".previous\n");
