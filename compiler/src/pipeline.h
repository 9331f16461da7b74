// SPDX-License-Identifier: MIT
// The steps of a simtcc compile, each callable on its own: the clang front
// end (device and host passes of CUDA, or plain C/C++), simtcc's device
// passes, LLVM's RISC-V code generator, and lld for the device image and
// the host executable. Everything runs in this process, on clang, LLVM and
// lld used as libraries.
#ifndef SIMTCC_PIPELINE_H
#define SIMTCC_PIPELINE_H

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "passes/simt_passes.h"
#include "llvm/Support/Error.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace simtcc {

// Where simtcc finds its pieces (see Toolchain::locate).
struct Toolchain {
    std::string clang;          // Debian's clang-16: its resource dir has the CUDA headers
    std::string device_include; // simt_device.h
    std::string cuda_include;   // the UMD's cuda_runtime.h (may be missing)
    std::string device_runtime; // libsimtcc_device.a (RV64)
    std::string picolibc;       // picolibc's rv64imafdc/lp64d directory
    std::string host_lib;       // where libsimtcudart.so lives

    // Installed layout first (<prefix>/bin/simtcc next to
    // <prefix>/include/simtgpu and <prefix>/lib), then the build tree.
    static Toolchain locate(const std::string &argv0);
};

enum class Language { Cuda, Cxx, C };

// The device image of `source` left symbols undefined: their names as lld
// prints them (demangled), lld's own message, and what the driver found
// out about them (another source of the command line that defines them).
class UndefinedDeviceSymbols : public llvm::ErrorInfo<UndefinedDeviceSymbols> {
public:
    static char ID;
    UndefinedDeviceSymbols(std::string source, std::vector<std::string> names,
                           std::string linker_message)
        : source(std::move(source)), names(std::move(names)),
          linker_message(std::move(linker_message)) {}
    void log(llvm::raw_ostream &os) const override;
    std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

    std::string source;
    std::vector<std::string> names;
    std::string linker_message;
    std::vector<std::string> defined_elsewhere; // "NAME (in FILE.cu)"
};

struct CompileOptions {
    std::vector<std::string> frontend_args; // -I, -D, -U, -std=, -include ...
    unsigned opt_level = 2;
    bool debug = false;
    uint32_t arch = 2;
    bool verbose = false;
    std::vector<std::string> extra_link_args; // -L, -l, -Wl, ...
    // -Xcompiler: for the host compiler only, as nvcc passes them to its
    // host compiler: host passes and the host link, never device code.
    std::vector<std::string> host_args;
    // Relocatable device code (-rdc=true, -dc): each .cu's device code is
    // kept as LLVM bitcode in its host object and linked at the final link.
    bool rdc = false;
};

// The result of the device half of one CUDA source.
struct DeviceModule {
    std::unique_ptr<llvm::Module> module;
    std::vector<KernelInfo> kernels;
};

class Pipeline {
public:
    Pipeline(Toolchain toolchain, CompileOptions options);
    ~Pipeline();

    // Front end (device pass) + simtcc passes + optimisation, ready for
    // code generation.
    llvm::Expected<DeviceModule> compileDevice(const std::string &source);
    // The front end's device module alone, before simtcc's passes.
    llvm::Expected<std::unique_ptr<llvm::Module>> deviceFrontEnd(const std::string &source);
    // simtcc's passes and optimisation on a whole program's device module.
    llvm::Expected<DeviceModule> lowerDevice(std::unique_ptr<llvm::Module> module);
    // -rdc: the front end's device module of `source` as bitcode, what its
    // host object carries to the device link.
    llvm::Error writeDeviceBitcode(const std::string &source, const std::string &path);
    // The device module as text IR, assembly or a relocatable object.
    llvm::Error writeDeviceIR(const DeviceModule &device, const std::string &path);
    llvm::Error writeDeviceCode(DeviceModule &device, const std::string &path, bool assembly);
    // Links device objects with the device runtime and libm into the device
    // image.
    llvm::Error linkDevice(const std::vector<std::string> &objects, const std::string &image);
    // One source to a device image: compileDevice, writeDeviceCode,
    // linkDevice, then each kernel's stack size written into the table.
    llvm::Error buildDeviceImage(const std::string &source, const std::string &image);
    llvm::Error buildDeviceImage(DeviceModule &device, const std::string &image);
    // The device functions and variables `source` defines for other
    // translation units (external linkage), demangled as lld names them.
    llvm::Expected<std::set<std::string>> deviceDefinitions(const std::string &source);

    // The device link of relocatable device code: the bitcode of every
    // -rdc host object among `objects` (archives' members too) whose
    // registration no other object already defines, linked into one device
    // image and written with its registration code as the host object
    // `object`. Returns false, writing nothing, when there is none.
    llvm::Expected<bool> linkRelocatableDevice(const std::vector<std::string> &objects,
                                               const std::string &object);

    // Host pass of a CUDA source (embedding `image`), or a C/C++ source.
    // `managedVariables`: the source defines __managed__ variables (its
    // device pass found them), whose host accesses simtcc rewrites.
    llvm::Error compileHost(const std::string &source, Language language, const std::string &image,
                            const std::string &object, bool managedVariables = false);
    // Whether the device pass of `source` found __managed__ variables.
    bool definesManagedVariables(const std::string &source) const {
        return managed_sources_.count(source) != 0;
    }
    // Links host objects with the CUDA runtime into an executable.
    llvm::Error linkHost(const std::vector<std::string> &objects, const std::string &executable);

private:
    std::vector<std::string> frontendArgs(const std::string &source, Language language,
                                          bool device) const;
    void trace(const std::vector<std::string> &args) const;

    Toolchain toolchain_;
    CompileOptions options_;
    std::unique_ptr<llvm::LLVMContext> context_;
    std::set<std::string> managed_sources_;
};

} // namespace simtcc

#endif
