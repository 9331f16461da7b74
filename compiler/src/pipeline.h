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
#include <string>
#include <vector>

#include "device_passes.h"
#include "llvm/Support/Error.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace simtcc {

// Where simtcc finds its pieces (see Toolchain::locate).
struct Toolchain {
	std::string clang; // Debian's clang-16: its resource dir has the CUDA headers
	std::string device_include; // simt_device.h
	std::string cuda_include; // the UMD's cuda_runtime.h (may be missing)
	std::string device_runtime; // libsimtcc_device.a (RV64)
	std::string picolibc; // picolibc's rv64imafdc/lp64d directory
	std::string host_lib; // where libsimtcudart.so lives

	// Installed layout first (<prefix>/bin/simtcc next to
	// <prefix>/include/simtgpu and <prefix>/lib), then the build tree.
	static Toolchain locate(const std::string &argv0);
};

enum class Language { Cuda, Cxx, C };

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
	// The device module as text IR, assembly or a relocatable object.
	llvm::Error writeDeviceIR(const DeviceModule &device, const std::string &path);
	llvm::Error writeDeviceCode(DeviceModule &device, const std::string &path, bool assembly);
	// Links device objects with the device runtime and libm into the device
	// image.
	llvm::Error linkDevice(const std::vector<std::string> &objects, const std::string &image);
	// One source to a device image: compileDevice, writeDeviceCode,
	// linkDevice, then each kernel's stack size written into the table.
	llvm::Error buildDeviceImage(const std::string &source, const std::string &image);

	// Host pass of a CUDA source (embedding `image`), or a C/C++ source.
	llvm::Error compileHost(const std::string &source, Language language,
				const std::string &image, const std::string &object);
	// Links host objects with the CUDA runtime into an executable.
	llvm::Error linkHost(const std::vector<std::string> &objects, const std::string &executable);

private:
	std::vector<std::string> frontendArgs(const std::string &source, Language language,
					      bool device) const;
	void trace(const std::vector<std::string> &args) const;

	Toolchain toolchain_;
	CompileOptions options_;
	std::unique_ptr<llvm::LLVMContext> context_;
};

} // namespace simtcc

#endif
