// SPDX-License-Identifier: MIT
#include "pipeline.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/CodeGen/BackendUtil.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/PreprocessorOutputOptions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include "managed_vars.h"
#include "ptx_asm.h"
#include "simtcc_config.h"
#include "simtgpu/hw.h"

using namespace llvm;

namespace simtcc {
namespace {

// simtcc's passes (passes/simt_passes.h), by their simt- names: those
// before LLVM's -O pipeline, and those after it.
constexpr const char *kLoweringPasses = "simt-lower-nvvm,simt-flatten-address-spaces,"
                                        "simt-kernel-entries,simt-kernel-table,simt-retarget";
constexpr const char *kFinishingPasses = "simt-merge-warp-syncs,simt-native-atomics";
// Stack reserved for functions simtcc has no frame size for (picolibc),
// and for kernels whose call graph is unbounded (recursion, indirect calls).
constexpr uint32_t kUnknownCalleeStack = 2048;
constexpr uint32_t kUnboundedStack = 16384;
// The module flag of an -rdc object's bitcode that records its -arch.
constexpr const char *kArchFlag = "simtgpu.arch";
// Where clang's -fgpu-rdc host pass puts the embedded device code (here
// bitcode) and its module id, and the registration function it calls,
// which the device link defines (nvcc's nvlink does the same).
constexpr const char *kRelocatableSection = "__nv_relfatbin";
constexpr const char *kModuleIdSection = "__nv_module_id";
constexpr const char *kRegisterLinkedBinary = "__cudaRegisterLinkedBinary";

Error fail(const Twine &message) {
    return createStringError(inconvertibleErrorCode(), message);
}

bool exists(const std::string &path) {
    return !path.empty() && sys::fs::exists(path);
}

std::string directoryOf(const std::string &path) {
    return sys::path::parent_path(path).str();
}

std::string join(const std::string &a, const std::string &b) {
    SmallString<256> p(a);
    sys::path::append(p, b);
    return std::string(p);
}

void initialiseLlvm() {
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
Error runLld(const std::vector<std::string> &args, bool verbose) {
    std::vector<const char *> argv;
    for (const std::string &a : args)
        argv.push_back(a.c_str());
    if (verbose) {
        // The lld line on a line of its own, as a compiler driver's -v
        // shows its linker (CMake reads implicit libraries from it).
        errs() << "simtcc: link, lld in process:\n ";
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
Expected<std::map<std::string, uint64_t>> frameSizes(const object::ELF64LEObjectFile &elf) {
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

CallGraph callGraphOf(const Module &module) {
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
                                   std::set<std::string> &active,
                                   std::map<std::string, uint64_t> &memo) {
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

Toolchain Toolchain::locate(const std::string &argv0) {
    Toolchain t;
    // Through its real path (/usr/lib/llvm-16/bin/clang for Debian's
    // /usr/bin/clang-16): the clang driver finds LLVM's own libraries, such
    // as libomp for -fopenmp, beside where it is installed.
    SmallString<256> clang;
    t.clang = sys::fs::real_path(SIMTCC_CLANG_PATH, clang) ? SIMTCC_CLANG_PATH : clang.str().str();
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
      context_(std::make_unique<LLVMContext>()) {
    initialiseLlvm();
}

Pipeline::~Pipeline() = default;

void Pipeline::trace(const std::vector<std::string> &args) const {
    if (!options_.verbose)
        return;
    errs() << "simtcc:";
    for (const std::string &a : args)
        errs() << ' ' << a;
    errs() << '\n';
}

// -std=c++17, -std=gnu++14, --std=c++20: options of C++ only.
static bool isCxxDialect(StringRef arg) {
    arg.consume_front("-");
    arg.consume_front("-");
    return arg.consume_front("std=") && (arg.startswith("c++") || arg.startswith("gnu++"));
}

std::vector<std::string> Pipeline::frontendArgs(const std::string &source, Language language,
                                                bool device) const {
    // The CUDA version the runtime headers model (CUDART_VERSION 11080):
    // nvcc 11.8's predefined macros, in both passes, as nvcc defines them
    // for every .cu (clang's own CUDA headers would define __CUDACC__; we
    // use ours).
    constexpr int kCudaMajor = 11, kCudaMinor = 8, kCudaBuild = 89;
    std::vector<std::string> args = {toolchain_.clang};
    if (language == Language::Cuda) {
        args.insert(
            args.end(),
            {"-x", "cuda", "-nocudainc", "-nocudalib", "--cuda-path=/nonexistent",
             "--cuda-gpu-arch=sm_70", "-Xclang",
             "-target-sdk-version=" + std::to_string(kCudaMajor) + "." + std::to_string(kCudaMinor),
             "-D__CUDACC__", "-D__NVCC__", "-D__CUDACC_VER_MAJOR__=" + std::to_string(kCudaMajor),
             "-D__CUDACC_VER_MINOR__=" + std::to_string(kCudaMinor),
             "-D__CUDACC_VER_BUILD__=" + std::to_string(kCudaBuild), "-D__SIMTGPU__=1",
             "-D__SIMTGPU_ARCH__=" + std::to_string(options_.arch), "-I",
             toolchain_.device_include});
        std::string runtimeHeader = join(toolchain_.cuda_include, "cuda_runtime.h");
        if (exists(runtimeHeader)) {
            args.insert(args.end(), {"-I", toolchain_.cuda_include, "-include", "cuda_runtime.h"});
        } else {
            args.insert(args.end(), {"-include", "simt_device.h"});
        }
        if (options_.rdc) {
            // One -cuid for both passes (clang's default hashes each pass's
            // own arguments), so static __device__ names clang makes unique
            // agree between the device code and the host's registration.
            SmallString<256> real;
            if (sys::fs::real_path(source, real))
                real = source;
            // clang's driver hands -cuid to the device pass only; the host
            // pass (--cuda-host-only) made its own, so static __device__
            // variables the host registers got other names there.
            const std::string cuid = "-cuid=" + utohexstr(MD5Hash(real));
            args.insert(args.end(), {"-fgpu-rdc", cuid, "-Xclang", cuid, "-D__CUDACC_RDC__"});
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
    // nvcc's -std names a C++ dialect: a .c in the same command line is
    // compiled as C with the host compiler's own C default, as nvcc does.
    auto appliesTo = [language](const std::string &arg) {
        return language != Language::C || !isCxxDialect(arg);
    };
    std::copy_if(options_.frontend_args.begin(), options_.frontend_args.end(),
                 std::back_inserter(args), appliesTo);
    if (device) // simtcc optimises after its own passes, for RISC-V
        args.insert(args.end(), {"-Xclang", "-disable-llvm-passes", "-emit-llvm"});
    if (!device) {
        std::copy_if(options_.host_args.begin(), options_.host_args.end(), std::back_inserter(args),
                     appliesTo);
        args.push_back("-c");
    }
    args.push_back(source);
    return args;
}

namespace {

// Runs clang's cc1 for `args` in this process with `action`; `adjust`, when
// given, changes the invocation first, and `quiet` drops its diagnostics.
Error runFrontend(const std::vector<std::string> &args, clang::FrontendAction &action,
                  bool locationTracking, const std::string &output,
                  const std::function<void(clang::CompilerInvocation &)> &adjust = {},
                  bool quiet = false, std::unique_ptr<clang::CompilerInstance> *keep = nullptr) {
    std::vector<const char *> argv;
    for (const std::string &a : args)
        argv.push_back(a.c_str());
    auto diagOptions = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    diagOptions->ShowColors = sys::Process::StandardErrHasColors();
    // As clang's driver: line markers name the place (the device pass may
    // compile preprocessed text).
    diagOptions->ShowPresumedLoc = true;
    clang::DiagnosticConsumer *printer =
        quiet ? static_cast<clang::DiagnosticConsumer *>(new clang::IgnoringDiagConsumer())
              : new clang::TextDiagnosticPrinter(errs(), diagOptions.get());
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
    if (adjust)
        adjust(*invocation);
    auto instance = std::make_unique<clang::CompilerInstance>();
    clang::CompilerInstance &compiler = *instance;
    compiler.setInvocation(std::move(invocation));
    compiler.createDiagnostics(printer, /*ShouldOwnClient=*/false);
    bool ok = compiler.ExecuteAction(action);
    if (!ok || compiler.getDiagnostics().hasErrorOccurred())
        return fail("simtcc: compilation failed");
    if (keep) { // its options and diagnostics, for the caller's back end
        // The printer above belongs to `diags`, which goes with this call.
        compiler.createDiagnostics(
            new clang::TextDiagnosticPrinter(errs(), &compiler.getDiagnosticOpts()),
            /*ShouldOwnClient=*/true);
        *keep = std::move(instance);
    }
    return Error::success();
}

// With -fgpu-rdc clang 16 renames a static __device__ variable that host
// code uses to NAME__static__CUID (what the host registers), but code emitted
// before the rename still names an external NAME, which no object defines.
// Within one translation unit that declaration can only mean the renamed
// variable.
void resolveExternalisedStatics(Module &module) {
    for (GlobalVariable &declared : make_early_inc_range(module.globals())) {
        if (!declared.isDeclaration())
            continue;
        const std::string prefix = declared.getName().str() + "__static__";
        for (GlobalVariable &defined : module.globals())
            if (!defined.isDeclaration() && defined.getName().startswith(prefix) &&
                defined.getType() == declared.getType()) {
                declared.replaceAllUsesWith(&defined);
                declared.eraseFromParent();
                break;
            }
    }
}

// The device pass's preprocessor output with lone `%`s before PTX special
// registers in asm templates escaped (ptx_asm.h); escaped stays empty when
// there are none, or when preprocessing fails (the compile then says why).
class EscapePtxRegistersAction : public clang::PreprocessorFrontendAction {
public:
    std::optional<std::string> escaped;

protected:
    void ExecuteAction() override {
        clang::CompilerInstance &compiler = getCompilerInstance();
        std::string text;
        raw_string_ostream out(text);
        clang::PreprocessorOutputOptions options;
        options.ShowCPP = 1;
        options.ShowLineMarkers = 1;
        clang::DoPrintPreprocessedInput(compiler.getPreprocessor(), &out, options);
        if (!compiler.getDiagnostics().hasErrorOccurred())
            escaped = escapePtxSpecialRegisters(out.str(), compiler.getLangOpts());
    }
};

} // namespace

Expected<std::unique_ptr<Module>> Pipeline::deviceFrontEnd(const std::string &source) {
    std::vector<std::string> args = frontendArgs(source, Language::Cuda, true);
    trace(args);
    // In nvcc's words, for build systems that read its -v (CMake's default
    // CUDA_ARCHITECTURES): what clang's CUDA mode compiles as.
    if (options_.verbose)
        errs() << "simtcc: device front end as clang's CUDA sm_70 (nvcc's -arch compute_70)\n";
    // nvcc passes inline PTX to ptxas as text, where `%globaltimer` names a
    // register; clang would refuse the lone `%`. Where a template has one,
    // the device pass compiles its preprocessed source with `%%` there.
    // (Preprocessed twice then: once quietly to look, once reporting the
    // preprocessor's warnings, as a direct compile would.)
    EscapePtxRegistersAction escape;
    if (Error e = runFrontend(args, escape, false, "-", {}, /*quiet=*/true))
        consumeError(std::move(e));
    std::unique_ptr<MemoryBuffer> escaped;
    std::function<void(clang::CompilerInvocation &)> fromEscaped;
    if (escape.escaped) {
        EscapePtxRegistersAction reporting;
        if (Error e = runFrontend(args, reporting, false, "-"))
            return e;
        escaped = MemoryBuffer::getMemBufferCopy(*escape.escaped, source);
        fromEscaped = [&](clang::CompilerInvocation &invocation) {
            clang::FrontendOptions &frontend = invocation.getFrontendOpts();
            clang::InputKind kind = frontend.Inputs.front().getKind().getPreprocessed();
            frontend.Inputs = {clang::FrontendInputFile(escaped->getMemBufferRef(), kind)};
            // Its -include'd headers are in the text already.
            invocation.getPreprocessorOpts().Includes.clear();
            invocation.getPreprocessorOpts().MacroIncludes.clear();
        };
    }
    clang::EmitLLVMOnlyAction action(context_.get());
    if (Error e = runFrontend(args, action, true, "-", fromEscaped))
        return e;
    std::unique_ptr<Module> module = action.takeModule();
    if (!module)
        return fail("simtcc: the front end produced no device module");
    resolveExternalisedStatics(*module);
    if (hasManagedVariables(*module))
        managed_sources_.insert(source);
    return module;
}

Expected<DeviceModule> Pipeline::compileDevice(const std::string &source) {
    Expected<std::unique_ptr<Module>> module = deviceFrontEnd(source);
    if (!module)
        return module.takeError();
    return lowerDevice(std::move(*module));
}

Error Pipeline::writeDeviceBitcode(const std::string &source, const std::string &path) {
    Expected<std::unique_ptr<Module>> module = deviceFrontEnd(source);
    if (!module)
        return module.takeError();
    // The architecture it was compiled for: the device link lowers for it.
    (*module)->addModuleFlag(Module::Error, kArchFlag, options_.arch);
    std::error_code ec;
    raw_fd_ostream out(path, ec, sys::fs::OF_None);
    if (ec)
        return fail("simtcc: cannot write " + path + ": " + ec.message());
    WriteBitcodeToFile(**module, out);
    return Error::success();
}

Expected<DeviceModule> Pipeline::lowerDevice(std::unique_ptr<Module> module) {
    DeviceModule device;
    device.module = std::move(module);
    Module &m = *device.module;
    // A device link lowers for the architecture its objects were compiled
    // for (linkRelocatableDevice checked they agree).
    uint32_t arch = options_.arch;
    if (auto *flag = mdconst::extract_or_null<ConstantInt>(m.getModuleFlag(kArchFlag)))
        arch = static_cast<uint32_t>(flag->getZExtValue());

    if (options_.verbose)
        errs() << "simtcc: device passes: " << kLoweringPasses << " (" << kDeviceTriple
               << ", lp64d, simt_" << arch << ")\n";
    if (Error e = lowerManagedVariablesForDevice(m))
        return e;
    if (Error e = translateInlinePtx(m))
        return e;

    std::unique_ptr<TargetMachine> machine = deviceTargetMachine(options_.opt_level);
    if (!machine)
        return fail("simtcc: LLVM has no RISC-V target");
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
    LoweringState state(arch, LoweringState::Refusals::Collect, machine.get());
    registerSimtPasses(builder, state);
    ModulePassManager lowering;
    if (Error e = builder.parsePassPipeline(lowering, kLoweringPasses))
        return e;
    lowering.run(m, mam);
    if (Error e = state.takeError())
        return e;
    device.kernels = std::move(state.kernels);
    std::string problems;
    raw_string_ostream problemStream(problems);
    if (verifyModule(m, &problemStream))
        return fail("simtcc: internal error: invalid device module after simtcc's passes:\n" +
                    problemStream.str());

    if (options_.verbose)
        errs() << "simtcc: optimise device module at -O" << options_.opt_level << ", then "
               << kFinishingPasses << '\n';
    OptimizationLevel level = options_.opt_level == 0   ? OptimizationLevel::O0
                              : options_.opt_level == 1 ? OptimizationLevel::O1
                              : options_.opt_level == 2 ? OptimizationLevel::O2
                                                        : OptimizationLevel::O3;
    ModulePassManager passes = options_.opt_level == 0
                                   ? builder.buildO0DefaultPipeline(level)
                                   : builder.buildPerModuleDefaultPipeline(level);
    // A `#pragma unroll` the unroller cannot honour (a trip count known
    // only at run time, as in CUB's radix sort) is a hint, as it is to nvcc,
    // which says nothing: the "loop not unrolled" warnings are dropped, and
    // every other diagnostic handled as LLVM's default handler does.
    context_->setDiagnosticHandlerCallBack(
        [](const DiagnosticInfo &info, void *) {
            if (info.getKind() == DK_OptimizationFailure)
                return;
            DiagnosticPrinterRawOStream printer(errs());
            errs() << LLVMContext::getDiagnosticMessagePrefix(info.getSeverity()) << ": ";
            info.print(printer);
            errs() << '\n';
            if (info.getSeverity() == DS_Error)
                exit(1); // as LLVM's own handler does
        },
        nullptr);
    passes.run(m, mam);
    context_->setDiagnosticHandlerCallBack(nullptr);
    ModulePassManager finishing;
    if (Error e = builder.parsePassPipeline(finishing, kFinishingPasses))
        return e;
    finishing.run(m, mam);
    return device;
}

Error Pipeline::writeDeviceIR(const DeviceModule &device, const std::string &path) {
    std::error_code ec;
    raw_fd_ostream out(path, ec, sys::fs::OF_Text);
    if (ec)
        return fail("simtcc: cannot write " + path + ": " + ec.message());
    device.module->print(out, nullptr);
    return Error::success();
}

Error Pipeline::writeDeviceCode(DeviceModule &device, const std::string &path, bool assembly) {
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

Error Pipeline::linkDevice(const std::vector<std::string> &objects, const std::string &image) {
    if (!exists(toolchain_.device_runtime))
        return fail("simtcc: device runtime not found at " + toolchain_.device_runtime);
    std::vector<std::string> args = {"ld.lld",
                                     "-m",
                                     "elf64lriscv",
                                     "-pie",
                                     "--no-dynamic-linker",
                                     "--export-dynamic",
                                     "-z",
                                     "max-page-size=4096",
                                     "-e",
                                     "0",
                                     "--no-undefined",
                                     "-o",
                                     image};
    if (!options_.debug)
        args.push_back("--strip-debug");
    args.insert(args.end(), objects.begin(), objects.end());
    args.insert(args.end(), {toolchain_.device_runtime, "-L", toolchain_.picolibc, "-lm", "-lc",
                             toolchain_.device_runtime});
    return runLld(args, options_.verbose);
}

Error Pipeline::buildDeviceImage(const std::string &source, const std::string &image) {
    Expected<DeviceModule> device = compileDevice(source);
    if (!device)
        return device.takeError();
    Error built = buildDeviceImage(*device, image);
    if (!built)
        return built;
    std::string message = toString(std::move(built));
    std::vector<std::string> undefined;
    SmallVector<StringRef, 8> lines;
    StringRef(message).split(lines, '\n');
    const StringRef marker = "undefined symbol: ";
    for (StringRef line : lines)
        if (size_t at = line.find(marker); at != StringRef::npos)
            undefined.push_back(line.drop_front(at + marker.size()).str());
    if (undefined.empty())
        return fail(message);
    return make_error<UndefinedDeviceSymbols>(source, std::move(undefined), std::move(message));
}

char UndefinedDeviceSymbols::ID = 0;

void UndefinedDeviceSymbols::log(raw_ostream &os) const {
    os << linker_message << "simtcc: " << source << ": its device code uses ";
    for (size_t i = 0; i < names.size(); ++i)
        os << (i ? ", " : "") << '\'' << names[i] << '\'';
    os << ", which no device code of this compile defines (not " << source
       << ", nor simtcc's device runtime or libm)";
    if (!defined_elsewhere.empty()) {
        os << "; another translation unit of this link defines ";
        for (size_t i = 0; i < defined_elsewhere.size(); ++i)
            os << (i ? ", " : "") << defined_elsewhere[i];
        os << ": calls between .cu files need relocatable device code: compile them "
              "with -dc (or -rdc=true)";
    }
}

Expected<std::set<std::string>> Pipeline::deviceDefinitions(const std::string &source) {
    Expected<std::unique_ptr<Module>> module = deviceFrontEnd(source);
    if (!module)
        return module.takeError();
    std::set<std::string> names;
    for (const GlobalValue &value : (*module)->global_values())
        if (!value.isDeclaration() && value.hasExternalLinkage())
            names.insert(demangle(value.getName().str()));
    return names;
}

Error Pipeline::buildDeviceImage(DeviceModule &device, const std::string &image) {
    CallGraph graph = callGraphOf(*device.module);
    SmallString<128> object;
    if (std::error_code ec = sys::fs::createTemporaryFile("simtcc-device", "o", object))
        return fail("simtcc: cannot create a temporary file: " + ec.message());
    FileRemover removeObject(object);
    if (Error e = writeDeviceCode(device, std::string(object), false))
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
                        "provides " +
                        Twine(kThreadLocalBytes) + " zeroed bytes");
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
    for (size_t i = 0; i < device.kernels.size(); ++i) {
        KernelInfo &kernel = device.kernels[i];
        std::set<std::string> active;
        std::optional<uint64_t> depth =
            stackDepth(kernel.entry_symbol, graph, *frames, active, memo);
        uint64_t stack = alignTo(depth ? *depth : kUnboundedStack, 16);
        kernel.stack_bytes = static_cast<uint32_t>(stack);
        if (options_.verbose)
            errs() << "simtcc: kernel " << kernel.name << ": " << kernel.param_bytes
                   << " param bytes, " << kernel.static_shared_bytes << " shared bytes, " << stack
                   << " stack bytes" << (depth ? "" : " (unbounded call graph)") << '\n';
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
                            const std::string &object, bool managedVariables) {
    std::vector<std::string> args = frontendArgs(source, language, false);
    if (language == Language::Cuda)
        args.insert(args.end(), {"-Xclang", "-fcuda-include-gpubinary", "-Xclang", image});
    args.insert(args.end(), {"-o", object});
    trace(args);
    if (!managedVariables || language != Language::Cuda) {
        clang::EmitObjAction action(context_.get());
        return runFrontend(args, action, false, object);
    }
    // __managed__ variables: the front end's module, unoptimised, gets
    // their host accesses rewritten (managed_vars.h), then clang's own
    // optimisation and code generation, as EmitObjAction would run them.
    if (options_.verbose)
        errs() << "simtcc: host pass with __managed__ variables: lower-managed-host\n";
    clang::EmitLLVMOnlyAction action(context_.get());
    std::unique_ptr<clang::CompilerInstance> compiler;
    if (Error e = runFrontend(
            args, action, false, object,
            [](clang::CompilerInvocation &invocation) {
                invocation.getCodeGenOpts().DisableLLVMPasses = true;
            },
            false, &compiler))
        return e;
    std::unique_ptr<Module> module = action.takeModule();
    if (!module)
        return fail("simtcc: the front end produced no host module");
    if (Error e = lowerManagedVariablesForHost(*module))
        return e;
    std::string problems;
    raw_string_ostream problemStream(problems);
    if (verifyModule(*module, &problemStream))
        return fail("simtcc: internal error: invalid host module after lower-managed-host:\n" +
                    problemStream.str());
    std::error_code ec;
    auto out = std::make_unique<raw_fd_ostream>(object, ec, sys::fs::OF_None);
    if (ec)
        return fail("simtcc: cannot write " + object + ": " + ec.message());
    clang::CodeGenOptions codegen = compiler->getCodeGenOpts();
    codegen.DisableLLVMPasses = false;
    clang::EmitBackendOutput(compiler->getDiagnostics(), compiler->getHeaderSearchOpts(), codegen,
                             compiler->getTargetOpts(), compiler->getLangOpts(),
                             compiler->getTarget().getDataLayoutString(), module.get(),
                             clang::Backend_EmitObj, std::move(out));
    if (compiler->getDiagnostics().hasErrorOccurred())
        return fail("simtcc: compilation failed");
    return Error::success();
}

Error Pipeline::linkHost(const std::vector<std::string> &objects, const std::string &executable) {
    std::vector<std::string> args = {toolchain_.clang, "--driver-mode=g++", "-fuse-ld=lld"};
    // The host compiler's options shape its link too (-fsanitize=, -fopenmp).
    args.insert(args.end(), options_.host_args.begin(), options_.host_args.end());
    args.insert(args.end(), objects.begin(), objects.end());
    args.insert(args.end(), {"-L", toolchain_.host_lib, "-Wl,-rpath," + toolchain_.host_lib});
    args.insert(args.end(), options_.extra_link_args.begin(), options_.extra_link_args.end());
    args.insert(args.end(), {"-lsimtcudart", "-o", executable});
    if (options_.verbose) {
        // As nvcc's -v shows its host link, with its LIBRARIES setting
        // (simtcc.cpp) verbatim: a command that repeats this link, which
        // CMake takes as the CUDA host link launcher.
        errs() << "#$ " << sys::fs::getMainExecutable(nullptr, (void *)&Toolchain::locate);
        for (const std::string &object : objects)
            errs() << " \"" << object << '"';
        errs() << "  \"-L" << toolchain_.host_lib << "\" -lsimtcudart -o \"" << executable
               << "\"\n";
    }
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
            return fail("simtcc: the host link step is not lld: " + Twine(job.getExecutable()));
        if (Error e = runLld(linkArgs, options_.verbose))
            return e;
    }
    return Error::success();
}

namespace {

// One -rdc host object's device code, as the device link finds it.
struct RelocatableUnit {
    std::string name; // the object, or ARCHIVE(MEMBER)
    std::string module_id;
    std::string bitcode;
};

// Collects the -rdc device code of one object (none in a plain host
// object) and the registrations it defines (a -dlink object's).
Error scanObject(MemoryBufferRef buffer, const std::string &name,
                 std::vector<RelocatableUnit> &units, std::set<std::string> &registered) {
    Expected<std::unique_ptr<object::ObjectFile>> file =
        object::ObjectFile::createObjectFile(buffer);
    if (!file) { // not an object: the host link says what is wrong with it
        consumeError(file.takeError());
        return Error::success();
    }
    RelocatableUnit unit{name, "", ""};
    bool relocatable = false;
    for (const object::SectionRef &section : (*file)->sections()) {
        Expected<StringRef> section_name = section.getName();
        if (!section_name) {
            consumeError(section_name.takeError());
            continue;
        }
        if (*section_name != kRelocatableSection && *section_name != kModuleIdSection)
            continue;
        Expected<StringRef> contents = section.getContents();
        if (!contents)
            return contents.takeError();
        if (*section_name == kRelocatableSection) {
            unit.bitcode = contents->str();
            relocatable = true;
        } else {
            unit.module_id = contents->split('\0').first.str();
        }
    }
    for (const object::SymbolRef &symbol : (*file)->symbols()) {
        Expected<uint32_t> flags = symbol.getFlags();
        Expected<StringRef> symbol_name = symbol.getName();
        if (!flags || !symbol_name) {
            consumeError(flags.takeError());
            consumeError(symbol_name.takeError());
            continue;
        }
        if (!(*flags & object::SymbolRef::SF_Undefined) &&
            symbol_name->consume_front(kRegisterLinkedBinary))
            registered.insert(symbol_name->str());
    }
    if (!relocatable)
        return Error::success();
    if (unit.module_id.empty())
        return fail("simtcc: " + name + " holds relocatable device code but no " +
                    kModuleIdSection + " section");
    units.push_back(std::move(unit));
    return Error::success();
}

// Every symbol the device runtime, picolibc's libm and libc define.
Expected<std::set<std::string>> archiveSymbols(const std::vector<std::string> &archives) {
    std::set<std::string> symbols;
    for (const std::string &path : archives) {
        ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path);
        if (!buffer)
            return fail("simtcc: cannot read " + path);
        Expected<std::unique_ptr<object::Archive>> archive =
            object::Archive::create((*buffer)->getMemBufferRef());
        if (!archive)
            return archive.takeError();
        for (const object::Archive::Symbol &symbol : (*archive)->symbols())
            symbols.insert(symbol.getName().str());
    }
    return symbols;
}

// The device link's host object: the image, and the registration function
// each -rdc object's constructor calls. The first registers the image,
// every one then registers its own kernels and variables in it.
std::string deviceLinkSource(const std::string &image, const std::vector<std::string> &module_ids) {
    std::string source = R"(__asm__(".section .rodata.simtgpu_device_link,\"a\",@progbits\n"
	".balign 16\n"
	"simtgpu_device_link_image:\n"
	".incbin \")" + image +
                         R"(\"\n"
	".previous\n");
extern const char simtgpu_device_link_image[];
struct fatbin_wrapper { int magic, version; const void *data; void *unused; };
static const struct fatbin_wrapper wrapper = {0x466243b1, 1, simtgpu_device_link_image, 0};
void **__cudaRegisterFatBinary(void *);
void __cudaRegisterFatBinaryEnd(void **);
void __cudaUnregisterFatBinary(void **);
int atexit(void (*)(void));
static void **handle;
static void unregister(void) { __cudaUnregisterFatBinary(handle); }
static void register_unit(void (*register_globals)(void **))
{
	if (!handle) {
		handle = __cudaRegisterFatBinary((void *)&wrapper);
		atexit(unregister);
	}
	register_globals(handle);
	__cudaRegisterFatBinaryEnd(handle);
}
)";
    for (const std::string &id : module_ids)
        source += std::string("void ") + kRegisterLinkedBinary + id +
                  "(void (*r)(void **), void *w, void *id, void (*c)(void **))\n"
                  "{\n\t(void)w, (void)id, (void)c;\n\tregister_unit(r);\n}\n";
    return source;
}

} // namespace

Expected<bool> Pipeline::linkRelocatableDevice(const std::vector<std::string> &objects,
                                               const std::string &object) {
    std::vector<RelocatableUnit> units;
    std::set<std::string> registered;
    for (const std::string &path : objects) {
        ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path, false, false);
        if (!buffer)
            continue; // the host link says what is wrong with it
        if (identify_magic((*buffer)->getBuffer()) != file_magic::archive) {
            if (Error e = scanObject((*buffer)->getMemBufferRef(), path, units, registered))
                return e;
            continue;
        }
        Expected<std::unique_ptr<object::Archive>> archive =
            object::Archive::create((*buffer)->getMemBufferRef());
        if (!archive) {
            consumeError(archive.takeError());
            continue;
        }
        Error error = Error::success();
        for (const object::Archive::Child &child : (*archive)->children(error)) {
            Expected<MemoryBufferRef> member = child.getMemoryBufferRef();
            Expected<StringRef> name = child.getName();
            if (!member || !name) {
                consumeError(member.takeError());
                consumeError(name.takeError());
                continue;
            }
            if (Error e = scanObject(*member, path + "(" + name->str() + ")", units, registered))
                return e;
        }
        if (error)
            return error;
    }
    // Left out: objects a -dlink object among the inputs already linked,
    // and an object given twice.
    std::vector<const RelocatableUnit *> todo;
    std::vector<std::string> module_ids;
    for (const RelocatableUnit &unit : units)
        if (!registered.count(unit.module_id) &&
            std::find(module_ids.begin(), module_ids.end(), unit.module_id) == module_ids.end()) {
            todo.push_back(&unit);
            module_ids.push_back(unit.module_id);
        }
    if (todo.empty())
        return false;
    if (options_.verbose)
        errs() << "simtcc: device link of " << todo.size() << " -rdc objects -> " << object << '\n';

    // The linker reports through the context: collect, do not exit.
    std::string diagnostics;
    context_->setDiagnosticHandlerCallBack(
        [](const DiagnosticInfo &info, void *out) {
            raw_string_ostream stream(*static_cast<std::string *>(out));
            DiagnosticPrinterRawOStream printer(stream);
            info.print(printer);
            stream << '\n';
        },
        &diagnostics);
    auto merged = std::make_unique<Module>("simtcc-device-link", *context_);
    Linker linker(*merged);
    std::map<std::string, std::vector<std::string>> referenced_by;
    std::optional<uint64_t> arch;
    std::string arch_from;
    Error result = Error::success();
    for (const RelocatableUnit *unit : todo) {
        Expected<std::unique_ptr<Module>> module =
            parseBitcodeFile(MemoryBufferRef(unit->bitcode, unit->name), *context_);
        if (!module) {
            result = fail("simtcc: " + unit->name +
                          ": unreadable device bitcode: " + toString(module.takeError()));
            break;
        }
        auto *flag = mdconst::extract_or_null<ConstantInt>((*module)->getModuleFlag(kArchFlag));
        const uint64_t unit_arch = flag ? flag->getZExtValue() : options_.arch;
        if (arch && *arch != unit_arch) {
            result = fail("simtcc: error: " + unit->name + " was compiled for simt_" +
                          Twine(unit_arch) + " and " + arch_from + " for simt_" + Twine(*arch) +
                          ": compile every -dc object with the same -arch");
            break;
        }
        arch = unit_arch;
        arch_from = unit->name;
        for (const GlobalValue &value : (*module)->global_values())
            if (value.isDeclaration() && !value.getName().startswith("llvm."))
                referenced_by[value.getName().str()].push_back(unit->name);
        if (linker.linkInModule(std::move(*module))) {
            result =
                fail("simtcc: error: the device link of " + unit->name + " failed: " + diagnostics);
            break;
        }
    }
    context_->setDiagnosticHandlerCallBack(nullptr);
    if (result)
        return result;

    Expected<DeviceModule> device = lowerDevice(std::move(merged));
    if (!device)
        return device.takeError();
    // What no object defines and the device runtime does not provide either,
    // named with the objects that use it (lld would name a temporary file).
    Expected<std::set<std::string>> provided =
        archiveSymbols({toolchain_.device_runtime, join(toolchain_.picolibc, "libm.a"),
                        join(toolchain_.picolibc, "libc.a")});
    if (!provided)
        return provided.takeError();
    std::string missing;
    for (const GlobalValue &value : device->module->global_values()) {
        const std::string name = value.getName().str();
        auto users = referenced_by.find(name);
        if (!value.isDeclaration() || value.use_empty() || users == referenced_by.end() ||
            provided->count(name))
            continue;
        missing += "\n  '" + demangle(name) + "'" +
                   (demangle(name) != name ? " (" + name + ")" : "") + ", used by";
        for (const std::string &user : users->second)
            missing += " " + user;
    }
    if (!missing.empty())
        return fail("simtcc: error: undefined device symbols in the device link:" + missing +
                    "\n  define each in a .cu compiled with -dc (or -rdc=true) and link its "
                    "object too");

    SmallString<128> image, source;
    if (std::error_code ec = sys::fs::createTemporaryFile("simtcc-linked", "elf", image))
        return fail("simtcc: cannot create a temporary file: " + ec.message());
    FileRemover remove_image(image);
    if (std::error_code ec = sys::fs::createTemporaryFile("simtcc-dlink", "c", source))
        return fail("simtcc: cannot create a temporary file: " + ec.message());
    FileRemover remove_source(source);
    if (Error e = buildDeviceImage(*device, std::string(image)))
        return e;
    {
        std::error_code ec;
        raw_fd_ostream out(source, ec, sys::fs::OF_Text);
        if (ec)
            return fail("simtcc: cannot write " + source + ": " + ec.message());
        out << deviceLinkSource(std::string(image), module_ids);
    }
    // PIC: the object may go into a shared library (nvcc -dlink -shared).
    std::vector<std::string> args = {toolchain_.clang,    "-x", "c",   "-O2", "-fPIC", "-c",
                                     std::string(source), "-o", object};
    trace(args);
    clang::EmitObjAction action(context_.get());
    if (Error e = runFrontend(args, action, false, object))
        return e;
    return true;
}

} // namespace simtcc
