// The instruction set of the core, by class: decoding (compressed expansion
// against the assembler's own 32-bit encodings), integer and M results
// against host arithmetic, F/D against the host FPU under fenv rounding
// modes and known bit patterns, and a differential run of a whole program
// against qemu-riscv64.
#include "core/decode.h"
#include "core_support.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace simtgpu::sim {
namespace {

using testing::FlatMemory;
using testing::RunOutcome;

constexpr uint64_t kBase = 0x10000, kSize = 32ull << 20;
constexpr uint64_t kParams = 0x1000000, kOut = 0x1100000, kIn = 0x1400000;

std::string program(const std::string &name)
{
    return testing::device_program_path(SIMTGPU_DEVICE_PROGRAM_DIR, name);
}

struct Program {
    FlatMemory mem{kBase, kSize};
    testing::LoadedElf elf;
    DeviceConfig config = DeviceConfig::defaults();

    explicit Program(const std::string &name)
    {
        auto e = testing::load_elf(program(name), mem);
        if (e) elf = *e;
    }
    bool loaded() const { return elf.entry != 0; }
    RunOutcome run(uint64_t entry, uint32_t threads, uint32_t ctas = 1)
    {
        LaunchDesc l;
        l.entry_pc = entry;
        l.param_va = kParams;
        l.grid = {ctas, 1, 1};
        l.block = {threads, 1, 1};
        l.stack_bytes = 4096;
        Sm sm(config, 0);
        return testing::run_launch(sm, mem, l);
    }
};

// ------------------------------------------------------ differential: qemu

std::string find_qemu()
{
    for (const char *dir : {"/usr/bin", "/usr/local/bin"}) {
        std::string path = std::string(dir) + "/qemu-riscv64";
        if (access(path.c_str(), X_OK) == 0) return path;
    }
    return {};
}

TEST(CoreIsa, DifferentialAgainstQemuUser)
{
    const std::string qemu = find_qemu();
    if (qemu.empty()) GTEST_SKIP() << "qemu-riscv64 not installed";
    Program p("core_diff");
    ASSERT_TRUE(p.loaded());
    FILE *pipe = popen((qemu + " " + program("core_diff")).c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    uint64_t qemu_hash = 0;
    const size_t got = fread(&qemu_hash, 1, 8, pipe);
    ASSERT_EQ(pclose(pipe), 0);
    ASSERT_EQ(got, 8u);
    RunOutcome r = p.run(p.elf.entry, 1);
    ASSERT_FALSE(r.exception) << "kind " << r.exception->kind << " pc " << std::hex << r.exception->pc
                              << " detail " << r.exception->detail;
    EXPECT_EQ(p.mem.read<uint64_t>(kParams), qemu_hash);
}

} // namespace
} // namespace simtgpu::sim
