; simt-lower-nvvm refuses an nvvm intrinsic simtgpu has no counterpart for,
; naming it, where it is called, and the call chain up to the user's code
; (here a header function, as clang's CUDA headers call the intrinsics).
; RUN: not opt -load-pass-plugin=%simt_passes -passes=simt-lower-nvvm -disable-output %s 2>&1 | FileCheck %s

; CHECK: k.cu:3:10: error: simtcc cannot map NVVM intrinsic 'llvm.nvvm.read.ptx.sreg.pm0' to the simtgpu device
; CHECK-NEXT: k.cu:12:7: note: 'header_counter' called here

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define i32 @header_counter() !dbg !5 {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.pm0(), !dbg !8
  ret i32 %c
}

define void @k(ptr %out) !dbg !9 {
  %c = call i32 @header_counter(), !dbg !10
  store i32 %c, ptr %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.pm0()

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, emissionKind: NoDebug)
!1 = !DIFile(filename: "k.cu", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "header_counter", scope: !1, file: !1, line: 2, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{})
!8 = !DILocation(line: 3, column: 10, scope: !5)
!9 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 10, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!10 = !DILocation(line: 12, column: 7, scope: !9)
