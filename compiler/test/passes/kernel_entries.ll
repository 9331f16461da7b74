; simt-kernel-entries: a launch starts each thread of kernel @k at
; __simt_entry_k with a0 pointing at the parameter buffer. The wrapper
; points tp at 64 zeroed bytes of thread-local data, loads each parameter
; from its slot at the C layout's offset (i32 at 0, ptr at 8, the 16-byte
; byval struct at 16, passed as the slot itself, i8 at 32), calls the
; kernel, and exits (ecall 93 with a0 = 0) without returning.
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-kernel-entries -S %s | FileCheck %s

; Only kernels get an entry.
; CHECK-NOT: @__simt_entry_not_a_kernel
; CHECK-LABEL: define dso_local void @__simt_entry_k(ptr %0)
; CHECK-SAME: #[[ENTRY:[0-9]+]]
; CHECK: [[TLS:%.*]] = alloca [64 x i8], align 16
; CHECK: call void @llvm.memset.p0.i64(ptr align 16 [[TLS]], i8 0, i64 64, i1 false)
; CHECK: call void asm sideeffect "mv tp, $0", "r,~{memory}"(ptr [[TLS]])
; CHECK: [[NSLOT:%.*]] = getelementptr inbounds i8, ptr %0, i64 0
; CHECK: [[N:%.*]] = load i32, ptr [[NSLOT]], align 4
; CHECK: [[PSLOT:%.*]] = getelementptr inbounds i8, ptr %0, i64 8
; CHECK: [[P:%.*]] = load ptr, ptr [[PSLOT]], align 8
; CHECK: [[S:%.*]] = getelementptr inbounds i8, ptr %0, i64 16
; CHECK: [[CSLOT:%.*]] = getelementptr inbounds i8, ptr %0, i64 32
; CHECK: [[C:%.*]] = load i8, ptr [[CSLOT]], align 1
; CHECK: call void @k(i32 [[N]], ptr [[P]], ptr byval(%struct.pair) align 8 [[S]], i8 [[C]])
; CHECK-NEXT: call void asm sideeffect "li a0, 0\0A\09li a7, 93\0A\09ecall"
; CHECK-NEXT: unreachable
; CHECK-NOT: @__simt_entry_not_a_kernel
; CHECK: attributes #[[ENTRY]] = { noreturn nounwind }

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.pair = type { i64, i64 }

define void @k(i32 %n, ptr %p, ptr byval(%struct.pair) align 8 %s, i8 %c) {
  ret void
}

define void @not_a_kernel() {
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @k, !"maxntidx", i32 128}
