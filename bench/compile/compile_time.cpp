// SPDX-License-Identifier: MIT
// compile_time: how long simtcc takes for a few CUDA programs of
// tests/cuda, split into its steps: device front end + simtcc passes +
// optimisation, RISC-V code generation + device link (a whole device
// image), and the host pass. Runs the pipeline in process, as simtcc does.
#include <string>

#include <benchmark/benchmark.h>
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "pipeline.h"

namespace {

const char *const kPrograms[] = {"vector_add", "matmul_tiled", "reduce_shuffle", "math_float"};

std::string sourceOf(int index)
{
	return std::string(SIMTCC_BENCH_SOURCES) + "/" + kPrograms[index] + ".cu";
}

std::unique_ptr<simtcc::Pipeline> makePipeline(unsigned optLevel)
{
	simtcc::CompileOptions options;
	options.opt_level = optLevel;
	options.frontend_args = {"-I" SIMTCC_BENCH_SOURCES};
	return std::make_unique<simtcc::Pipeline>(simtcc::Toolchain::locate(SIMTCC_BENCH_SELF), options);
}

void failOn(benchmark::State &state, llvm::Error error)
{
	if (error)
		state.SkipWithError(llvm::toString(std::move(error)).c_str());
}

// Front end, simtcc's passes and the LLVM optimisation pipeline->
void DeviceModule(benchmark::State &state)
{
	auto pipeline = makePipeline(static_cast<unsigned>(state.range(1)));
	std::string source = sourceOf(static_cast<int>(state.range(0)));
	for (auto _ : state) {
		llvm::Expected<simtcc::DeviceModule> device = pipeline->compileDevice(source);
		if (!device) {
			failOn(state, device.takeError());
			break;
		}
	}
	state.SetLabel(kPrograms[state.range(0)]);
}

// All of the device side: the above plus code generation and the lld link.
void DeviceImage(benchmark::State &state)
{
	auto pipeline = makePipeline(static_cast<unsigned>(state.range(1)));
	std::string source = sourceOf(static_cast<int>(state.range(0)));
	llvm::SmallString<128> image;
	llvm::sys::fs::createTemporaryFile("simtcc-bench", "elf", image);
	for (auto _ : state)
		if (llvm::Error e = pipeline->buildDeviceImage(source, std::string(image))) {
			failOn(state, std::move(e));
			break;
		}
	llvm::sys::fs::remove(image);
	state.SetLabel(kPrograms[state.range(0)]);
}

// The host pass, embedding a device image built once beforehand.
void HostObject(benchmark::State &state)
{
	auto pipeline = makePipeline(2);
	std::string source = sourceOf(static_cast<int>(state.range(0)));
	llvm::SmallString<128> image, object;
	llvm::sys::fs::createTemporaryFile("simtcc-bench", "elf", image);
	llvm::sys::fs::createTemporaryFile("simtcc-bench", "o", object);
	if (llvm::Error e = pipeline->buildDeviceImage(source, std::string(image)))
		failOn(state, std::move(e));
	for (auto _ : state)
		if (llvm::Error e = pipeline->compileHost(source, simtcc::Language::Cuda, std::string(image),
							 std::string(object))) {
			failOn(state, std::move(e));
			break;
		}
	llvm::sys::fs::remove(image);
	llvm::sys::fs::remove(object);
	state.SetLabel(kPrograms[state.range(0)]);
}

void programsAndLevels(benchmark::internal::Benchmark *b)
{
	for (int p = 0; p < static_cast<int>(std::size(kPrograms)); ++p)
		for (int level : {0, 2})
			b->Args({p, level});
}

BENCHMARK(DeviceModule)->Apply(programsAndLevels)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(DeviceImage)->Apply(programsAndLevels)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(HostObject)->DenseRange(0, std::size(kPrograms) - 1)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

BENCHMARK_MAIN();
