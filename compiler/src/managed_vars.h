// SPDX-License-Identifier: MIT
// __managed__ variables (docs/simtcc.md, "__managed__ variables"). clang's
// CUDA mode ignores the managed attribute (only HIP implements it), so
// simt_qualifiers.h makes __managed__ a __device__ variable annotated
// "simtgpu.managed", and these passes build what CUDA does: the variable
// lives in managed memory, reached through a pointer on both sides.
//   device: `x` becomes a pointer variable of the same name, which the
//           runtime points at the managed memory when it loads the image;
//           every use loads it. The storage stays as `x.managed`, unused,
//           for its initial value, which the runtime reads from the image.
//   host:   the shadow's uses load `x.managed_ptr` (null until the runtime
//           set the variable up, then the managed address: a null pointer
//           first asks the runtime, __simtgpuManagedVarAddress), and its
//           __cudaRegisterVar becomes __cudaRegisterManagedVar(handle,
//           &x.managed_ptr, name, name, ext, size, constant, global).
#pragma once

#include "llvm/Support/Error.h"

namespace llvm {
class Module;
}

namespace simtcc {

inline constexpr const char *kManagedAnnotation = "simtgpu.managed";

// True when the module has a variable annotated as managed.
bool hasManagedVariables(const llvm::Module &module);

llvm::Error lowerManagedVariablesForDevice(llvm::Module &module);
llvm::Error lowerManagedVariablesForHost(llvm::Module &module);

} // namespace simtcc
