/* SPDX-License-Identifier: MIT */
/* The uAPI test's device image (built from device_kernels.c), embedded. */
	.section .rodata
	.balign 16
	.globl uapi_device_elf
uapi_device_elf:
	.incbin UAPI_DEVICE_ELF
	.globl uapi_device_elf_end
uapi_device_elf_end:
	.section .note.GNU-stack,"",@progbits
