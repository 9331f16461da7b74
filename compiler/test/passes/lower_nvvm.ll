; simt-lower-nvvm: each llvm.nvvm.* call becomes what simtgpu does for it.
; The CSR numbers and custom-0 encodings are those of include/simtgpu/hw.h
; and docs/isa.md (custom-0 is major opcode 0x0b; funct3 picks the group).
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-lower-nvvm -S %s | FileCheck %s
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-lower-nvvm -S %s | FileCheck %s --check-prefix=GONE

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Not one nvvm intrinsic is left, called or declared.
; GONE-NOT: llvm.nvvm

; A special register is a CSR read: tid.x is CSR 0xcc0 (3264), pure, so
; the optimiser may merge two reads; the clock (0xcd1 = 3281) is volatile.
; CHECK-LABEL: define void @special_registers(
; CHECK: [[TID:%.*]] = call i64 asm "csrr $0, 3264", "=r"() #[[PURE:[0-9]+]]
; CHECK-NEXT: trunc i64 [[TID]] to i32
; CHECK: call i64 asm sideeffect "csrr $0, 3281", "=r"()
define void @special_registers(ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %tid, ptr %out
  %clock = call i64 @llvm.nvvm.read.ptx.sreg.clock64()
  store i64 %clock, ptr %out
  ret void
}

; lanemask.eq is 1 << laneid (CSR 0xccc = 3276).
; CHECK-LABEL: define void @lanemask_eq(
; CHECK: [[LANE:%.*]] = call i64 asm "csrr $0, 3276", "=r"()
; CHECK-NEXT: shl i64 1, [[LANE]]
define void @lanemask_eq(ptr %out) {
  %eq = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.eq()
  store i32 %eq, ptr %out
  ret void
}

; __syncthreads is bar.sync (funct3 0, funct7 0), convergent like the
; intrinsic it replaces.
; CHECK-LABEL: define void @barrier(
; CHECK: call void asm sideeffect ".insn r 0x0b, 0, 0, x0, x0, x0", "~{memory}"() #[[CONVERGENT:[0-9]+]]
define void @barrier() {
  call void @llvm.nvvm.barrier0()
  ret void
}

; __ballot_sync(mask, p) is vote.ballot (funct3 1, funct7 0) of the
; zero-extended predicate and the member mask.
; CHECK-LABEL: define void @ballot(
; CHECK: [[P:%.*]] = zext i1 %p to i64
; CHECK: call i64 asm sideeffect ".insn r 0x0b, 1, 0, $0, $1, $2", "=r,r,r,~{memory}"(i64 [[P]], i64 %{{.*}}) #[[CONVERGENT]]
define void @ballot(ptr %out, i32 %mask, i1 %p) {
  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 %mask, i1 %p)
  store i32 %b, ptr %out
  ret void
}

; __shfl_down_sync waits for its member mask (warp.sync: funct3 3,
; funct7 1), then shuffles (R4 form, funct2 2 = down).
; CHECK-LABEL: define void @shuffle_down(
; CHECK: call void asm sideeffect ".insn r 0x0b, 3, 1, x0, $0, x0", "r,~{memory}"(i64 %{{.*}})
; CHECK-NEXT: zext i32 %v to i64
; CHECK: call i64 asm sideeffect ".insn r4 0x0b, 2, 2, $0, $1, $2, $3", "=r,r,r,r,~{memory}"
define void @shuffle_down(ptr %out, i32 %mask, i32 %v) {
  %s = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 %mask, i32 %v, i32 1, i32 31)
  store i32 %s, ptr %out
  ret void
}

; __threadfence is a sequentially consistent fence; __ldg a plain load.
; CHECK-LABEL: define void @fence_and_ldg(
; CHECK: fence seq_cst
; CHECK: [[V:%.*]] = load i32, ptr %in, align 4
; CHECK: store i32 [[V]], ptr %out
define void @fence_and_ldg(ptr %in, ptr %out) {
  call void @llvm.nvvm.membar.gl()
  %v = call i32 @llvm.nvvm.ldg.global.i.i32.p0(ptr %in, i32 4)
  store i32 %v, ptr %out
  ret void
}

; atomicInc is LLVM's wrapping increment.
; CHECK-LABEL: define void @atomic_inc(
; CHECK: atomicrmw uinc_wrap ptr %p, i32 %limit monotonic, align 4
define void @atomic_inc(ptr %p, i32 %limit) {
  %old = call i32 @llvm.nvvm.atomic.load.inc.32.p0(ptr %p, i32 %limit)
  ret void
}

; A libdevice function RV64GC does in one instruction becomes its intrinsic.
; CHECK-LABEL: define float @sqrt(
; CHECK: call float @llvm.sqrt.f32(float %x)
define float @sqrt(float %x) {
  %r = call float @__nv_sqrtf(float %x)
  ret float %r
}

; CHECK: attributes #[[PURE]] = { memory(none) }
; CHECK: attributes #[[CONVERGENT]] = { convergent }

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i64 @llvm.nvvm.read.ptx.sreg.clock64()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.eq()
declare void @llvm.nvvm.barrier0()
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
declare void @llvm.nvvm.membar.gl()
declare i32 @llvm.nvvm.ldg.global.i.i32.p0(ptr, i32)
declare i32 @llvm.nvvm.atomic.load.inc.32.p0(ptr, i32)
declare float @__nv_sqrtf(float)
