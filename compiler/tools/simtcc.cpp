// SPDX-License-Identifier: MIT
// simtcc: the CUDA compiler driver for simtgpu, used like nvcc. It parses
// the command line into a plan and runs the steps of pipeline.h; every
// error is returned up to here and printed once.
#include <cstdio>
#include <string>
#include <vector>

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
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
  --device-only      build the device image (ELF) of each .cu only
  -S                 device assembly (RISC-V) of each .cu
  --emit-llvm        device LLVM IR after simtcc's passes, of each .cu
  -arch=simt_N       device architecture (simt_1, simt_2; default simt_%u)
  -I DIR, -D M[=V], -U M, -include FILE, -std=STD
                     passed to the front end
  -O0 .. -O3         optimisation level (default -O2)
  -g                 debug information
  -L DIR, -l LIB, -Wl,ARGS
                     passed to the host link
  -v                 show every step
  --version          show the version
  --help             show this text
)";

enum class Mode { Link, Compile, DeviceOnly, Assembly, EmitLlvm };

struct Input {
	std::string path;
	std::optional<Language> language; // nullopt: an object to link
};

struct Plan {
	Mode mode = Mode::Link;
	std::string output;
	std::vector<Input> inputs;
	simtcc::CompileOptions options;
	bool help = false, version = false;
};

std::optional<Language> languageOf(StringRef path)
{
	StringRef ext = sys::path::extension(path);
	if (ext == ".cu")
		return Language::Cuda;
	if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C")
		return Language::Cxx;
	if (ext == ".c")
		return Language::C;
	return std::nullopt;
}

Expected<Plan> parse(int argc, char **argv)
{
	Plan plan;
	auto error = [](const Twine &message) {
		return createStringError(inconvertibleErrorCode(), "simtcc: error: " + message);
	};
	for (int i = 1; i < argc; ++i) {
		StringRef arg = argv[i];
		auto value = [&](StringRef flag) -> Expected<std::string> {
			if (arg.size() > flag.size())
				return arg.drop_front(flag.size()).str();
			if (i + 1 >= argc)
				return error("missing argument to '" + flag + "'");
			return std::string(argv[++i]);
		};
		if (arg == "--help" || arg == "-h") {
			plan.help = true;
		} else if (arg == "--version") {
			plan.version = true;
		} else if (arg == "-v") {
			plan.options.verbose = true;
		} else if (arg == "-c") {
			plan.mode = Mode::Compile;
		} else if (arg == "-S") {
			plan.mode = Mode::Assembly;
		} else if (arg == "--emit-llvm" || arg == "-emit-llvm") {
			plan.mode = Mode::EmitLlvm;
		} else if (arg == "--device-only" || arg == "--cuda-device-only") {
			plan.mode = Mode::DeviceOnly;
		} else if (arg == "-g") {
			plan.options.debug = true;
		} else if (arg.startswith("-O")) {
			StringRef level = arg.drop_front(2);
			if (level.empty())
				level = "2";
			if (level.size() != 1 || level[0] < '0' || level[0] > '3')
				return error("unsupported optimisation level '" + arg + "' (use -O0 to -O3)");
			plan.options.opt_level = level[0] - '0';
		} else if (arg.startswith("-arch=") || arg.startswith("--gpu-architecture=")) {
			StringRef name = arg.split('=').second;
			unsigned arch = 0;
			if (!name.consume_front("simt_") || name.getAsInteger(10, arch) ||
			    arch < SIMTGPU_ARCH_SIMT1 || arch > SIMTGPU_ARCH_NEWEST)
				return error("unknown device architecture '" + arg.split('=').second +
					     "' (known: simt_1 .. simt_" + Twine(SIMTGPU_ARCH_NEWEST) + ")");
			plan.options.arch = arch;
		} else if (arg == "-o") {
			Expected<std::string> v = value("-o");
			if (!v)
				return v.takeError();
			plan.output = *v;
		} else if (arg.startswith("-I") || arg.startswith("-D") || arg.startswith("-U")) {
			StringRef flag = arg.take_front(2);
			Expected<std::string> v = value(flag);
			if (!v)
				return v.takeError();
			plan.options.frontend_args.push_back(flag.str() + *v);
		} else if (arg == "-include") {
			Expected<std::string> v = value("-include");
			if (!v)
				return v.takeError();
			plan.options.frontend_args.insert(plan.options.frontend_args.end(), {"-include", *v});
		} else if (arg.startswith("-std=") || (arg.startswith("-W") && !arg.startswith("-Wl,")) ||
			   arg.startswith("-f")) {
			plan.options.frontend_args.push_back(arg.str());
		} else if (arg.startswith("-L") || arg.startswith("-l")) {
			StringRef flag = arg.take_front(2);
			Expected<std::string> v = value(flag);
			if (!v)
				return v.takeError();
			plan.options.extra_link_args.push_back(flag.str() + *v);
		} else if (arg.startswith("-Wl,")) {
			plan.options.extra_link_args.push_back(arg.str());
		} else if (arg.startswith("-")) {
			return error("unknown option '" + arg + "' (see --help)");
		} else {
			plan.inputs.push_back({arg.str(), languageOf(arg)});
		}
	}
	if (plan.help || plan.version)
		return plan;
	if (plan.inputs.empty())
		return error("no input files");
	size_t sources = 0;
	for (const Input &input : plan.inputs)
		sources += input.language.has_value();
	if (plan.mode != Mode::Link && !plan.output.empty() && sources > 1)
		return error("-o with -c, -S, --emit-llvm or --device-only needs a single source");
	for (const Input &input : plan.inputs)
		if (plan.mode != Mode::Link && plan.mode != Mode::Compile &&
		    input.language != Language::Cuda)
			return error("'" + input.path + "' is not a CUDA source (.cu)");
	return plan;
}

std::string outputFor(const Plan &plan, const Input &input, StringRef extension)
{
	if (!plan.output.empty())
		return plan.output;
	SmallString<128> name(sys::path::filename(input.path));
	sys::path::replace_extension(name, extension);
	return std::string(name);
}

// A temporary file removed when the driver exits.
class Temporary {
public:
	Expected<std::string> make(StringRef prefix, StringRef suffix)
	{
		SmallString<128> path;
		if (std::error_code ec = sys::fs::createTemporaryFile(prefix, suffix, path))
			return createStringError(ec, "simtcc: cannot create a temporary file");
		paths_.push_back(std::string(path));
		return paths_.back();
	}
	~Temporary()
	{
		for (const std::string &p : paths_)
			sys::fs::remove(p);
	}

private:
	std::vector<std::string> paths_;
};

Error run(const Plan &plan, simtcc::Pipeline &pipeline, Temporary &temporaries)
{
	std::vector<std::string> objects;
	for (const Input &input : plan.inputs) {
		if (!input.language) {
			objects.push_back(input.path);
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
			} else if (Error e = pipeline.writeDeviceCode(*device, outputFor(plan, input, "s"),
								      true)) {
				return e;
			}
			continue;
		}
		case Mode::Compile:
		case Mode::Link:
			break;
		}
		std::string image;
		if (input.language == Language::Cuda) {
			Expected<std::string> path = temporaries.make("simtcc-image", "elf");
			if (!path)
				return path.takeError();
			image = *path;
			if (Error e = pipeline.buildDeviceImage(input.path, image))
				return e;
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
		if (Error e = pipeline.compileHost(input.path, *input.language, image, object))
			return e;
		objects.push_back(object);
	}
	if (plan.mode == Mode::Link)
		return pipeline.linkHost(objects, plan.output.empty() ? "a.out" : plan.output);
	return Error::success();
}

} // namespace

int main(int argc, char **argv)
{
	InitLLVM init(argc, argv);
	Expected<Plan> plan = parse(argc, argv);
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
		       << ", RV64GC lp64d)\n";
		return 0;
	}
	simtcc::Pipeline pipeline(simtcc::Toolchain::locate(argv[0]), plan->options);
	Temporary temporaries;
	if (Error e = run(*plan, pipeline, temporaries)) {
		errs() << toString(std::move(e)) << '\n';
		return 1;
	}
	return 0;
}
