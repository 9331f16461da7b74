// Configuration files and presets: every preset loads; base chains merge
// object by object and their cycles are refused; bad fields are named with
// their path and a fix; the C ABI, and simt-run, select a file.
#include "config_file.h"

#include "simtgpu/hw.h"
#include "simtgpu/sim.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <sys/wait.h>

namespace simtgpu::sim {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, for files that name each other.
class ConfigFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::path(::testing::TempDir()) /
               ("config_file_" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string write(const std::string &name, const std::string &text) {
        const fs::path path = dir_ / name;
        fs::create_directories(path.parent_path());
        std::ofstream(path) << text;
        return path.string();
    }

    // The load fails, and its message contains every part.
    void expect_error(const std::string &file, std::initializer_list<std::string> parts) {
        auto r = load_device_config(file);
        ASSERT_FALSE(r) << file;
        for (const std::string &part : parts)
            EXPECT_NE(r.error().find(part), std::string::npos)
                << "'" << part << "' in " << r.error();
    }

    fs::path dir_;
};

TEST_F(ConfigFileTest, EveryPresetLoadsAndIsTheShippedFile) {
    ASSERT_EQ(presets().size(), 4u);
    for (const Preset &p : presets()) {
        auto by_name = load_device_config(p.name);
        ASSERT_TRUE(by_name) << p.name << ": " << by_name.error();
        EXPECT_EQ(by_name->name, p.name);
        // The embedded text is the file of sim/presets/.
        std::ifstream in(std::string(SIMTGPU_PRESET_DIR) + "/" + std::string(p.name) + ".json");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_EQ(text, p.text) << p.name;
    }
}

TEST_F(ConfigFileTest, FunctionalIsWhatTheCStructsZerosSelect) {
    simtgpu_sim_config zeros{};
    zeros.struct_size = sizeof zeros;
    auto defaults = DeviceConfig::from(zeros);
    auto functional = load_device_config("functional");
    ASSERT_TRUE(defaults && functional);
    for (const NumericField &f : numeric_fields())
        EXPECT_EQ((*functional).*f.member, (*defaults).*f.member) << f.name;
    for (const NameField &f : name_fields())
        EXPECT_EQ((*functional).*f.member, (*defaults).*f.member) << f.name;
    EXPECT_EQ(functional->vram_bytes, defaults->vram_bytes);
    EXPECT_EQ(functional->max_threads_per_cta, defaults->max_threads_per_cta);
    EXPECT_EQ(functional->livelock_cycles, defaults->livelock_cycles);
}

TEST_F(ConfigFileTest, VoltaIsAV100) {
    auto v = load_device_config("volta");
    ASSERT_TRUE(v) << v.error();
    // NVIDIA's Volta whitepaper: 80 SMs at 1530 MHz, 2048 threads and 32
    // blocks per SM, 96 KiB shared, 6 MiB L2, 16 GB HBM2 at 900 GB/s.
    EXPECT_EQ(v->num_sms, 80u);
    EXPECT_EQ(v->warps_per_sm * v->warp_size, 2048u);
    EXPECT_EQ(v->ctas_per_sm, 32u);
    EXPECT_EQ(v->shared_bytes_per_sm, 96u * 1024);
    EXPECT_EQ(v->clock_khz, 1530000u);
    EXPECT_EQ(v->vram_bytes, 16ull << 30);
    EXPECT_EQ(v->memory.l2.size_bytes, 6ull << 20);
    EXPECT_EQ(v->memory.dram.bandwidth_gbps, 900.0);
    // Jia et al. 2018: a 28-cycle L1 hit, dependent FFMA 4 cycles; four
    // warp schedulers per SM (whitepaper); Accel-Sim's QV100: shared memory
    // 20 cycles, L2 hit about 212, DRAM about 460.
    EXPECT_EQ(v->memory.l1.hit_latency, 28u);
    EXPECT_EQ(v->model, Model::timing);
    EXPECT_EQ(v->timing.schedulers_per_sm, 4u);
    EXPECT_EQ(v->timing.unit(timing::InsnClass::fp32).latency, 4u);
    EXPECT_EQ(v->memory.shared.latency, 20u);
    EXPECT_EQ(v->memory.l2.hit_latency, 212u);
    EXPECT_EQ(v->memory.dram.latency, 460u);
}

TEST_F(ConfigFileTest, TeachingIsTheSmallGpu) {
    auto t = load_device_config("teaching");
    ASSERT_TRUE(t) << t.error();
    EXPECT_EQ(t->num_sms, 4u);
    EXPECT_EQ(t->warps_per_sm, 16u);
    EXPECT_EQ(t->ctas_per_sm, 8u);
    EXPECT_EQ(t->shared_bytes_per_sm, 48u * 1024);
    EXPECT_EQ(t->max_threads_per_cta, 16u * 32); // follows the SM
    EXPECT_EQ(t->memory.l1.size_bytes, 16u * 1024);
    EXPECT_EQ(t->memory.l2.size_bytes, 256u * 1024);
    EXPECT_EQ(t->memory.dram.channels, 4u);
    EXPECT_EQ(t->model, Model::timing);
    EXPECT_EQ(t->timing.schedulers_per_sm, 2u);
    EXPECT_EQ(load_device_config("functional")->model, Model::functional);
}

TEST_F(ConfigFileTest, TheTimingSectionMergesAndNamesItsFields) {
    const std::string file = write("t.json", R"({
        "base": "teaching",
        "timing": {"fp32": {"latency": 6}, "schedulers_per_sm": 1}
    })");
    auto c = load_device_config(file);
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->timing.unit(timing::InsnClass::fp32).latency, 6u);
    EXPECT_EQ(c->timing.unit(timing::InsnClass::fp32).ii, 1u); // teaching's
    EXPECT_EQ(c->timing.unit(timing::InsnClass::sfu).latency, 20u);
    EXPECT_EQ(c->timing.schedulers_per_sm, 1u);

    expect_error(write("m.json", R"({"model": "fast"})"),
                 {"m.json: model: \"fast\" is not one of \"functional\", \"timing\""});
    expect_error(write("u.json", R"({"timing": {"fp23": {"latency": 4}}})"),
                 {"u.json: timing.fp23: unknown field; did you mean fp32?"});
    expect_error(write("f.json", R"({"timing": {"fp32": {"latncy": 4}}})"),
                 {"f.json: timing.fp32.latncy: unknown field; did you mean latency?"});
    expect_error(write("r.json", R"({"timing": {"schedulers_per_sm": 0}})"),
                 {"r.json: timing.schedulers_per_sm: 0 is out of range: allowed 1..64"});
    expect_error(write("w.json", R"({"timing": {"sfu": {"ii": "2"}}})"),
                 {"w.json: timing.sfu.ii: expected an unsigned integer, got \"2\""});
    expect_error(write("l.json", R"({"timing": {"global": {"latency": 100}}})"),
                 {"l.json: timing.global.latency:", "memory.l1"});
    expect_error(write("o.json", R"({"timing": []})"), {"o.json: timing: expected an object"});
}

TEST_F(ConfigFileTest, BaseChainsMergeObjectByObject) {
    write("mid/gpu.json", R"({
        "base": "teaching",   // a preset
        "name": "mid",
        "num_sms": 2,
        "memory": {"l1": {"assoc": 8}}
    })");
    // A relative base is relative to the file that names it.
    const std::string top = write("top.json", R"({
        "base": "mid/gpu.json",
        "warp_scheduler": "two-level",
        "memory": {"l2": {"hit_latency": 150}}
    })");
    auto c = load_device_config(top);
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->num_sms, 2u);                  // mid
    EXPECT_EQ(c->warps_per_sm, 16u);            // teaching
    EXPECT_EQ(c->warp_scheduler, "two-level");  // top
    EXPECT_EQ(c->memory.l1.assoc, 8u);          // mid, beside teaching's size
    EXPECT_EQ(c->memory.l1.size_bytes, 16384u); // teaching
    EXPECT_EQ(c->memory.l2.hit_latency, 150u);  // top
    EXPECT_EQ(c->memory.l2.size_bytes, 262144u);
    EXPECT_EQ(c->name, "top"); // a name is not inherited: the file's stem
}

TEST_F(ConfigFileTest, BaseCyclesAreRefused) {
    write("a.json", R"({"base": "b.json", "num_sms": 1})");
    const std::string b = write("b.json", R"({"base": "a.json"})");
    expect_error(b, {"base", "a.json", "b.json", "already in the chain"});
    const std::string self = write("self.json", R"({"base": "self.json"})");
    expect_error(self, {"self.json: base:", "already in the chain"});
}

TEST_F(ConfigFileTest, UnknownFieldsSuggestTheClosest) {
    expect_error(write("my.json", R"({"warp_schedular": "gto"})"),
                 {"my.json: warp_schedular: unknown field; did you mean warp_scheduler?"});
    expect_error(write("deep.json", R"({"memory": {"l1": {"asoc": 2}}})"),
                 {"deep.json: memory.l1.asoc: unknown field; did you mean assoc?"});
    // Too far from every name: the list instead.
    expect_error(write("far.json", R"({"zzzzzzzzzz": 1})"),
                 {"zzzzzzzzzz: unknown field; known fields are"});
    expect_error(write("base.json", R"({"base": "voltaa"})"),
                 {"base.json: base: no preset or file 'voltaa'", "ampere, functional, teaching, volta"});
}

TEST_F(ConfigFileTest, WrongTypesAreNamed) {
    expect_error(write("t.json", R"({"num_sms": "8"})"),
                 {"t.json: num_sms: expected an unsigned integer, got \"8\""});
    expect_error(write("s.json", R"({"warp_scheduler": 3})"),
                 {"s.json: warp_scheduler: 3 is not one of"});
    expect_error(write("m.json", R"({"memory": []})"), {"m.json: memory: expected an object"});
    expect_error(write("j.json", R"({"num_sms": 4,})"), {"j.json: not valid JSON"});
    expect_error(write("a.json", R"([1, 2])"), {"a.json: expected a JSON object"});
}

TEST_F(ConfigFileTest, OutOfRangeValuesNameTheirPath) {
    expect_error(write("l1.json", R"({"base": "volta", "memory": {"l1": {"assoc": 0}}})"),
                 {"l1.json: memory.l1.assoc: 0 is out of range: allowed 1..64"});
    expect_error(write("sms.json", R"({"num_sms": 5000})"),
                 {"sms.json: num_sms: 5000 is out of range"});
    expect_error(write("v.json", R"({"vram_bytes": 3145728})"), {"v.json: vram_bytes:", "2 MiB"});
    // Relations between fields: a CTA must fit on the SM.
    expect_error(write("cta.json", R"({"warps_per_sm": 4, "max_threads_per_cta": 256})"),
                 {"cta.json: max_threads_per_cta: 256 is out of range: allowed 1..128"});
    expect_error((dir_ / "missing.json").string(), {"missing.json: cannot read"});
}

struct SimDeleter {
    void operator()(simtgpu_sim *sim) const { simtgpu_sim_destroy(sim); }
};

nlohmann::json stats_of(simtgpu_sim *sim) {
    std::unique_ptr<char, void (*)(char *)> text(simtgpu_sim_stats_json(sim),
                                                 simtgpu_sim_free_string);
    return nlohmann::json::parse(text.get());
}

TEST_F(ConfigFileTest, TheCStructSelectsAFileAndItsFieldsOverrideIt) {
    const std::string file = write(
        "gpu.json", R"({"base": "teaching", "name": "small", "num_sms": 6, "ctas_per_sm": 3})");
    simtgpu_sim_config c{};
    c.struct_size = sizeof c;
    c.config = file.c_str();
    c.num_sms = 2;          // overrides the file
    c.vram_bytes = 2 << 20; // and its base's 4 GiB
    simtgpu_sim *raw = nullptr;
    char err[512] = "";
    ASSERT_EQ(simtgpu_sim_create(&c, &raw, err, sizeof err), 0) << err;
    std::unique_ptr<simtgpu_sim, SimDeleter> sim(raw);
    const nlohmann::json s = stats_of(sim.get());
    EXPECT_EQ(s["config"], "small");
    EXPECT_EQ(s["num_sms"], 2);
    EXPECT_EQ(s["ctas_per_sm"], 3);   // the file
    EXPECT_EQ(s["warps_per_sm"], 16); // its base
    EXPECT_EQ(s["warp_scheduler"], "gto");
    uint64_t vram = 0;
    simtgpu_sim_vram(sim.get(), &vram);
    EXPECT_EQ(vram, 2u << 20);

    // A bad file is refused with its message; a host of ABI 3 (a struct
    // without `config`) gets the defaults.
    const std::string bad = write("bad.json", R"({"num_sms": 0})");
    c.config = bad.c_str();
    EXPECT_EQ(simtgpu_sim_create(&c, &raw, err, sizeof err), -EINVAL);
    EXPECT_NE(std::string(err).find("bad.json: num_sms: 0 is out of range"), std::string::npos)
        << err;
    c.struct_size = kSimConfigAbi3Size;
    ASSERT_EQ(simtgpu_sim_create(&c, &raw, err, sizeof err), 0) << err;
    sim.reset(raw);
    EXPECT_EQ(stats_of(sim.get())["warps_per_sm"], 64);
}

// The memory section reaches the registers software reads (hw 1.3), under
// the timing model only: the functional model has no memory hierarchy.
TEST_F(ConfigFileTest, TheMemoryHierarchyRegistersFollowTheFile) {
    auto registers = [&](const std::string &config) {
        simtgpu_sim_config c{};
        c.struct_size = sizeof c;
        c.config = config.c_str();
        c.vram_bytes = 2 << 20;
        simtgpu_sim *raw = nullptr;
        char err[512] = "";
        EXPECT_EQ(simtgpu_sim_create(&c, &raw, err, sizeof err), 0) << err;
        std::unique_ptr<simtgpu_sim, SimDeleter> sim(raw);
        std::array<uint64_t, 3> r{};
        if (sim)
            r = {simtgpu_sim_mmio_read(raw, SIMTGPU_REG_L2_SIZE, 4),
                 simtgpu_sim_mmio_read(raw, SIMTGPU_REG_MEM_BUS_WIDTH, 4),
                 simtgpu_sim_mmio_read(raw, SIMTGPU_REG_MEM_CLOCK_KHZ, 4)};
        return r;
    };
    const std::string memory =
        R"("memory": {"l2": {"size_bytes": 524288}, "dram": {"bus_width_bits": 256,
           "clock_khz": 1500000}})";
    EXPECT_EQ(registers(write("t.json", R"({"base": "teaching", )" + memory + "}")),
              (std::array<uint64_t, 3>{524288, 256, 1500000}));
    EXPECT_EQ(registers(write("f.json",
                              R"({"base": "teaching", "model": "functional", )" + memory + "}")),
              (std::array<uint64_t, 3>{0, 0, 0}));
    // NVIDIA's V100: 6 MiB of L2, 4096-bit HBM2 at 877 MHz.
    EXPECT_EQ(registers("volta"), (std::array<uint64_t, 3>{6u << 20, 4096, 877000}));
}

TEST_F(ConfigFileTest, TheVoltaDeviceHas80Sms) {
    simtgpu_sim_config c{};
    c.struct_size = sizeof c;
    c.config = "volta";
    simtgpu_sim *raw = nullptr;
    char err[512] = "";
    ASSERT_EQ(simtgpu_sim_create(&c, &raw, err, sizeof err), 0) << err;
    std::unique_ptr<simtgpu_sim, SimDeleter> sim(raw);
    simtgpu_sim_stats stats{};
    stats.struct_size = sizeof stats;
    ASSERT_EQ(simtgpu_sim_get_stats(sim.get(), &stats), 0);
    EXPECT_EQ(stats.num_sms, 80u);
    const nlohmann::json s = stats_of(sim.get());
    EXPECT_EQ(s["config"], "volta");
    EXPECT_EQ(s["clock_khz"], 1530000);
    EXPECT_EQ(s["sms"].size(), 80u);
}

#ifdef SIMTGPU_SIMT_RUN
TEST_F(ConfigFileTest, SimtRunRefusesABadFileWithItsMessage) {
    const std::string bad = write("bad.json", R"({"base": "teaching", "warps_per_sm": 1000})");
    const std::string command = std::string(SIMTGPU_SIMT_RUN) + " --config " + bad + " " +
                                SIMTGPU_DEVICE_PROGRAM_DIR + "/device_exit.elf 2>&1";
    FILE *p = popen(command.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string output;
    char buf[1024];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
        output.append(buf, n);
    const int status = pclose(p);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
    EXPECT_NE(output.find("bad.json: warps_per_sm: 1000 is out of range: allowed 1..256"),
              std::string::npos)
        << output;
}
#endif

} // namespace
} // namespace simtgpu::sim
