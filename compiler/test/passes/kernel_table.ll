; simt-kernel-table: the kernels simt-kernel-entries found, as the table the
; driver reads (struct simtgpu_ktab_header, entries and params of
; include/simtgpu/hw.h, all u32 little-endian, then the string table), in
; section .simt.kernels and kept by llvm.used. Here one kernel, k(i32, ptr),
; __launch_bounds__(256), with 40 bytes of __shared__ (simt-flatten-address-spaces
; hands the layout on: 40 rounded up to 16 is 48).
;   header  magic "SKTB", version 1, arch 2, count 1, entry_size 32,
;           param_size 16, strtab_offset 32+32+2*16 = 96 ('`'), strtab_size 18
;   entry   name 1, entry_symbol 3, param_count 2, param_first 0,
;           param_bytes 16, static_shared_bytes 48 ('0'), stack_bytes 0
;           (simtcc writes it after linking), max_threads_per_cta 256
;   params  {offset 0, size 4, align 4, 0}, {8, 8, 8, 0}
;   strtab  "\0k\0__simt_entry_k\0"
; RUN: opt -load-pass-plugin=%simt_passes -passes=simt-flatten-address-spaces,simt-kernel-entries,simt-kernel-table -S %s | FileCheck %s
; simt_1 is recorded as the architecture the image needs.
; RUN: opt -load-pass-plugin=%simt_passes -passes='simt-kernel-entries,simt-kernel-table<simt_1>' -S %s | FileCheck %s --check-prefix=SIMT1

; CHECK: @__simt_kernel_table = dso_local constant [114 x i8] c"SKTB\01\00\00\00\02\00\00\00\01\00\00\00 \00\00\00\10\00\00\00`\00\00\00\12\00\00\00\01\00\00\00\03\00\00\00\02\00\00\00\00\00\00\00\10\00\00\000\00\00\00\00\00\00\00\00\01\00\00\00\00\00\00\04\00\00\00\04\00\00\00\00\00\00\00\08\00\00\00\08\00\00\00\08\00\00\00\00\00\00\00\00k\00__simt_entry_k\00", section ".simt.kernels", align 8
; CHECK: @llvm.used = appending global [1 x ptr] [ptr @__simt_kernel_table], section "llvm.metadata"
; SIMT1: @__simt_kernel_table = {{.*}} c"SKTB\01\00\00\00\01\00\00\00\01\00\00\00

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@scratch = internal addrspace(3) global [10 x float] undef, align 4

define void @k(i32 %n, ptr %p) {
  store float 1.0, ptr addrspace(3) @scratch, align 4
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @k, !"maxntidx", i32 256}
