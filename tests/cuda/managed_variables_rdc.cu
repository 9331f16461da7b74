// SPDX-License-Identifier: MIT
// managed_variables.cu again as relocatable device code: clang renames its
// static __managed__ variable per translation unit (NAME__static__CUID) in
// both passes, and the device link keeps the variables' pointers.
// simtcc-flags: -rdc=true
// expect-output: ^managed_variables: PASS
#include "managed_variables.cu"
