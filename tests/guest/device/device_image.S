/* SPDX-License-Identifier: MIT */
/* The device test's kernel image (built from device_kernel.c), embedded. */
	.section .rodata
	.balign 16
	.globl device_test_elf
device_test_elf:
	.incbin DEVICE_TEST_ELF
	.globl device_test_elf_end
device_test_elf_end:
	.section .note.GNU-stack,"",@progbits
