// libFuzzer target: the simulator's configuration files (sim/src/config_file.cpp,
// docs/timing.md), which SIMTGPU_SIM_CONFIG, simt-run --config and QEMU's
// config= read from any path a user names. The input is written to a file
// and read as one; a "base" may name a preset. A file is either refused with
// a message, or yields a configuration that builds a device.
#include "config_file.h"
#include "simtgpu/sim.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

// The file each input is written to, removed when the fuzzer exits (kept
// on the heap, so that it outlives the exit handlers).
const std::string &scratch_file() {
    static const std::string *path = [] {
        const char *dir = std::getenv("TMPDIR");
        auto *p = new std::string(std::string(dir && *dir ? dir : "/tmp") +
                                  "/simtgpu-fuzz-config-" + std::to_string(getpid()) + ".json");
        std::atexit([] { unlink(scratch_file().c_str()); });
        return p;
    }();
    return *path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string &path = scratch_file();
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f)
        abort();
    if (size && std::fwrite(data, 1, size, f) != size)
        abort();
    std::fclose(f);
    auto file = simtgpu::sim::read_config_file(path);
    if (!file) {
        if (file.error().empty())
            abort(); // every refusal says why
        return 0;
    }
    // An accepted file builds a device and is destroyed again: with 2 MiB
    // of VRAM and 2 SMs (non-zero fields override the file's), as 108 SMs
    // under ASan take seconds, and the file's sizes are no concern of the
    // parser's.
    simtgpu_sim_config config{};
    config.struct_size = sizeof config;
    config.vram_bytes = 2u << 20;
    config.num_sms = 2;
    config.config = path.c_str();
    simtgpu_sim *sim = nullptr;
    char err[512] = "";
    if (simtgpu_sim_create(&config, &sim, err, sizeof err) == 0)
        simtgpu_sim_destroy(sim);
    else if (!err[0])
        abort();
    return 0;
}
