; simt-flatten-address-spaces: simtgpu has one address space. __shared__
; (3) variables become addresses in the shared window, which starts at
; SIMTGPU_SHARED_BASE = 0xff0000000000 = 280375465082880 (include/simtgpu/hw.h):
; @tile (256 bytes) at +0, @count at +256, and the extern array @dynamic
; after the static ones, aligned to 16: +272 = 280375465083152. Kernel @k2
; reaches none of @k's, so its @other overlaps them at +0. __constant__ (4)
; and __device__ (1) variables become plain globals, kept and named so the
; host can still write them (cudaMemcpyToSymbol); addrspacecasts vanish.
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-flatten-address-spaces -S %s | FileCheck %s
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-flatten-address-spaces -S %s | FileCheck %s --check-prefix=GONE

; Not one address space other than 0 is left, nor a shared variable.
; GONE-NOT: {{addrspace|@tile|@count[^e]|@dynamic|@other}}
; CHECK-DAG: @lookup = dso_local externally_initialized global [4 x i32] [i32 1, i32 2, i32 3, i32 4]
; CHECK-DAG: @counter = global i32 0
; CHECK-DAG: @llvm.used = appending global [1 x ptr] [ptr @lookup]

; CHECK-LABEL: define void @k(
; CHECK: getelementptr [64 x float], ptr inttoptr (i64 280375465082880 to ptr), i64 0, i64 %i
; CHECK: store i32 1, ptr inttoptr (i64 280375465083136 to ptr)
; CHECK: store float %v, ptr inttoptr (i64 280375465083152 to ptr)
; CHECK: getelementptr [4 x i32], ptr @lookup, i64 0, i64 %i
; CHECK: store i32 %tv, ptr @counter
; CHECK-LABEL: define void @k2(
; CHECK: store i32 2, ptr inttoptr (i64 280375465082880 to ptr)

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [64 x float] undef, align 4
@count = internal addrspace(3) global i32 undef, align 4
@dynamic = external addrspace(3) global [0 x float], align 4
@lookup = internal addrspace(4) global [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 4
@counter = addrspace(1) global i32 0, align 4
@other = internal addrspace(3) global i32 undef, align 4

define void @k(i64 %i, ptr %out) {
  %p = getelementptr [64 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  %v = load float, ptr addrspace(3) %p, align 4
  store i32 1, ptr addrspace(3) @count, align 4
  %dyn = addrspacecast ptr addrspace(3) @dynamic to ptr
  store float %v, ptr %dyn, align 4
  %t = getelementptr [4 x i32], ptr addrspace(4) @lookup, i64 0, i64 %i
  %tv = load i32, ptr addrspace(4) %t, align 4
  %global = addrspacecast ptr addrspace(1) @counter to ptr
  store i32 %tv, ptr %global, align 4
  ret void
}

define void @k2() {
  store i32 2, ptr addrspace(3) @other, align 4
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @k2, !"kernel", i32 1}
