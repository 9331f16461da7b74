; simt-lower-nvvm<simt_1>: simt_1 has no envptr CSR, so printf, which
; needs it, is refused with the -arch that has it.
; RUN: not opt -load-pass-plugin=%simt_passes -passes='simt-lower-nvvm<simt_1>' -disable-output %s 2>&1 | FileCheck %s
; The same module lowers for simt_2: vprintf becomes the device runtime's
; __simt_vprintf with the size of clang's argument buffer (two i32: 8 bytes).
; RUN: opt -load-pass-plugin=%simt_passes -passes='simt-lower-nvvm<simt_2>' -S %s | FileCheck %s --check-prefix=SIMT2

; CHECK: error: {{.*}}printf needs -arch=simt_2 or newer (the envptr CSR)

; SIMT2-LABEL: define void @k(
; SIMT2-NOT: @vprintf(
; SIMT2: call i32 @__simt_vprintf(ptr @format, ptr %args, i64 8)
; SIMT2-NOT: @vprintf(
; SIMT2: ret void

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@format = private constant [6 x i8] c"%d %d\00"

define void @k(i32 %a, i32 %b) {
  %args = alloca { i32, i32 }, align 8
  store i32 %a, ptr %args
  %second = getelementptr inbounds { i32, i32 }, ptr %args, i32 0, i32 1
  store i32 %b, ptr %second
  %r = call i32 @vprintf(ptr @format, ptr %args)
  ret void
}

declare i32 @vprintf(ptr, ptr)
