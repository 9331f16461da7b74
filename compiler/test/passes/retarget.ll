; simt-retarget: the NVPTX module becomes one for the device's RISC-V
; target (riscv64-unknown-elf, generic-rv64 with +m,+a,+f,+d,+c, lp64d):
; its data layout, no NVPTX calling conventions or nvvm.annotations,
; definitions dso_local, and signext on every i32 parameter and result of
; every function and call (the RISC-V psABI's rule) unless zeroext.
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-retarget -S %s | FileCheck %s
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-retarget -S %s | FileCheck %s --check-prefix=GONE

; GONE-NOT: {{nvptx|ptx_kernel|ptx_device|nvvm.annotations}}

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK: target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n32:64-S128"
; CHECK: target triple = "riscv64-unknown-elf"

; CHECK-LABEL: define dso_local void @k(i32 signext %n, ptr %p)
; CHECK-SAME: #[[DEFINITION:[0-9]+]]
; CHECK: call signext i32 @helper(i32 signext %n)
; CHECK: call signext i32 %fp(i32 signext %n)
; CHECK: call void @unsigned_arg(i32 zeroext %n)
define ptx_kernel void @k(i32 %n, ptr %p) {
  %r = call ptx_device i32 @helper(i32 %n)
  store i32 %r, ptr %p
  %fp = load ptr, ptr %p
  %s = call i32 %fp(i32 %n)
  store i32 %s, ptr %p
  call void @unsigned_arg(i32 zeroext %n)
  ret void
}

; CHECK-LABEL: define internal signext i32 @helper(i32 signext %x)
; CHECK-SAME: #[[DEFINITION]]
define internal ptx_device i32 @helper(i32 %x) {
  ret i32 %x
}

; CHECK: declare void @unsigned_arg(i32 zeroext)
declare void @unsigned_arg(i32 zeroext)

; CHECK: attributes #[[DEFINITION]] = { "target-cpu"="generic-rv64" "target-features"="+m,+a,+f,+d,+c" }
; CHECK: !{i32 1, !"target-abi", !"lp64d"}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
