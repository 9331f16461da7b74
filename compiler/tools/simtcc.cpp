// SPDX-License-Identifier: MIT
// simtcc: the CUDA compiler driver for simtgpu, used like nvcc. It parses
// the command line into a plan and runs the steps of pipeline.h; every
// error is returned up to here and printed once.
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include "pipeline.h"
#include "simtcc_config.h"
#include "simtgpu/hw.h"

using namespace llvm;
using simtcc::Language;

namespace {

constexpr const char *kUsage = R"(usage: simtcc [options] file...

Compiles CUDA (.cu), C++ (.cpp .cc .cxx) and C (.c) sources for the simtgpu
device and the host, and links them with objects (.o .a .so) and the CUDA
runtime (libsimtcudart).

  -o FILE            output file (default a.out, or per input with -c/-S)
  -c                 compile only: one host object per source, device image
                     embedded
  -rdc=true          relocatable device code: device code kept as bitcode in
                     the host object, linked into one image at the link
  -dc                -rdc=true -c (nvcc's --device-c); -dw: -rdc=false -c
  -dlink             device link of -dc objects into one host object
                     (default a_dlink.o) for any host linker
  --device-only      build the device image (ELF) of each .cu only
  -S                 device assembly (RISC-V) of each .cu
  --emit-llvm        device LLVM IR after simtcc's passes, of each .cu
  -arch=simt_N       device architecture (simt_1, simt_2; default simt_%u)
  -arch=sm_NN, -gencode arch=compute_NN,code=..., --generate-code=...
                     NVIDIA targets: accepted, building for the default simt_N
  -x cu|c++|c        the language of every source, whatever its suffix
  -shared            link a shared library
  -forward-unknown-to-host-compiler
                     unknown options go to the host compiler, not refused
  --keep, --keep-dir DIR
                     accepted: no intermediate files to keep
  -I DIR, -D M[=V], -U M, -include FILE, -std=STD
                     passed to the front end
  -O0 .. -O3         optimisation level (default -O2)
  -g, -G             debug information
  -lineinfo          accepted: device code always keeps its source lines
  -L DIR, -l LIB, -Wl,ARGS
                     passed to the host link
  -Xcompiler A,B     to the host compiler only (host passes and host link)
  -Xlinker A,B       to the host link (as -Wl,A -Wl,B)
  -w, -Werror KIND,... (all-warnings or a clang warning group)
  -fmad=false        no multiply-add contraction
  -M, -MM           write the sources' make dependencies (to stdout, -o or
                     -MF) instead of compiling
  -MD, -MMD          write them beside compiling (default NAME.d next to the
                     object); MM: without system headers
  -MF FILE, -MT TARGET, -MP
                     the dependency file, its target (default the object)
                     and phony targets for the headers
  -m64, -ftz=, -prec-div=, -prec-sqrt=, -use_fast_math,
  --expt-relaxed-constexpr, --expt-extended-lambda, --extended-lambda
                     accepted: simtgpu's floats are IEEE, clang needs no flag

Options are read as nvcc reads them: long names (--output-file, --library,
--include-path, --define-macro, --gpu-architecture, --optimize, ...), a value
after '=' or as the next argument, and -I -D -U -L -l -O also joined to their
value (-Idir); an exact option name always wins over such a prefix.
  @FILE, --options-file FILE,... (-optf)
                     read options from FILE (GNU quoting; a file may name
                     more with @)
  -v                 show every step
  --version          show the version
  --help             show this text
)";

enum class Mode { Link, Compile, DeviceLink, DeviceOnly, Assembly, EmitLlvm };

struct Input {
    std::string path;
    std::optional<Language> language; // nullopt: an object to link
};

// nvcc's dependency output: -M/-MM instead of compiling, -MD/-MMD beside it
// (MM: without system headers).
enum class Deps { None, Only, OnlyUser, WithCompile, WithCompileUser };

struct Plan {
    Mode mode = Mode::Link;
    Deps deps = Deps::None;
    std::string dep_file;                 // -MF
    std::vector<std::string> dep_targets; // -MT
    bool dep_phony = false;               // -MP
    std::string output;
    std::vector<Input> inputs;
    simtcc::CompileOptions options;
    std::optional<Language> language; // -x
    bool forward_unknown = false;     // -forward-unknown-to-host-compiler
    bool help = false, version = false;
};

std::optional<Language> languageOf(StringRef path) {
    StringRef ext = sys::path::extension(path);
    if (ext == ".cu")
        return Language::Cuda;
    if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C")
        return Language::Cxx;
    if (ext == ".c")
        return Language::C;
    return std::nullopt;
}

Error optionError(const Twine &message) {
    return createStringError(inconvertibleErrorCode(), "simtcc: error: " + message);
}

// One option as nvcc spells it (`nvcc --help`): its short and long names,
// whether it takes a value, and what it does to the plan. A value follows
// as the next argument or after '='; the one-letter options below that nvcc
// lets run into their value (-Idir, -DM, -Ldir, -llib, -O3) also take it
// that way, but only after every exact name failed to match, so -lineinfo
// is -lineinfo and not -l ineinfo.
struct NvccOption {
    StringRef short_name, long_name;
    bool takes_value;
    Error (*apply)(Plan &plan, StringRef flag, StringRef value);
};

// sm_70, compute_70, lto_70, and nvcc's all, all-major, native.
bool isNvidiaArch(StringRef name) {
    unsigned number = 0;
    StringRef rest = name;
    if (rest.consume_front("sm_") || rest.consume_front("compute_") || rest.consume_front("lto_"))
        return !rest.rtrim("af").getAsInteger(10, number);
    return name == "all" || name == "all-major" || name == "native";
}

Error setArch(Plan &plan, StringRef, StringRef name) {
    unsigned arch = 0;
    StringRef number = name;
    // NVIDIA's architectures (what build systems pass, CMake's
    // CUDA_ARCHITECTURES among them) name no simtgpu device: the default,
    // the newest simt_N, is built. Only simt_N chooses.
    if (isNvidiaArch(name))
        return Error::success();
    if (!number.consume_front("simt_") || number.getAsInteger(10, arch) ||
        arch < SIMTGPU_ARCH_SIMT1 || arch > SIMTGPU_ARCH_NEWEST)
        return optionError("unknown device architecture '" + name + "' (known: simt_1 .. simt_" +
                           Twine(SIMTGPU_ARCH_NEWEST) + ")");
    plan.options.arch = arch;
    return Error::success();
}

Error setOptLevel(Plan &plan, StringRef flag, StringRef level) {
    if (level.empty())
        level = "2"; // -O without a level
    if (level.size() != 1 || level[0] < '0' || level[0] > '3')
        return optionError("unsupported optimisation level '" + flag + level +
                           "' (use -O0 to -O3)");
    plan.options.opt_level = level[0] - '0';
    return Error::success();
}

// -gencode / --generate-code arch=compute_NN,code=[...]: NVIDIA targets,
// accepted as -arch=sm_NN is.
Error generateCode(Plan &, StringRef flag, StringRef value) {
    StringRef rest = value;
    if (rest.consume_front("arch=")) {
        auto [arch, after] = rest.split(',');
        if (!isNvidiaArch(arch))
            return optionError("'" + flag + "': unknown NVIDIA architecture '" + arch + "'");
        rest = after;
    }
    // code=sm_NN, compute_NN or a [list] of them: all NVIDIA targets.
    if (!rest.empty() && !rest.startswith("code="))
        return optionError("'" + flag + "' takes arch=compute_NN,code=... (got '" + value + "')");
    return Error::success();
}

// nvcc's -x: the language of every input, whatever its suffix.
Error setLanguage(Plan &plan, StringRef flag, StringRef value) {
    if (value == "cu")
        plan.language = Language::Cuda;
    else if (value == "c++" || value == "cpp")
        plan.language = Language::Cxx;
    else if (value == "c")
        plan.language = Language::C;
    else
        return optionError("'" + flag + "' takes cu, c++ or c (got '" + value + "')");
    return Error::success();
}

// -I, -D, -U as clang spells them, whichever of nvcc's spellings came in.
template <char Letter> Error frontendPair(Plan &plan, StringRef, StringRef value) {
    plan.options.frontend_args.push_back(std::string("-") + Letter + value.str());
    return Error::success();
}

template <char Letter> Error linkPair(Plan &plan, StringRef, StringRef value) {
    plan.options.extra_link_args.push_back(std::string("-") + Letter + value.str());
    return Error::success();
}

Error nothing(Plan &, StringRef, StringRef) {
    return Error::success();
}

// An nvcc option simtcc has no counterpart for: refused by its own name,
// never read as a shorter option with a value (-lib is not -l ib).
Error unsupported(Plan &, StringRef flag, StringRef) {
    return optionError("nvcc's '" + flag + "' is not supported by simtcc");
}

// nvcc's -Xcompiler and -Xlinker take a comma-separated list.
template <bool Linker> Error hostList(Plan &plan, StringRef, StringRef list) {
    SmallVector<StringRef, 4> items;
    list.split(items, ',', -1, false);
    for (StringRef item : items) {
        if (Linker)
            plan.options.extra_link_args.push_back("-Wl," + item.str());
        else
            plan.options.host_args.push_back(item.str());
    }
    return Error::success();
}

Error frontendFlag(Plan &plan, StringRef flag) {
    plan.options.frontend_args.push_back(flag.str());
    return Error::success();
}

// nvcc's true/false values (-rdc, -ftz, -fmad, -prec-div, -prec-sqrt).
Expected<bool> boolValue(StringRef flag, StringRef value) {
    if (value == "true")
        return true;
    if (value == "false")
        return false;
    return optionError("'" + flag + "' takes true or false (got '" + value + "')");
}

template <Deps D> Error setDeps(Plan &plan, StringRef, StringRef) {
    plan.deps = D;
    return Error::success();
}

// -rdc=true: each .cu's device code kept as bitcode in its host object and
// linked into one device image at the link (simtcc.md, "Relocatable device
// code").
Error setRdc(Plan &plan, StringRef flag, StringRef value) {
    Expected<bool> rdc = boolValue(flag, value);
    if (!rdc)
        return rdc.takeError();
    plan.options.rdc = *rdc;
    return Error::success();
}

// -ftz, -prec-div, -prec-sqrt: nvcc lets device code flush denormals or
// approximate division and square roots; simtgpu's are always IEEE, which
// either value allows.
Error ieeeAlways(Plan &, StringRef flag, StringRef value) {
    Expected<bool> b = boolValue(flag, value);
    return b ? Error::success() : b.takeError();
}

// -fmad=false: no multiply-add contraction (clang's CUDA default fuses).
Error setFmad(Plan &plan, StringRef flag, StringRef value) {
    Expected<bool> fmad = boolValue(flag, value);
    if (!fmad)
        return fmad.takeError();
    return *fmad ? Error::success() : frontendFlag(plan, "-ffp-contract=off");
}

// nvcc's -Werror takes the kinds of warnings to make errors; its own kinds
// that simtcc never warns about change nothing, other names are clang's.
Error setWerror(Plan &plan, StringRef, StringRef list) {
    SmallVector<StringRef, 4> kinds;
    list.split(kinds, ',', -1, false);
    for (StringRef kind : kinds) {
        if (kind == "all-warnings")
            plan.options.frontend_args.push_back("-Werror");
        else if (kind != "cross-execution-space-call" && kind != "default-stream-launch" &&
                 kind != "missing-launch-bounds" && kind != "ext-lambda-captures-this")
            plan.options.frontend_args.push_back("-Werror=" + kind.str());
    }
    return Error::success();
}

const NvccOption kNvccOptions[] = {
    {"-h", "--help", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.help = true;
         return Error::success();
     }},
    {"", "--version", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.version = true;
         return Error::success();
     }},
    {"-v", "--verbose", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.options.verbose = true;
         return Error::success();
     }},
    {"-c", "--compile", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.mode = Mode::Compile;
         return Error::success();
     }},
    {"-S", "", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.mode = Mode::Assembly;
         return Error::success();
     }},
    {"-emit-llvm", "--emit-llvm", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.mode = Mode::EmitLlvm;
         return Error::success();
     }},
    {"", "--device-only", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.mode = Mode::DeviceOnly;
         return Error::success();
     }},
    {"", "--cuda-device-only", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.mode = Mode::DeviceOnly;
         return Error::success();
     }},
    {"-link", "--link", false, nothing}, // the default mode
    // nvcc keeps its intermediate files; simtcc's stay in memory or are
    // temporary (-S, --emit-llvm and --device-only write them on request).
    {"-shared", "--shared", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.options.extra_link_args.push_back("-shared"); // a -dlink object is always PIC
         return Error::success();
     }},
    {"-keep", "--keep", false, nothing},
    {"-keep-dir", "--keep-dir", true, nothing},
    {"-g", "--debug", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.options.debug = true;
         return Error::success();
     }},
    {"-G", "--device-debug", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.options.debug = true;
         return Error::success();
     }},
    // Device code always keeps its source lines (simtcc.md): nothing to do.
    {"-lineinfo", "--generate-line-info", false, nothing},
    {"-o", "--output-file", true,
     [](Plan &p, StringRef, StringRef v) -> Error {
         p.output = v.str();
         return Error::success();
     }},
    {"-arch", "--gpu-architecture", true, setArch},
    {"-gencode", "--generate-code", true, generateCode},
    {"-code", "--gpu-code", true,
     [](Plan &p, StringRef flag, StringRef v) -> Error {
         return generateCode(p, flag, "code=" + v.str());
     }},
    {"-x", "--x", true, setLanguage},
    {"-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.forward_unknown = true;
         return Error::success();
     }},
    {"-O", "--optimize", true, setOptLevel},
    {"-I", "--include-path", true, frontendPair<'I'>},
    {"-D", "--define-macro", true, frontendPair<'D'>},
    {"-U", "--undefine-macro", true, frontendPair<'U'>},
    {"-include", "--pre-include", true,
     [](Plan &p, StringRef, StringRef v) -> Error {
         p.options.frontend_args.insert(p.options.frontend_args.end(), {"-include", v.str()});
         return Error::success();
     }},
    {"-std", "--std", true,
     [](Plan &p, StringRef, StringRef v) -> Error {
         p.options.frontend_args.push_back("-std=" + v.str());
         return Error::success();
     }},
    {"-Xcompiler", "--compiler-options", true, hostList<false>},
    {"-Xlinker", "--linker-options", true, hostList<true>},
    {"-L", "--library-path", true, linkPair<'L'>},
    {"-lib", "--lib", false, unsupported},
    {"-l", "--library", true, linkPair<'l'>},
    {"-w", "--disable-warnings", false,
     [](Plan &p, StringRef, StringRef) { return frontendFlag(p, "-w"); }},
    {"-Werror", "--Werror", true, setWerror},
    {"-rdc", "--relocatable-device-code", true, setRdc},
    {"-dc", "--device-c", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.mode = Mode::Compile;
         p.options.rdc = true;
         return Error::success();
     }},
    {"-dw", "--device-w", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.mode = Mode::Compile;
         p.options.rdc = false;
         return Error::success();
     }},
    {"-dlink", "--device-link", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.mode = Mode::DeviceLink;
         return Error::success();
     }},
    {"-M", "--generate-dependencies", false, setDeps<Deps::Only>},
    {"-MM", "--generate-nonsystem-dependencies", false, setDeps<Deps::OnlyUser>},
    {"-MD", "--generate-dependencies-with-compile", false, setDeps<Deps::WithCompile>},
    {"-MMD", "--generate-nonsystem-dependencies-with-compile", false,
     setDeps<Deps::WithCompileUser>},
    {"-MF", "--dependency-output", true,
     [](Plan &p, StringRef, StringRef v) -> Error {
         p.dep_file = v.str();
         return Error::success();
     }},
    {"-MT", "--dependency-target-name", true,
     [](Plan &p, StringRef, StringRef v) -> Error {
         p.dep_targets.push_back(v.str());
         return Error::success();
     }},
    {"-MP", "--generate-dependency-targets", false,
     [](Plan &p, StringRef, StringRef) -> Error {
         p.dep_phony = true;
         return Error::success();
     }},
    {"-m64", "", false, nothing}, // the host is 64-bit
    // clang allows what these allow in nvcc without being asked.
    {"-expt-relaxed-constexpr", "--expt-relaxed-constexpr", false, nothing},
    {"-expt-extended-lambda", "--expt-extended-lambda", false, nothing},
    {"-extended-lambda", "--extended-lambda", false, nothing},
    {"-ftz", "--ftz", true, ieeeAlways},
    {"-prec-div", "--prec-div", true, ieeeAlways},
    {"-prec-sqrt", "--prec-sqrt", true, ieeeAlways},
    {"-fmad", "--fmad", true, setFmad},
    // -ftz=true -prec-div=false -prec-sqrt=false: allowed, not needed; the
    // fast math intrinsics are the accurate functions (simtcc.md).
    {"-use_fast_math", "--use_fast_math", false, nothing},
    // nvcc's warning about deprecated targets, which simtcc has none of.
    {"-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets", false, nothing},
};

// The one-letter options nvcc lets run into their value.
bool joinsItsValue(StringRef short_name) {
    return short_name == "-I" || short_name == "-D" || short_name == "-U" || short_name == "-L" ||
           short_name == "-l" || short_name == "-O";
}

Expected<Plan> parse(ArrayRef<const char *> argv) {
    Plan plan;
    const size_t argc = argv.size();
    for (size_t i = 1; i < argc; ++i) {
        StringRef arg = argv[i];
        // Exact names first, with the value after '=' or next.
        auto [name, inline_value] = arg.split('=');
        const bool has_inline = arg.contains('=');
        const NvccOption *option = nullptr;
        for (const NvccOption &o : kNvccOptions)
            if ((!o.short_name.empty() && name == o.short_name) ||
                (!o.long_name.empty() && name == o.long_name))
                option = &o;
        StringRef value;
        if (option && option->takes_value) {
            if (has_inline) {
                value = inline_value;
            } else if (name == "-O") {
                value = ""; // -O alone: the default level
            } else if (i + 1 < argc) {
                value = argv[++i];
            } else {
                return optionError("missing argument to '" + name + "'");
            }
        } else if (option && has_inline) {
            return optionError("'" + name + "' takes no value (got '" + arg + "')");
        }
        // Then the one-letter options joined to their value (-Idir, -O3).
        if (!option) {
            for (const NvccOption &o : kNvccOptions)
                if (joinsItsValue(o.short_name) && arg.startswith(o.short_name)) {
                    option = &o;
                    value = arg.drop_front(o.short_name.size());
                }
        }
        if (option) {
            if (Error e = option->apply(
                    plan, option->short_name.empty() ? option->long_name : option->short_name,
                    value))
                return e;
        } else if ((arg.startswith("-W") && !arg.startswith("-Wl,")) || arg.startswith("-f")) {
            plan.options.frontend_args.push_back(arg.str());
        } else if (arg.startswith("-Wl,")) {
            plan.options.extra_link_args.push_back(arg.str());
        } else if (arg.startswith("-") && plan.forward_unknown) {
            plan.options.host_args.push_back(arg.str());
        } else if (arg.startswith("-")) {
            return optionError("unknown option '" + arg + "' (see --help)");
        } else {
            plan.inputs.push_back({arg.str(), languageOf(arg)});
        }
    }
    if (plan.help || plan.version)
        return plan;
    if (plan.inputs.empty())
        return optionError("no input files");
    if (plan.language)
        for (Input &input : plan.inputs) {
            StringRef ext = sys::path::extension(input.path);
            if (ext != ".o" && ext != ".a" && ext != ".so")
                input.language = plan.language;
        }
    size_t sources = 0;
    for (const Input &input : plan.inputs)
        sources += input.language.has_value();
    if (plan.mode != Mode::Link && !plan.output.empty() && sources > 1)
        return optionError("-o with -c, -S, --emit-llvm or --device-only needs a single source");
    if (!plan.dep_file.empty() && sources > 1)
        return optionError("-MF needs a single source (each source has its own dependencies)");
    if (plan.deps == Deps::None &&
        (!plan.dep_file.empty() || !plan.dep_targets.empty() || plan.dep_phony))
        return optionError("-MF, -MT and -MP need -M, -MM, -MD or -MMD");
    for (const Input &input : plan.inputs)
        if (plan.mode == Mode::DeviceLink && input.language)
            return optionError("-dlink links objects: compile '" + input.path + "' with -dc first");
    for (const Input &input : plan.inputs)
        if (plan.mode != Mode::Link && plan.mode != Mode::Compile &&
            plan.mode != Mode::DeviceLink && input.language != Language::Cuda)
            return optionError("'" + input.path + "' is not a CUDA source (.cu)");
    return plan;
}

std::string outputFor(const Plan &plan, const Input &input, StringRef extension) {
    if (!plan.output.empty())
        return plan.output;
    SmallString<128> name(sys::path::filename(input.path));
    sys::path::replace_extension(name, extension);
    return std::string(name);
}

// A temporary file removed when the driver exits.
class Temporary {
public:
    Expected<std::string> make(StringRef prefix, StringRef suffix) {
        SmallString<128> path;
        if (std::error_code ec = sys::fs::createTemporaryFile(prefix, suffix, path))
            return createStringError(ec, "simtcc: cannot create a temporary file");
        paths_.push_back(std::string(path));
        return paths_.back();
    }
    ~Temporary() {
        for (const std::string &p : paths_)
            sys::fs::remove(p);
    }

private:
    std::vector<std::string> paths_;
};

// The host compiler's options that write input's dependencies (its host
// pass sees every header the device pass does): where (-MF, else -o with
// -M, else stdout for -M and NAME.d beside the object for -MD) and for
// which target (-MT, else the object, NAME.o without -c).
std::vector<std::string> dependencyArgs(const Plan &plan, const Input &input) {
    const bool only = plan.deps == Deps::Only || plan.deps == Deps::OnlyUser;
    const bool user = plan.deps == Deps::OnlyUser || plan.deps == Deps::WithCompileUser;
    const std::string object = plan.mode == Mode::Compile && !only ? outputFor(plan, input, "o")
                                                                   : outputFor(Plan(), input, "o");
    std::string file = plan.dep_file;
    if (file.empty() && only)
        file = plan.output.empty() ? "-" : plan.output;
    if (file.empty()) {
        SmallString<128> d(object);
        sys::path::replace_extension(d, "d");
        file = std::string(d);
    }
    std::vector<std::string> args = {user ? "-MMD" : "-MD", "-MF", file};
    if (plan.dep_targets.empty())
        args.insert(args.end(), {"-MT", object});
    for (const std::string &t : plan.dep_targets)
        args.insert(args.end(), {"-MT", t});
    if (plan.dep_phony)
        args.push_back("-MP");
    return args;
}

// A device image with undefined symbols: whether another .cu of this
// command line defines them (then -rdc is what is missing).
Error findDefinitions(Error error, const Plan &plan, const Input &input,
                      simtcc::Pipeline &pipeline) {
    return handleErrors(
        std::move(error), [&](std::unique_ptr<simtcc::UndefinedDeviceSymbols> undefined) -> Error {
            for (const Input &other : plan.inputs) {
                if (other.language != Language::Cuda || other.path == input.path)
                    continue;
                Expected<std::set<std::string>> defined = pipeline.deviceDefinitions(other.path);
                if (!defined) {
                    consumeError(defined.takeError()); // its own compile reports it
                    continue;
                }
                for (const std::string &name : undefined->names)
                    if (defined->count(name))
                        undefined->defined_elsewhere.push_back("'" + name + "' (in " + other.path +
                                                               ")");
            }
            return Error(std::move(undefined));
        });
}

Error run(const Plan &plan, const simtcc::Toolchain &toolchain, simtcc::Pipeline &pipeline,
          Temporary &temporaries) {
    std::vector<std::string> objects;
    for (const Input &input : plan.inputs) {
        if (!input.language) {
            objects.push_back(input.path);
            continue;
        }
        if (plan.deps == Deps::Only || plan.deps == Deps::OnlyUser) {
            // -M: the host pass alone, for its dependencies; no output.
            simtcc::CompileOptions options = plan.options;
            std::vector<std::string> deps = dependencyArgs(plan, input);
            options.host_args.insert(options.host_args.end(), deps.begin(), deps.end());
            // An empty image stands in for the device code it does not build.
            Expected<std::string> object = temporaries.make("simtcc-deps", "o");
            if (!object)
                return object.takeError();
            Expected<std::string> image = temporaries.make("simtcc-deps", "elf");
            if (!image)
                return image.takeError();
            if (Error e = simtcc::Pipeline(toolchain, options)
                              .compileHost(input.path, *input.language, *image, *object))
                return e;
            continue;
        }
        switch (plan.mode) {
        case Mode::DeviceOnly:
            if (Error e = pipeline.buildDeviceImage(input.path, outputFor(plan, input, "elf")))
                return e;
            continue;
        case Mode::Assembly:
        case Mode::EmitLlvm: {
            Expected<simtcc::DeviceModule> device = pipeline.compileDevice(input.path);
            if (!device)
                return device.takeError();
            if (plan.mode == Mode::EmitLlvm) {
                if (Error e = pipeline.writeDeviceIR(*device, outputFor(plan, input, "ll")))
                    return e;
            } else if (Error e =
                           pipeline.writeDeviceCode(*device, outputFor(plan, input, "s"), true)) {
                return e;
            }
            continue;
        }
        case Mode::Compile:
        case Mode::Link:
        case Mode::DeviceLink:
            break;
        }
        // The device code the host object carries: its image, or with -rdc
        // the bitcode the device link takes.
        std::string image;
        if (input.language == Language::Cuda) {
            Expected<std::string> path =
                temporaries.make("simtcc-image", plan.options.rdc ? "bc" : "elf");
            if (!path)
                return path.takeError();
            image = *path;
            if (Error e = plan.options.rdc ? pipeline.writeDeviceBitcode(input.path, image)
                                           : pipeline.buildDeviceImage(input.path, image))
                return findDefinitions(std::move(e), plan, input, pipeline);
        }
        std::string object;
        if (plan.mode == Mode::Compile) {
            object = outputFor(plan, input, "o");
        } else {
            Expected<std::string> path = temporaries.make("simtcc-host", "o");
            if (!path)
                return path.takeError();
            object = *path;
        }
        const bool managed = pipeline.definesManagedVariables(input.path);
        if (plan.deps == Deps::None) {
            if (Error e = pipeline.compileHost(input.path, *input.language, image, object, managed))
                return e;
        } else {
            simtcc::CompileOptions options = plan.options;
            std::vector<std::string> deps = dependencyArgs(plan, input);
            options.host_args.insert(options.host_args.end(), deps.begin(), deps.end());
            if (Error e = simtcc::Pipeline(toolchain, options)
                              .compileHost(input.path, *input.language, image, object, managed))
                return e;
        }
        objects.push_back(object);
    }
    if (plan.deps == Deps::Only || plan.deps == Deps::OnlyUser)
        return Error::success();
    if (plan.mode == Mode::DeviceLink) {
        const std::string output = plan.output.empty() ? "a_dlink.o" : plan.output;
        Expected<bool> linked = pipeline.linkRelocatableDevice(objects, output);
        if (!linked)
            return linked.takeError();
        if (!*linked)
            return optionError("-dlink: no relocatable device code in the inputs (compile "
                               "the .cu sources with -dc or -rdc=true)");
        return Error::success();
    }
    if (plan.mode != Mode::Link)
        return Error::success();
    // nvcc links the device code of -rdc objects at the link, unless a
    // -dlink object among them already did.
    Expected<std::string> device_link = temporaries.make("simtcc-dlink", "o");
    if (!device_link)
        return device_link.takeError();
    Expected<bool> linked = pipeline.linkRelocatableDevice(objects, *device_link);
    if (!linked)
        return linked.takeError();
    if (*linked)
        objects.push_back(*device_link);
    return pipeline.linkHost(objects, plan.output.empty() ? "a.out" : plan.output);
}

// nvcc reads options from files: `@FILE` (a response file, GNU quoting, as
// CMake's Makefile generator passes object lists) and `--options-file
// FILE,...` (-optf), each file's options standing where it was named; a
// file may name more files with @.
Error expandOptionFiles(int argc, char **argv, StringSaver &saver,
                        SmallVectorImpl<const char *> &args) {
    args.push_back(argv[0]);
    for (int i = 1; i < argc; ++i) {
        StringRef arg = argv[i], files;
        if (arg == "--options-file" || arg == "-optf") {
            if (i + 1 == argc)
                return optionError("missing argument to '" + arg + "'");
            files = argv[++i];
        } else if (!arg.consume_front("--options-file=") && !arg.consume_front("-optf=")) {
            args.push_back(argv[i]);
            continue;
        } else {
            files = arg;
        }
        SmallVector<StringRef, 2> names;
        files.split(names, ',', -1, false);
        for (StringRef name : names)
            args.push_back(saver.save("@" + name).data());
    }
    for (const char *arg : args)
        if (arg[0] == '@' && !sys::fs::exists(arg + 1))
            return optionError(Twine("cannot read the options file '") + (arg + 1) +
                               "': no such file");
    cl::ExpansionContext expansion(saver.getAllocator(), cl::TokenizeGNUCommandLine);
    if (Error e = expansion.expandResponseFiles(args))
        return optionError("reading an options file: " + toString(std::move(e)));
    return Error::success();
}

} // namespace

int main(int argc, char **argv) {
    InitLLVM init(argc, argv);
    BumpPtrAllocator allocator;
    StringSaver saver(allocator);
    SmallVector<const char *, 64> args;
    if (Error e = expandOptionFiles(argc, argv, saver, args)) {
        errs() << toString(std::move(e)) << '\n';
        return 1;
    }
    Expected<Plan> plan = parse(args);
    if (!plan) {
        errs() << toString(plan.takeError()) << '\n';
        return 1;
    }
    if (plan->help) {
        outs() << format(kUsage, SIMTGPU_ARCH_NEWEST);
        return 0;
    }
    if (plan->version) {
        outs() << "simtcc " SIMTCC_VERSION " (simtgpu CUDA compiler; clang/LLVM/lld "
               << SIMTCC_LLVM_VERSION << ", device simt_1..simt_" << SIMTGPU_ARCH_NEWEST
               << ", RV64GC lp64d)\n"
               // nvcc's own first line and release, read by build systems
               // (CMake identifies nvcc and its toolkit version by them):
               // simtcc takes nvcc's options and models CUDA 11.8's API.
               << "as nvcc: NVIDIA (R) Cuda compiler driver options; Cuda compilation tools, "
                  "release 11.8, V11.8.89 (the CUDA runtime API simtgpu models)\n";
        return 0;
    }
    simtcc::Toolchain toolchain = simtcc::Toolchain::locate(argv[0]);
    if (plan->options.verbose) {
        // nvcc's -v settings lines, which build systems read (CMake finds
        // the toolkit, the host link line and its libraries from them).
        std::string exe = sys::fs::getMainExecutable(argv[0], (void *)&main);
        StringRef bin = sys::path::parent_path(exe);
        const char *path = std::getenv("PATH");
        // NVVMIR_LIBRARY_DIR names no directory (simtgpu's libdevice is
        // lib/simtgpu/libsimtcc_device.a): CMake takes its CUDA library
        // root, the prefix, from it.
        errs() << "#$ _SPACE_= \n#$ TOP=" << sys::path::parent_path(bin)
               << "\n#$ NVVMIR_LIBRARY_DIR=" << sys::path::parent_path(bin)
               << "/nvvm/libdevice\n#$ PATH=" << bin << (path ? ":" : "") << (path ? path : "")
               << "\n#$ INCLUDES=\"-I" << toolchain.cuda_include << "\"\n#$ LIBRARIES=  \"-L"
               << toolchain.host_lib << "\"\n";
    }
    simtcc::Pipeline pipeline(toolchain, plan->options);
    Temporary temporaries;
    if (Error e = run(*plan, toolchain, pipeline, temporaries)) {
        errs() << toString(std::move(e)) << '\n';
        return 1;
    }
    return 0;
}
