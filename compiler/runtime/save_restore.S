// SPDX-License-Identifier: MIT
// The RISC-V save/restore millicode (libgcc's __riscv_save_N and
// __riscv_restore_N) that picolibc's libm, built with -msave-restore, calls
// in prologues and epilogues; the device has no libgcc, so simtcc's runtime
// provides it. Contract (GCC's riscv backend): `call t0, __riscv_save_N`
// pushes ra and s0..s(N-1) in a 16-byte aligned area of (N+1)*8 bytes
// rounded up, ra highest; `tail __riscv_restore_N` pops them and returns.
// N = 0 saves ra and s0, as libgcc does.
	.text
	.globl __riscv_save_0
	.type __riscv_save_0, @function
	.p2align 1
__riscv_save_0:
	addi sp, sp, -16
	sd ra, 8(sp)
	sd s0, 0(sp)
	jr t0
	.size __riscv_save_0, .-__riscv_save_0

	.globl __riscv_restore_0
	.type __riscv_restore_0, @function
	.p2align 1
__riscv_restore_0:
	ld ra, 8(sp)
	ld s0, 0(sp)
	addi sp, sp, 16
	ret
	.size __riscv_restore_0, .-__riscv_restore_0

	.globl __riscv_save_1
	.type __riscv_save_1, @function
	.p2align 1
__riscv_save_1:
	addi sp, sp, -16
	sd ra, 8(sp)
	sd s0, 0(sp)
	jr t0
	.size __riscv_save_1, .-__riscv_save_1

	.globl __riscv_restore_1
	.type __riscv_restore_1, @function
	.p2align 1
__riscv_restore_1:
	ld ra, 8(sp)
	ld s0, 0(sp)
	addi sp, sp, 16
	ret
	.size __riscv_restore_1, .-__riscv_restore_1

	.globl __riscv_save_2
	.type __riscv_save_2, @function
	.p2align 1
__riscv_save_2:
	addi sp, sp, -32
	sd ra, 24(sp)
	sd s0, 16(sp)
	sd s1, 8(sp)
	jr t0
	.size __riscv_save_2, .-__riscv_save_2

	.globl __riscv_restore_2
	.type __riscv_restore_2, @function
	.p2align 1
__riscv_restore_2:
	ld ra, 24(sp)
	ld s0, 16(sp)
	ld s1, 8(sp)
	addi sp, sp, 32
	ret
	.size __riscv_restore_2, .-__riscv_restore_2

	.globl __riscv_save_3
	.type __riscv_save_3, @function
	.p2align 1
__riscv_save_3:
	addi sp, sp, -32
	sd ra, 24(sp)
	sd s0, 16(sp)
	sd s1, 8(sp)
	sd s2, 0(sp)
	jr t0
	.size __riscv_save_3, .-__riscv_save_3

	.globl __riscv_restore_3
	.type __riscv_restore_3, @function
	.p2align 1
__riscv_restore_3:
	ld ra, 24(sp)
	ld s0, 16(sp)
	ld s1, 8(sp)
	ld s2, 0(sp)
	addi sp, sp, 32
	ret
	.size __riscv_restore_3, .-__riscv_restore_3

	.globl __riscv_save_4
	.type __riscv_save_4, @function
	.p2align 1
__riscv_save_4:
	addi sp, sp, -48
	sd ra, 40(sp)
	sd s0, 32(sp)
	sd s1, 24(sp)
	sd s2, 16(sp)
	sd s3, 8(sp)
	jr t0
	.size __riscv_save_4, .-__riscv_save_4

	.globl __riscv_restore_4
	.type __riscv_restore_4, @function
	.p2align 1
__riscv_restore_4:
	ld ra, 40(sp)
	ld s0, 32(sp)
	ld s1, 24(sp)
	ld s2, 16(sp)
	ld s3, 8(sp)
	addi sp, sp, 48
	ret
	.size __riscv_restore_4, .-__riscv_restore_4

	.globl __riscv_save_5
	.type __riscv_save_5, @function
	.p2align 1
__riscv_save_5:
	addi sp, sp, -48
	sd ra, 40(sp)
	sd s0, 32(sp)
	sd s1, 24(sp)
	sd s2, 16(sp)
	sd s3, 8(sp)
	sd s4, 0(sp)
	jr t0
	.size __riscv_save_5, .-__riscv_save_5

	.globl __riscv_restore_5
	.type __riscv_restore_5, @function
	.p2align 1
__riscv_restore_5:
	ld ra, 40(sp)
	ld s0, 32(sp)
	ld s1, 24(sp)
	ld s2, 16(sp)
	ld s3, 8(sp)
	ld s4, 0(sp)
	addi sp, sp, 48
	ret
	.size __riscv_restore_5, .-__riscv_restore_5

	.globl __riscv_save_6
	.type __riscv_save_6, @function
	.p2align 1
__riscv_save_6:
	addi sp, sp, -64
	sd ra, 56(sp)
	sd s0, 48(sp)
	sd s1, 40(sp)
	sd s2, 32(sp)
	sd s3, 24(sp)
	sd s4, 16(sp)
	sd s5, 8(sp)
	jr t0
	.size __riscv_save_6, .-__riscv_save_6

	.globl __riscv_restore_6
	.type __riscv_restore_6, @function
	.p2align 1
__riscv_restore_6:
	ld ra, 56(sp)
	ld s0, 48(sp)
	ld s1, 40(sp)
	ld s2, 32(sp)
	ld s3, 24(sp)
	ld s4, 16(sp)
	ld s5, 8(sp)
	addi sp, sp, 64
	ret
	.size __riscv_restore_6, .-__riscv_restore_6

	.globl __riscv_save_7
	.type __riscv_save_7, @function
	.p2align 1
__riscv_save_7:
	addi sp, sp, -64
	sd ra, 56(sp)
	sd s0, 48(sp)
	sd s1, 40(sp)
	sd s2, 32(sp)
	sd s3, 24(sp)
	sd s4, 16(sp)
	sd s5, 8(sp)
	sd s6, 0(sp)
	jr t0
	.size __riscv_save_7, .-__riscv_save_7

	.globl __riscv_restore_7
	.type __riscv_restore_7, @function
	.p2align 1
__riscv_restore_7:
	ld ra, 56(sp)
	ld s0, 48(sp)
	ld s1, 40(sp)
	ld s2, 32(sp)
	ld s3, 24(sp)
	ld s4, 16(sp)
	ld s5, 8(sp)
	ld s6, 0(sp)
	addi sp, sp, 64
	ret
	.size __riscv_restore_7, .-__riscv_restore_7

	.globl __riscv_save_8
	.type __riscv_save_8, @function
	.p2align 1
__riscv_save_8:
	addi sp, sp, -80
	sd ra, 72(sp)
	sd s0, 64(sp)
	sd s1, 56(sp)
	sd s2, 48(sp)
	sd s3, 40(sp)
	sd s4, 32(sp)
	sd s5, 24(sp)
	sd s6, 16(sp)
	sd s7, 8(sp)
	jr t0
	.size __riscv_save_8, .-__riscv_save_8

	.globl __riscv_restore_8
	.type __riscv_restore_8, @function
	.p2align 1
__riscv_restore_8:
	ld ra, 72(sp)
	ld s0, 64(sp)
	ld s1, 56(sp)
	ld s2, 48(sp)
	ld s3, 40(sp)
	ld s4, 32(sp)
	ld s5, 24(sp)
	ld s6, 16(sp)
	ld s7, 8(sp)
	addi sp, sp, 80
	ret
	.size __riscv_restore_8, .-__riscv_restore_8

	.globl __riscv_save_9
	.type __riscv_save_9, @function
	.p2align 1
__riscv_save_9:
	addi sp, sp, -80
	sd ra, 72(sp)
	sd s0, 64(sp)
	sd s1, 56(sp)
	sd s2, 48(sp)
	sd s3, 40(sp)
	sd s4, 32(sp)
	sd s5, 24(sp)
	sd s6, 16(sp)
	sd s7, 8(sp)
	sd s8, 0(sp)
	jr t0
	.size __riscv_save_9, .-__riscv_save_9

	.globl __riscv_restore_9
	.type __riscv_restore_9, @function
	.p2align 1
__riscv_restore_9:
	ld ra, 72(sp)
	ld s0, 64(sp)
	ld s1, 56(sp)
	ld s2, 48(sp)
	ld s3, 40(sp)
	ld s4, 32(sp)
	ld s5, 24(sp)
	ld s6, 16(sp)
	ld s7, 8(sp)
	ld s8, 0(sp)
	addi sp, sp, 80
	ret
	.size __riscv_restore_9, .-__riscv_restore_9

	.globl __riscv_save_10
	.type __riscv_save_10, @function
	.p2align 1
__riscv_save_10:
	addi sp, sp, -96
	sd ra, 88(sp)
	sd s0, 80(sp)
	sd s1, 72(sp)
	sd s2, 64(sp)
	sd s3, 56(sp)
	sd s4, 48(sp)
	sd s5, 40(sp)
	sd s6, 32(sp)
	sd s7, 24(sp)
	sd s8, 16(sp)
	sd s9, 8(sp)
	jr t0
	.size __riscv_save_10, .-__riscv_save_10

	.globl __riscv_restore_10
	.type __riscv_restore_10, @function
	.p2align 1
__riscv_restore_10:
	ld ra, 88(sp)
	ld s0, 80(sp)
	ld s1, 72(sp)
	ld s2, 64(sp)
	ld s3, 56(sp)
	ld s4, 48(sp)
	ld s5, 40(sp)
	ld s6, 32(sp)
	ld s7, 24(sp)
	ld s8, 16(sp)
	ld s9, 8(sp)
	addi sp, sp, 96
	ret
	.size __riscv_restore_10, .-__riscv_restore_10

	.globl __riscv_save_11
	.type __riscv_save_11, @function
	.p2align 1
__riscv_save_11:
	addi sp, sp, -96
	sd ra, 88(sp)
	sd s0, 80(sp)
	sd s1, 72(sp)
	sd s2, 64(sp)
	sd s3, 56(sp)
	sd s4, 48(sp)
	sd s5, 40(sp)
	sd s6, 32(sp)
	sd s7, 24(sp)
	sd s8, 16(sp)
	sd s9, 8(sp)
	sd s10, 0(sp)
	jr t0
	.size __riscv_save_11, .-__riscv_save_11

	.globl __riscv_restore_11
	.type __riscv_restore_11, @function
	.p2align 1
__riscv_restore_11:
	ld ra, 88(sp)
	ld s0, 80(sp)
	ld s1, 72(sp)
	ld s2, 64(sp)
	ld s3, 56(sp)
	ld s4, 48(sp)
	ld s5, 40(sp)
	ld s6, 32(sp)
	ld s7, 24(sp)
	ld s8, 16(sp)
	ld s9, 8(sp)
	ld s10, 0(sp)
	addi sp, sp, 96
	ret
	.size __riscv_restore_11, .-__riscv_restore_11

	.globl __riscv_save_12
	.type __riscv_save_12, @function
	.p2align 1
__riscv_save_12:
	addi sp, sp, -112
	sd ra, 104(sp)
	sd s0, 96(sp)
	sd s1, 88(sp)
	sd s2, 80(sp)
	sd s3, 72(sp)
	sd s4, 64(sp)
	sd s5, 56(sp)
	sd s6, 48(sp)
	sd s7, 40(sp)
	sd s8, 32(sp)
	sd s9, 24(sp)
	sd s10, 16(sp)
	sd s11, 8(sp)
	jr t0
	.size __riscv_save_12, .-__riscv_save_12

	.globl __riscv_restore_12
	.type __riscv_restore_12, @function
	.p2align 1
__riscv_restore_12:
	ld ra, 104(sp)
	ld s0, 96(sp)
	ld s1, 88(sp)
	ld s2, 80(sp)
	ld s3, 72(sp)
	ld s4, 64(sp)
	ld s5, 56(sp)
	ld s6, 48(sp)
	ld s7, 40(sp)
	ld s8, 32(sp)
	ld s9, 24(sp)
	ld s10, 16(sp)
	ld s11, 8(sp)
	addi sp, sp, 112
	ret
	.size __riscv_restore_12, .-__riscv_restore_12

