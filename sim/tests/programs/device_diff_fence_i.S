/* riscv-tests' rv64ui fence_i as a bare program (sim/tests/device_simt_run_test.cpp
 * runs it on simt-run and on qemu-riscv64): stores a new instruction over code
 * that is then executed after fence.i, once on an instruction never executed
 * before and once on one already decoded; then, without fence.i, into the second
 * half of a decoded instruction that straddles two pages. Exit 0 passes;
 * 2 * test + 1 fails. The
 * patched code lives in a writable and executable section, as riscv-tests' .data
 * does when the test is linked with a writable text segment. */
	.text
	.globl _start
_start:
	li a3, 111
	lh a0, insn
	lh a1, insn+2

	/* test I$ hit */
	.align 6
	sh a0, 2f, t0
	sh a1, 2f+2, t0
	fence.i

	la a5, 2f
	jalr t1, a5, 0
	li gp, 2
	li t2, 444
	bne a3, t2, fail

	/* test prefetcher hit */
	li a4, 100
1:	addi a4, a4, -1
	bnez a4, 1b

	sh a0, 3f, t0
	sh a1, 3f+2, t0
	fence.i

	.align 6
	la a5, 3f
	jalr t1, a5, 0
	li gp, 3
	li t2, 777
	bne a3, t2, fail

	/* code decoded once, patched, run again: the stale copy must go */
	la a5, 4f
	li a3, 0
	jalr t1, a5, 0
	lh a0, insn4
	lh a1, insn4+2
	sh a0, 4f, t0
	sh a1, 4f+2, t0
	fence.i
	la a5, 4f
	jalr t1, a5, 0
	li gp, 4
	li t2, 1007
	bne a3, t2, fail

	/* a store, without fence.i, into the second page of an instruction that
	 * straddles two pages and has been decoded: this simulator (and qemu)
	 * run the new instruction, although Zifencei would allow the old one */
	la a5, 5f
	li a3, 0
	jalr t1, a5, 0
	lh a1, insn5+2
	sh a1, 5f+2, t0
	la a5, 5f
	jalr t1, a5, 0
	li gp, 5
	li t2, 2001
	bne a3, t2, fail

	li a0, 0
	li a7, 93
	ecall
fail:
	slli a0, gp, 1
	ori a0, a0, 1
	li a7, 93
	ecall

	.section .data.code, "awx", @progbits
	.option norvc /* every patched instruction is 4 bytes */
insn:
	addi a3, a3, 333
insn4:
	addi a3, a3, 1000
2:	addi a3, a3, 222
	jalr a5, t1, 0
3:	addi a3, a3, 555
	jalr a5, t1, 0
4:	addi a3, a3, 7
	jalr a5, t1, 0
insn5:
	addi a3, a3, 2000
	.balign 4096
	.skip 4094
5:	addi a3, a3, 1
	jalr a5, t1, 0
