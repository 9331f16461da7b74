/* Compressed instructions, each followed by the 32-bit instruction it
 * expands to, as the assembler encodes both: core_isa_test.cpp checks
 * expand_compressed() against these pairs. Data only; never executed. */
	.section .rodata
	.globl rvc_pairs
	.globl rvc_pairs_end
rvc_pairs:
	.option rvc
	c.addi4spn a0, sp, 1020
	.option norvc
	addi a0, sp, 1020
	.option rvc
	c.addi4spn s1, sp, 4
	.option norvc
	addi s1, sp, 4
	.option rvc
	c.fld fa0, 248(a1)
	.option norvc
	fld fa0, 248(a1)
	.option rvc
	c.lw a2, 124(a3)
	.option norvc
	lw a2, 124(a3)
	.option rvc
	c.lw s0, 0(a5)
	.option norvc
	lw s0, 0(a5)
	.option rvc
	c.ld a4, 248(a5)
	.option norvc
	ld a4, 248(a5)
	.option rvc
	c.fsd fs0, 8(s1)
	.option norvc
	fsd fs0, 8(s1)
	.option rvc
	c.sw s0, 4(a0)
	.option norvc
	sw s0, 4(a0)
	.option rvc
	c.sw a5, 124(a5)
	.option norvc
	sw a5, 124(a5)
	.option rvc
	c.sd s1, 240(a1)
	.option norvc
	sd s1, 240(a1)
	.option rvc
	c.nop
	.option norvc
	addi zero, zero, 0
	.option rvc
	c.addi a0, -32
	.option norvc
	addi a0, a0, -32
	.option rvc
	c.addi t6, 31
	.option norvc
	addi t6, t6, 31
	.option rvc
	c.addiw a1, 31
	.option norvc
	addiw a1, a1, 31
	.option rvc
	c.addiw s2, -1
	.option norvc
	addiw s2, s2, -1
	.option rvc
	c.li t0, -1
	.option norvc
	addi t0, zero, -1
	.option rvc
	c.li a5, 17
	.option norvc
	addi a5, zero, 17
	.option rvc
	c.addi16sp sp, -512
	.option norvc
	addi sp, sp, -512
	.option rvc
	c.addi16sp sp, 496
	.option norvc
	addi sp, sp, 496
	.option rvc
	c.addi16sp sp, 16
	.option norvc
	addi sp, sp, 16
	.option rvc
	c.lui a3, 0xfffe0
	.option norvc
	lui a3, 0xfffe0
	.option rvc
	c.lui t1, 1
	.option norvc
	lui t1, 1
	.option rvc
	c.lui s11, 31
	.option norvc
	lui s11, 31
	.option rvc
	c.srli a0, 63
	.option norvc
	srli a0, a0, 63
	.option rvc
	c.srli s1, 1
	.option norvc
	srli s1, s1, 1
	.option rvc
	c.srai a1, 1
	.option norvc
	srai a1, a1, 1
	.option rvc
	c.srai a5, 32
	.option norvc
	srai a5, a5, 32
	.option rvc
	c.andi a2, -32
	.option norvc
	andi a2, a2, -32
	.option rvc
	c.andi s0, 15
	.option norvc
	andi s0, s0, 15
	.option rvc
	c.sub s0, s1
	.option norvc
	sub s0, s0, s1
	.option rvc
	c.xor a0, a1
	.option norvc
	xor a0, a0, a1
	.option rvc
	c.or a2, a3
	.option norvc
	or a2, a2, a3
	.option rvc
	c.and a4, a5
	.option norvc
	and a4, a4, a5
	.option rvc
	c.subw s0, a0
	.option norvc
	subw s0, s0, a0
	.option rvc
	c.addw s1, a1
	.option norvc
	addw s1, s1, a1
	.option rvc
	c.j -2048
	.option norvc
	jal zero, -2048
	.option rvc
	c.j 2046
	.option norvc
	jal zero, 2046
	.option rvc
	c.j 6
	.option norvc
	jal zero, 6
	.option rvc
	c.beqz a0, -256
	.option norvc
	beq a0, zero, -256
	.option rvc
	c.bnez a5, 254
	.option norvc
	bne a5, zero, 254
	.option rvc
	c.bnez s1, 10
	.option norvc
	bne s1, zero, 10
	.option rvc
	c.slli t2, 63
	.option norvc
	slli t2, t2, 63
	.option rvc
	c.slli a0, 1
	.option norvc
	slli a0, a0, 1
	.option rvc
	c.fldsp ft0, 504(sp)
	.option norvc
	fld ft0, 504(sp)
	.option rvc
	c.fldsp fs1, 8(sp)
	.option norvc
	fld fs1, 8(sp)
	.option rvc
	c.lwsp ra, 252(sp)
	.option norvc
	lw ra, 252(sp)
	.option rvc
	c.lwsp a0, 4(sp)
	.option norvc
	lw a0, 4(sp)
	.option rvc
	c.ldsp s2, 504(sp)
	.option norvc
	ld s2, 504(sp)
	.option rvc
	c.ldsp t1, 8(sp)
	.option norvc
	ld t1, 8(sp)
	.option rvc
	c.jr ra
	.option norvc
	jalr zero, 0(ra)
	.option rvc
	c.mv a0, t6
	.option norvc
	add a0, zero, t6
	.option rvc
	c.ebreak
	.option norvc
	ebreak
	.option rvc
	c.jalr a5
	.option norvc
	jalr ra, 0(a5)
	.option rvc
	c.add a0, s11
	.option norvc
	add a0, a0, s11
	.option rvc
	c.fsdsp ft11, 504(sp)
	.option norvc
	fsd ft11, 504(sp)
	.option rvc
	c.fsdsp fa0, 8(sp)
	.option norvc
	fsd fa0, 8(sp)
	.option rvc
	c.swsp t0, 252(sp)
	.option norvc
	sw t0, 252(sp)
	.option rvc
	c.swsp a1, 4(sp)
	.option norvc
	sw a1, 4(sp)
	.option rvc
	c.sdsp t6, 504(sp)
	.option norvc
	sd t6, 504(sp)
	.option rvc
	c.sdsp s0, 8(sp)
	.option norvc
	sd s0, 8(sp)
rvc_pairs_end:

	.text
	.globl _start
_start:
	ebreak
