; simt-native-atomics: atomics RISC-V's A extension would expand into LR/SC
; retry loops become one instruction each (docs/isa.md): Zacas amocas.w
; (major opcode 0x2f, funct3 2, funct5 5 with aq and rl: funct7 0x17), and
; simtgpu's custom-0 atomics (funct3 6): amo.fadd.s (funct7 0), amo.fadd.d
; (1), amo.inc.w (2).
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-native-atomics -S %s | FileCheck %s
; simt_1 has none of these instructions: the atomics stay for the back end.
; RUN: opt -load-pass-plugin=%simt_passes -passes='simt-native-atomics<simt_1>' -S %s | FileCheck %s --check-prefix=SIMT1

target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n32:64-S128"
target triple = "riscv64-unknown-elf"

; CHECK-LABEL: define i1 @compare_and_swap(
; CHECK-NOT: cmpxchg
; CHECK: [[NEW:%.*]] = sext i32 %new to i64
; CHECK: [[EXPECTED:%.*]] = sext i32 %expected to i64
; CHECK: [[OLD:%.*]] = call i64 asm sideeffect ".insn r 0x2f, 2, 0x17, $0, $1, $2", "=r,r,r,0,~{memory}"(ptr %p, i64 [[NEW]], i64 [[EXPECTED]])
; CHECK: [[OLD32:%.*]] = trunc i64 [[OLD]] to i32
; CHECK: icmp eq i32 [[OLD32]], %expected
; SIMT1-LABEL: define i1 @compare_and_swap(
; SIMT1: cmpxchg ptr %p, i32 %expected, i32 %new seq_cst seq_cst
define i1 @compare_and_swap(ptr %p, i32 %expected, i32 %new) {
  %pair = cmpxchg ptr %p, i32 %expected, i32 %new seq_cst seq_cst
  %swapped = extractvalue { i32, i1 } %pair, 1
  ret i1 %swapped
}

; CHECK-LABEL: define float @float_add(
; CHECK-NOT: atomicrmw
; CHECK: [[BITS:%.*]] = bitcast float %v to i32
; CHECK: [[V:%.*]] = sext i32 [[BITS]] to i64
; CHECK: call i64 asm sideeffect ".insn r 0x0b, 6, 0, $0, $1, $2", "=r,r,r,~{memory}"(ptr %p, i64 [[V]])
; SIMT1-LABEL: define float @float_add(
; SIMT1: atomicrmw fadd ptr %p, float %v monotonic
define float @float_add(ptr %p, float %v) {
  %old = atomicrmw fadd ptr %p, float %v monotonic
  ret float %old
}

; a - b is a + (-b): fsub is amo.fadd.d of the negated operand.
; CHECK-LABEL: define double @double_sub(
; CHECK-NOT: atomicrmw
; CHECK: [[NEG:%.*]] = fneg double %v
; CHECK: [[BITS:%.*]] = bitcast double [[NEG]] to i64
; CHECK: call i64 asm sideeffect ".insn r 0x0b, 6, 1, $0, $1, $2", "=r,r,r,~{memory}"(ptr %p, i64 [[BITS]])
define double @double_sub(ptr %p, double %v) {
  %old = atomicrmw fsub ptr %p, double %v monotonic
  ret double %old
}

; CHECK-LABEL: define i32 @wrapping_increment(
; CHECK-NOT: atomicrmw
; CHECK: call i64 asm sideeffect ".insn r 0x0b, 6, 2, $0, $1, $2", "=r,r,r,~{memory}"(ptr %p, i64 %{{.*}})
define i32 @wrapping_increment(ptr %p, i32 %limit) {
  %old = atomicrmw uinc_wrap ptr %p, i32 %limit monotonic
  ret i32 %old
}

; The A extension has amoadd.w: left to the back end.
; CHECK-LABEL: define i32 @integer_add(
; CHECK-NOT: asm
; CHECK: atomicrmw add ptr %p, i32 %v monotonic
define i32 @integer_add(ptr %p, i32 %v) {
  %old = atomicrmw add ptr %p, i32 %v monotonic
  ret i32 %old
}
