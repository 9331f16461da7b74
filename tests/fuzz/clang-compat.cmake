# Writes OUT, a copy of IN (sim/src/core/sm.cpp) that clang 16 compiles.
# sm.cpp declares, inside Sm::Impl, a default argument `= {}` of the nested
# struct WarpFp, whose members have default initializers: GCC takes it,
# clang refuses it ("default member initializer ... needed within
# definition of enclosing class"). The copy names a function instead. Only
# the fuzzers' clang build uses it; the main build compiles sm.cpp as it is.
# Where the pattern is gone (fixed at its source), the copy is unchanged.
file(READ ${IN} text)
string(REPLACE
  "const WarpFp &warp_op = {});"
  "const WarpFp &warp_op = no_warp_fp());\n    static const WarpFp &no_warp_fp() { static const WarpFp none{}; return none; }"
  text "${text}")
file(WRITE ${OUT}.tmp "${text}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
