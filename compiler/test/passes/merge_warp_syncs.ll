; simt-merge-warp-syncs: a warp.sync (custom-0 funct3 3, funct7 1) that
; follows another of the same member mask in the same block, with only
; shuffles (R4 form) between them, is dropped: the lanes the first one
; released still run as one group. Any other call or collective between
; them, another mask, or another block keeps it.
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-merge-warp-syncs -S %s | FileCheck %s

target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n32:64-S128"
target triple = "riscv64-unknown-elf"

; A 64-bit shuffle: two halves, each after warp.sync of the same mask.
; CHECK-LABEL: define i64 @shuffle_halves(
; CHECK: call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
; CHECK-NEXT: %lo = call i64 asm sideeffect ".insn r4 0x0b, 2, 0, $0, $1, $2, $3"
; CHECK-NEXT: %hi = call i64 asm sideeffect ".insn r4 0x0b, 2, 0, $0, $1, $2, $3"
define i64 @shuffle_halves(i64 %mask, i64 %a, i64 %b, i64 %lane) {
  call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
  %lo = call i64 asm sideeffect ".insn r4 0x0b, 2, 0, $0, $1, $2, $3", "=r,r,r,r,~{memory}"(i64 %a, i64 %lane, i64 31)
  call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
  %hi = call i64 asm sideeffect ".insn r4 0x0b, 2, 0, $0, $1, $2, $3", "=r,r,r,r,~{memory}"(i64 %b, i64 %lane, i64 31)
  %r = add i64 %lo, %hi
  ret i64 %r
}

; CHECK-LABEL: define void @other_mask(
; CHECK: ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %first)
; CHECK: ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %second)
define void @other_mask(i64 %first, i64 %second) {
  call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %first)
  call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %second)
  ret void
}

; A barrier (bar.sync: funct3 0) between them: the second waits again.
; CHECK-LABEL: define void @barrier_between(
; CHECK: ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
; CHECK-NEXT: ".insn r 0x0b, 0, 0, x0, x0, x0"
; CHECK-NEXT: ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
define void @barrier_between(i64 %mask) {
  call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
  call void asm sideeffect ".insn r 0x0b, 0, 0, x0, x0, x0", "~{memory}"()
  call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
  ret void
}

; CHECK-LABEL: define void @other_block(
; CHECK: ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
; CHECK: next:
; CHECK-NEXT: ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
define void @other_block(i64 %mask) {
  call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
  br label %next
next:
  call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %mask)
  ret void
}
