// SPDX-License-Identifier: MIT
#include "pipeline.h"

#include <map>
#include <set>

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include "simtcc_config.h"
#include "simtgpu/hw.h"

using namespace llvm;

namespace simtcc {
namespace {

constexpr const char *kDeviceTriple = "riscv64-unknown-elf";
constexpr const char *kDeviceCpu = "generic-rv64";
constexpr const char *kDeviceFeatures = "+m,+a,+f,+d,+c";
// Stack reserved for functions simtcc has no frame size for (picolibc),
// and for kernels whose call graph is unbounded (recursion, indirect calls).
constexpr uint32_t kUnknownCalleeStack = 2048;
constexpr uint32_t kUnboundedStack = 16384;

Error fail(const Twine &message)
{
	return createStringError(inconvertibleErrorCode(), message);
}

bool exists(const std::string &path)
{
	return !path.empty() && sys::fs::exists(path);
}

std::string directoryOf(const std::string &path)
{
	return sys::path::parent_path(path).str();
}

std::string join(const std::string &a, const std::string &b)
{
	SmallString<256> p(a);
	sys::path::append(p, b);
	return std::string(p);
}

std::unique_ptr<TargetMachine> deviceTargetMachine(unsigned optLevel)
{
	std::string error;
	const Target *target = TargetRegistry::lookupTarget(kDeviceTriple, error);
	if (!target)
		return nullptr;
	TargetOptions options;
	options.MCOptions.ABIName = "lp64d";
	options.EmitStackSizeSection = true;
	auto level = optLevel == 0 ? CodeGenOpt::None : optLevel == 1 ? CodeGenOpt::Less
					       : optLevel == 2 ? CodeGenOpt::Default
							       : CodeGenOpt::Aggressive;
	return std::unique_ptr<TargetMachine>(target->createTargetMachine(
		kDeviceTriple, kDeviceCpu, kDeviceFeatures, options, Reloc::PIC_, CodeModel::Medium,
		level));
}

void initialiseLlvm()
{
	static bool done = false;
	if (done)
		return;
	InitializeAllTargetInfos();
	InitializeAllTargets();
	InitializeAllTargetMCs();
	InitializeAllAsmPrinters();
	InitializeAllAsmParsers();
	done = true;
}

// Runs lld's ELF driver in this process.
Error runLld(const std::vector<std::string> &args, bool verbose)
{
	std::vector<const char *> argv;
	for (const std::string &a : args)
		argv.push_back(a.c_str());
	if (verbose) {
		errs() << "simtcc: link:";
		for (const char *a : argv)
			errs() << ' ' << a;
		errs() << '\n';
	}
	std::string diagnostics;
	raw_string_ostream stream(diagnostics);
	bool ok = lld::elf::link(argv, outs(), stream, /*exitEarly=*/false, /*disableOutput=*/false);
	lld::CommonLinkerContext::destroy();
	if (!ok)
		return fail(stream.str());
	errs() << stream.str(); // warnings
	return Error::success();
}

// Frame sizes of every function in the image, from .stack_sizes.
Expected<std::map<std::string, uint64_t>> frameSizes(const object::ELF64LEObjectFile &elf)
{
	std::map<uint64_t, std::string> names;
	for (const object::ELFSymbolRef &symbol : elf.symbols()) {
		Expected<object::SymbolRef::Type> type = symbol.getType();
		Expected<StringRef> name = symbol.getName();
		Expected<uint64_t> address = symbol.getAddress();
		if (!type || !name || !address) {
			consumeError(type.takeError());
			consumeError(name.takeError());
			consumeError(address.takeError());
			continue;
		}
		if (*type == object::SymbolRef::ST_Function)
			names[*address] = name->str();
	}
	std::map<std::string, uint64_t> sizes;
	for (const object::SectionRef &section : elf.sections()) {
		Expected<StringRef> name = section.getName();
		if (!name) {
			consumeError(name.takeError());
			continue;
		}
		if (*name != ".stack_sizes")
			continue;
		Expected<StringRef> contents = section.getContents();
		if (!contents)
			return contents.takeError();
		const uint8_t *p = contents->bytes_begin();
		const uint8_t *end = contents->bytes_end();
		while (p + 8 < end) {
			uint64_t address = support::endian::read64le(p);
			p += 8;
			unsigned length = 0;
			const char *error = nullptr;
			uint64_t size = decodeULEB128(p, &length, end, &error);
			if (error)
				return fail("malformed .stack_sizes in the device image");
			p += length;
			if (auto it = names.find(address); it != names.end())
				sizes[it->second] = std::max(sizes[it->second], size);
		}
	}
	return sizes;
}

struct CallGraph {
	std::map<std::string, std::set<std::string>> callees;
	std::set<std::string> indirect; // functions with an indirect call
};

CallGraph callGraphOf(const Module &module)
{
	CallGraph graph;
	for (const Function &f : module) {
		if (f.isDeclaration())
			continue;
		auto &callees = graph.callees[f.getName().str()];
		for (const BasicBlock &bb : f)
			for (const Instruction &inst : bb) {
				auto *call = dyn_cast<CallBase>(&inst);
				if (!call || call->isInlineAsm())
					continue;
				const Function *callee = call->getCalledFunction();
				if (!callee)
					graph.indirect.insert(f.getName().str());
				else if (!callee->isIntrinsic())
					callees.insert(callee->getName().str());
				else if (isa<MemIntrinsic>(call))
					callees.insert("memcpy"); // may become a library call
			}
	}
	return graph;
}

// Worst-case stack of `function`: its frame plus its deepest callee;
// nullopt when unbounded.
std::optional<uint64_t> stackDepth(const std::string &function, const CallGraph &graph,
				   const std::map<std::string, uint64_t> &frames,
				   std::set<std::string> &active, std::map<std::string, uint64_t> &memo)
{
	if (auto it = memo.find(function); it != memo.end())
		return it->second;
	auto frame = frames.find(function);
	auto node = graph.callees.find(function);
	if (node == graph.callees.end()) // library code: measured or not
		return (frame != frames.end() ? frame->second : 0) + kUnknownCalleeStack;
	if (graph.indirect.count(function) || !active.insert(function).second)
		return std::nullopt;
	uint64_t deepest = 0;
	for (const std::string &callee : node->second) {
		std::optional<uint64_t> depth = stackDepth(callee, graph, frames, active, memo);
		if (!depth)
			return std::nullopt;
		deepest = std::max(deepest, *depth);
	}
	active.erase(function);
	uint64_t total = (frame != frames.end() ? frame->second : 0) + deepest;
	memo[function] = total;
	return total;
}

} // namespace

Toolchain Toolchain::locate(const std::string &argv0)
{
	Toolchain t;
	// Through its real path (/usr/lib/llvm-16/bin/clang for Debian's
	// /usr/bin/clang-16): the clang driver finds LLVM's own libraries, such
	// as libomp for -fopenmp, beside where it is installed.
	SmallString<256> clang;
	t.clang = sys::fs::real_path(SIMTCC_CLANG_PATH, clang) ? SIMTCC_CLANG_PATH
							       : clang.str().str();
	t.picolibc = SIMTCC_PICOLIBC_DIR;
	std::string exe = sys::fs::getMainExecutable(argv0.c_str(), (void *)&Toolchain::locate);
	std::string prefix = directoryOf(directoryOf(exe));
	std::string installed = join(prefix, "include/simtgpu/simtcc");
	if (exists(join(installed, "simt_device.h"))) {
		t.device_include = installed;
		t.cuda_include = join(prefix, "include/simtgpu/cuda");
		t.device_runtime = join(prefix, "lib/simtgpu/libsimtcc_device.a");
		t.host_lib = join(prefix, "lib");
	} else { // the build tree: <build>/bin/simtcc
		t.device_include = SIMTCC_SOURCE_DIR "/compiler/include";
		t.cuda_include = SIMTCC_SOURCE_DIR "/umd/include/cuda";
		t.device_runtime = join(prefix, "lib/simtgpu/libsimtcc_device.a");
		t.host_lib = join(prefix, "lib");
	}
	return t;
}

Pipeline::Pipeline(Toolchain toolchain, CompileOptions options)
	: toolchain_(std::move(toolchain)), options_(std::move(options)),
	  context_(std::make_unique<LLVMContext>())
{
	initialiseLlvm();
}

Pipeline::~Pipeline() = default;

void Pipeline::trace(const std::vector<std::string> &args) const
{
	if (!options_.verbose)
		return;
	errs() << "simtcc:";
	for (const std::string &a : args)
		errs() << ' ' << a;
	errs() << '\n';
}

std::vector<std::string> Pipeline::frontendArgs(const std::string &source, Language language,
						bool device) const
{
	// The CUDA version the runtime headers model (CUDART_VERSION 11080):
	// nvcc 11.8's predefined macros, in both passes, as nvcc defines them
	// for every .cu (clang's own CUDA headers would define __CUDACC__; we
	// use ours).
	constexpr int kCudaMajor = 11, kCudaMinor = 8, kCudaBuild = 89;
	std::vector<std::string> args = {toolchain_.clang};
	if (language == Language::Cuda) {
		args.insert(args.end(),
			    {"-x", "cuda", "-nocudainc", "-nocudalib", "--cuda-path=/nonexistent",
			     "--cuda-gpu-arch=sm_70", "-Xclang",
			     "-target-sdk-version=" + std::to_string(kCudaMajor) + "." +
				     std::to_string(kCudaMinor),
			     "-D__CUDACC__", "-D__NVCC__",
			     "-D__CUDACC_VER_MAJOR__=" + std::to_string(kCudaMajor),
			     "-D__CUDACC_VER_MINOR__=" + std::to_string(kCudaMinor),
			     "-D__CUDACC_VER_BUILD__=" + std::to_string(kCudaBuild),
			     "-D__SIMTGPU__=1",
			     "-D__SIMTGPU_ARCH__=" + std::to_string(options_.arch), "-I",
			     toolchain_.device_include});
		std::string runtimeHeader = join(toolchain_.cuda_include, "cuda_runtime.h");
		if (exists(runtimeHeader)) {
			args.insert(args.end(), {"-I", toolchain_.cuda_include, "-include", "cuda_runtime.h"});
		} else {
			args.insert(args.end(), {"-include", "simt_device.h"});
		}
		if (device) // or clang refuses the warp builtins
			args.insert(args.end(), {"-Xclang", "-target-feature", "-Xclang", "+ptx70"});
		args.push_back(device ? "--cuda-device-only" : "--cuda-host-only");
	} else {
		args.insert(args.end(), {"-x", language == Language::C ? "c" : "c++"});
		if (exists(toolchain_.cuda_include))
			args.insert(args.end(), {"-I", toolchain_.cuda_include});
		args.insert(args.end(), {"-I", toolchain_.device_include});
	}
	args.push_back("-O" + std::to_string(options_.opt_level));
	if (options_.debug)
		args.push_back("-g");
	// C++17 dropped 'register'; clang makes it an error, nvcc (and g++) a
	// warning, and older CUDA code uses it everywhere. Before the user's
	// flags, so that -Werror=register still wins.
	if (language != Language::C)
		args.push_back("-Wno-error=register");
	args.insert(args.end(), options_.frontend_args.begin(), options_.frontend_args.end());
	if (device) // simtcc optimises after its own passes, for RISC-V
		args.insert(args.end(), {"-Xclang", "-disable-llvm-passes", "-emit-llvm"});
	if (!device) {
		args.insert(args.end(), options_.host_args.begin(), options_.host_args.end());
		args.push_back("-c");
	}
	args.push_back(source);
	return args;
}

namespace {

// Runs clang's cc1 for `args` in this process with `action`.
Error runFrontend(const std::vector<std::string> &args, clang::FrontendAction &action,
		  bool locationTracking, const std::string &output)
{
	std::vector<const char *> argv;
	for (const std::string &a : args)
		argv.push_back(a.c_str());
	auto diagOptions = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
	diagOptions->ShowColors = sys::Process::StandardErrHasColors();
	auto *printer = new clang::TextDiagnosticPrinter(errs(), diagOptions.get());
	auto diags = clang::CompilerInstance::createDiagnostics(diagOptions.get(), printer);
	clang::CreateInvocationOptions invocationOptions;
	invocationOptions.Diags = diags;
	std::shared_ptr<clang::CompilerInvocation> invocation =
		clang::createInvocation(argv, invocationOptions);
	if (!invocation)
		return fail("simtcc: the front end rejected its arguments");
	// Keep source locations on every instruction, even without -g, so the
	// device passes can say where an unsupported construct is.
	// createInvocation plans a syntax-only run; the action decides what
	// is produced, and here where.
	invocation->getFrontendOpts().OutputFile = output;
	if (locationTracking &&
	    invocation->getCodeGenOpts().getDebugInfo() == clang::codegenoptions::NoDebugInfo)
		invocation->getCodeGenOpts().setDebugInfo(clang::codegenoptions::LocTrackingOnly);
	clang::CompilerInstance compiler;
	compiler.setInvocation(std::move(invocation));
	compiler.createDiagnostics(printer, /*ShouldOwnClient=*/false);
	bool ok = compiler.ExecuteAction(action);
	if (!ok || compiler.getDiagnostics().hasErrorOccurred())
		return fail("simtcc: compilation failed");
	return Error::success();
}

} // namespace

Expected<DeviceModule> Pipeline::compileDevice(const std::string &source)
{
	std::vector<std::string> args = frontendArgs(source, Language::Cuda, true);
	trace(args);
	clang::EmitLLVMOnlyAction action(context_.get());
	if (Error e = runFrontend(args, action, true, "-"))
		return e;
	DeviceModule device;
	device.module = action.takeModule();
	if (!device.module)
		return fail("simtcc: the front end produced no device module");
	Module &m = *device.module;

	if (options_.verbose)
		errs() << "simtcc: device passes: lower-nvvm, flatten-address-spaces, "
			  "kernel-entries, retarget (" << kDeviceTriple << ", lp64d, simt_"
		       << options_.arch << ")\n";
	if (Error e = lowerNvvmIntrinsics(m, LoweringOptions{options_.arch}))
		return e;
	Expected<SharedLayout> shared = flattenAddressSpaces(m);
	if (!shared)
		return shared.takeError();
	Expected<std::vector<KernelInfo>> kernels = buildKernelEntries(m, *shared);
	if (!kernels)
		return kernels.takeError();
	device.kernels = std::move(*kernels);
	emitKernelTable(m, device.kernels, options_.arch);

	std::unique_ptr<TargetMachine> machine = deviceTargetMachine(options_.opt_level);
	if (!machine)
		return fail("simtcc: LLVM has no RISC-V target");
	retargetModule(m, *machine);
	m.addModuleFlag(Module::Error, "target-abi", MDString::get(*context_, "lp64d"));
	std::string problems;
	raw_string_ostream problemStream(problems);
	if (verifyModule(m, &problemStream))
		return fail("simtcc: internal error: invalid device module after simtcc's passes:\n" +
			    problemStream.str());

	if (options_.verbose)
		errs() << "simtcc: optimise device module at -O" << options_.opt_level << '\n';
	LoopAnalysisManager lam;
	FunctionAnalysisManager fam;
	CGSCCAnalysisManager cgam;
	ModuleAnalysisManager mam;
	PassBuilder builder(machine.get());
	builder.registerModuleAnalyses(mam);
	builder.registerCGSCCAnalyses(cgam);
	builder.registerFunctionAnalyses(fam);
	builder.registerLoopAnalyses(lam);
	builder.crossRegisterProxies(lam, fam, cgam, mam);
	OptimizationLevel level = options_.opt_level == 0   ? OptimizationLevel::O0
				  : options_.opt_level == 1 ? OptimizationLevel::O1
				  : options_.opt_level == 2 ? OptimizationLevel::O2
							    : OptimizationLevel::O3;
	ModulePassManager passes = options_.opt_level == 0
					   ? builder.buildO0DefaultPipeline(level)
					   : builder.buildPerModuleDefaultPipeline(level);
	passes.run(m, mam);
	return device;
}

Error Pipeline::writeDeviceIR(const DeviceModule &device, const std::string &path)
{
	std::error_code ec;
	raw_fd_ostream out(path, ec, sys::fs::OF_Text);
	if (ec)
		return fail("simtcc: cannot write " + path + ": " + ec.message());
	device.module->print(out, nullptr);
	return Error::success();
}

Error Pipeline::writeDeviceCode(DeviceModule &device, const std::string &path, bool assembly)
{
	std::unique_ptr<TargetMachine> machine = deviceTargetMachine(options_.opt_level);
	std::error_code ec;
	raw_fd_ostream out(path, ec, assembly ? sys::fs::OF_Text : sys::fs::OF_None);
	if (ec)
		return fail("simtcc: cannot write " + path + ": " + ec.message());
	if (options_.verbose)
		errs() << "simtcc: RISC-V code generation -> " << path << '\n';
	legacy::PassManager passes;
	if (machine->addPassesToEmitFile(passes, out, nullptr,
					 assembly ? CGFT_AssemblyFile : CGFT_ObjectFile))
		return fail("simtcc: the RISC-V target cannot emit this file type");
	passes.run(*device.module);
	return Error::success();
}

Error Pipeline::linkDevice(const std::vector<std::string> &objects, const std::string &image)
{
	if (!exists(toolchain_.device_runtime))
		return fail("simtcc: device runtime not found at " + toolchain_.device_runtime);
	std::vector<std::string> args = {"ld.lld", "-m", "elf64lriscv", "-pie", "--no-dynamic-linker",
					 "--export-dynamic", "-z", "max-page-size=4096", "-e", "0",
					 "--no-undefined", "-o", image};
	if (!options_.debug)
		args.push_back("--strip-debug");
	args.insert(args.end(), objects.begin(), objects.end());
	args.insert(args.end(), {toolchain_.device_runtime, "-L", toolchain_.picolibc, "-lm", "-lc",
				 toolchain_.device_runtime});
	return runLld(args, options_.verbose);
}

Error Pipeline::buildDeviceImage(const std::string &source, const std::string &image)
{
	Expected<DeviceModule> device = compileDevice(source);
	if (!device)
		return device.takeError();
	CallGraph graph = callGraphOf(*device->module);
	SmallString<128> object;
	if (std::error_code ec = sys::fs::createTemporaryFile("simtcc-device", "o", object))
		return fail("simtcc: cannot create a temporary file: " + ec.message());
	FileRemover removeObject(object);
	if (Error e = writeDeviceCode(*device, std::string(object), false))
		return e;
	if (Error e = linkDevice({std::string(object)}, image))
		return e;

	// Fill in each kernel's stack size from the frames of the linked code.
	ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(image, false, false);
	if (!buffer)
		return fail("simtcc: cannot read " + image);
	Expected<std::unique_ptr<object::ObjectFile>> file =
		object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
	if (!file)
		return file.takeError();
	auto *elf = dyn_cast<object::ELF64LEObjectFile>(file->get());
	if (!elf)
		return fail("simtcc: the device image is not ELF64 little-endian");
	// Thread-local data (picolibc's errno) lives in the block the entry
	// wrapper points tp at: it must fit and need no initial values.
	auto segments = elf->getELFFile().program_headers();
	if (!segments)
		return segments.takeError();
	for (const auto &segment : *segments)
		if (segment.p_type == ELF::PT_TLS &&
		    (segment.p_filesz != 0 || segment.p_memsz + segment.p_align > kThreadLocalBytes))
			return fail("simtcc: the device image needs " + Twine(segment.p_memsz) +
				    " bytes of initialised or large thread-local data; the device "
				    "provides " + Twine(kThreadLocalBytes) + " zeroed bytes");
	Expected<std::map<std::string, uint64_t>> frames = frameSizes(*elf);
	if (!frames)
		return frames.takeError();

	uint64_t tableOffset = 0;
	bool found = false;
	for (const object::SectionRef &section : elf->sections()) {
		Expected<StringRef> name = section.getName();
		if (name && *name == SIMTGPU_KERNEL_TABLE_SECTION) {
			tableOffset = elf->getSection(section.getRawDataRefImpl())->sh_offset;
			found = true;
		}
		if (!name)
			consumeError(name.takeError());
	}
	if (!found)
		return fail("simtcc: the device image has no " SIMTGPU_KERNEL_TABLE_SECTION " section");
	std::string bytes = (*buffer)->getBuffer().str();
	buffer->reset();
	file->reset();
	std::map<std::string, uint64_t> memo;
	for (size_t i = 0; i < device->kernels.size(); ++i) {
		KernelInfo &kernel = device->kernels[i];
		std::set<std::string> active;
		std::optional<uint64_t> depth = stackDepth(kernel.entry_symbol, graph, *frames, active, memo);
		uint64_t stack = alignTo(depth ? *depth : kUnboundedStack, 16);
		kernel.stack_bytes = static_cast<uint32_t>(stack);
		if (options_.verbose)
			errs() << "simtcc: kernel " << kernel.name << ": " << kernel.param_bytes
			       << " param bytes, " << kernel.static_shared_bytes << " shared bytes, "
			       << stack << " stack bytes" << (depth ? "" : " (unbounded call graph)")
			       << '\n';
		uint64_t at = tableOffset + kernelTableStackFieldOffset(static_cast<uint32_t>(i));
		support::endian::write32le(&bytes[at], kernel.stack_bytes);
	}
	std::error_code ec;
	raw_fd_ostream out(image, ec, sys::fs::OF_None);
	if (ec)
		return fail("simtcc: cannot write " + image + ": " + ec.message());
	out << bytes;
	return Error::success();
}

Error Pipeline::compileHost(const std::string &source, Language language, const std::string &image,
			    const std::string &object)
{
	std::vector<std::string> args = frontendArgs(source, language, false);
	if (language == Language::Cuda)
		args.insert(args.end(), {"-Xclang", "-fcuda-include-gpubinary", "-Xclang", image});
	args.insert(args.end(), {"-o", object});
	trace(args);
	clang::EmitObjAction action(context_.get());
	return runFrontend(args, action, false, object);
}

Error Pipeline::linkHost(const std::vector<std::string> &objects, const std::string &executable)
{
	std::vector<std::string> args = {toolchain_.clang, "--driver-mode=g++", "-fuse-ld=lld"};
	// The host compiler's options shape its link too (-fsanitize=, -fopenmp).
	args.insert(args.end(), options_.host_args.begin(), options_.host_args.end());
	args.insert(args.end(), objects.begin(), objects.end());
	args.insert(args.end(), {"-L", toolchain_.host_lib, "-Wl,-rpath," + toolchain_.host_lib});
	args.insert(args.end(), options_.extra_link_args.begin(), options_.extra_link_args.end());
	args.insert(args.end(), {"-lsimtcudart", "-o", executable});
	std::vector<const char *> argv;
	for (const std::string &a : args)
		argv.push_back(a.c_str());

	auto diagOptions = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
	auto *printer = new clang::TextDiagnosticPrinter(errs(), diagOptions.get());
	clang::DiagnosticsEngine diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(),
				       diagOptions.get(), printer);
	clang::driver::Driver driver(toolchain_.clang, sys::getDefaultTargetTriple(), diags,
				     "simtcc host link");
	std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
	if (!compilation || diags.hasErrorOccurred())
		return fail("simtcc: cannot plan the host link");
	for (const clang::driver::Command &job : compilation->getJobs()) {
		std::vector<std::string> linkArgs = {"ld.lld"};
		for (const char *a : job.getArguments())
			linkArgs.push_back(a);
		if (!StringRef(job.getExecutable()).contains("lld"))
			return fail("simtcc: the host link step is not lld: " +
				    Twine(job.getExecutable()));
		if (Error e = runLld(linkArgs, options_.verbose))
			return e;
	}
	return Error::success();
}

} // namespace simtcc
