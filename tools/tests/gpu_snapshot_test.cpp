// simt-smi's formats: the CSV of --query-gpu and its options, the table, -q.
#include "gpu_snapshot.h"

#include <gtest/gtest.h>

using namespace simtgpu::tools;

namespace {

GpuSnapshot sample() {
    GpuSnapshot g;
    g.index = 0;
    g.name = "simtgpu simt_2 (4 SMs, /dev/dri/renderD128)";
    g.transport = "drm";
    g.node = "/dev/dri/renderD128";
    g.pci_bus_id = "0000:01:00.0";
    g.driver_version = "1.0.0 (20261202)";
    g.uapi_driver = 1u << 16;
    g.uapi_runtime = 1u << 16;
    g.arch = 2;
    g.num_sms = 4;
    g.warp_size = 32;
    g.warps_per_sm = 64;
    g.ctas_per_sm = 32;
    g.shared_per_sm = 96 << 10;
    g.max_threads_per_cta = 1024;
    g.clock_khz = 1500000;
    g.vram_total = 256ull << 20;
    g.vram_used = (3ull << 20) + 4096;
    g.utilisation_percent = 37;
    g.temperature_mdeg = 44600;
    ClientProcess p;
    p.pid = 231;
    p.command = "matmul";
    p.vram_kib = 2048;
    g.processes.push_back(p);
    return g;
}

TEST(QueryGpu, CsvWithHeaderAndUnits) {
    GpuSnapshot g = sample();
    std::string error;
    auto fields = parse_query("name,memory.total,memory.used,memory.free,utilization.gpu", &error);
    ASSERT_TRUE(fields) << error;
    std::string csv = format_csv({g}, *fields, CsvFormat{});
    std::string expected_free = std::to_string((g.vram_total - g.vram_used) >> 20) + " MiB";
    EXPECT_EQ(csv, "name, memory.total [MiB], memory.used [MiB], memory.free [MiB], "
                   "utilization.gpu [%]\n" +
                       g.name + ", 256 MiB, 3 MiB, " + expected_free + ", 37 %\n");
}

TEST(QueryGpu, NoHeaderNoUnits) {
    GpuSnapshot g = sample();
    auto format = parse_csv_format("csv,noheader,nounits");
    ASSERT_TRUE(format);
    std::string error;
    auto fields = parse_query("index,arch,pci.bus_id,clocks.sm,temperature.gpu,sm_count,processes", &error);
    ASSERT_TRUE(fields) << error;
    // 44.6 degrees rounds to 45; 1500000 kHz is 1500 MHz.
    EXPECT_EQ(format_csv({g}, *fields, *format), "0, simt_2, 0000:01:00.0, 1500, 45, 4, 1\n");
}

// The memory hierarchy: a V100's 877 MHz and 4096 bits give deviceQuery's
// 898 GB/s (2 x 877e6 x 512 bytes); a device that models none says [N/A].
TEST(QueryGpu, MemoryHierarchyAndPeakBandwidth) {
    GpuSnapshot g = sample();
    auto format = parse_csv_format("csv,noheader");
    ASSERT_TRUE(format);
    std::string error;
    auto fields = parse_query("cache.l2,memory.bus_width,clocks.mem,memory.bandwidth", &error);
    ASSERT_TRUE(fields) << error;
    EXPECT_EQ(format_csv({g}, *fields, *format), "[N/A], [N/A], [N/A], [N/A]\n");
    g.l2_bytes = 6u << 20;
    g.mem_bus_width = 4096;
    g.mem_clock_khz = 877000;
    EXPECT_EQ(format_csv({g}, *fields, *format), "6144 KiB, 4096 bit, 877 MHz, 898 GB/s\n");
}

// The compute capability CUDA programs see, beside the architecture itself
// (docs/cuda-runtime.md: simt_2 is 7.0, simt_1 is 1.3).
TEST(QueryGpu, ComputeCapabilityBesideTheArchitecture) {
    GpuSnapshot g = sample();
    auto format = parse_csv_format("csv,noheader");
    ASSERT_TRUE(format);
    std::string error;
    auto fields = parse_query("arch,compute_cap", &error);
    ASSERT_TRUE(fields) << error;
    EXPECT_EQ(format_csv({g}, *fields, *format), "simt_2, 7.0\n");
    g.arch = 1;
    EXPECT_EQ(format_csv({g}, *fields, *format), "simt_1, 1.3\n");
}

TEST(QueryGpu, UnreportedValuesAreNotAvailable) {
    GpuSnapshot g = sample();
    g.transport = "sim";
    g.pci_bus_id.clear();
    g.driver_version.clear();
    g.utilisation_percent.reset();
    g.temperature_mdeg.reset();
    for (const char *f : {"pci.bus_id", "driver_version", "utilization.gpu", "temperature.gpu"})
        EXPECT_EQ(field_value(g, f, true), "[N/A]") << f;
}

TEST(QueryGpu, UnknownFieldsAndFormatsAreRefused) {
    std::string error;
    EXPECT_FALSE(parse_query("name,fan.speed", &error));
    EXPECT_NE(error.find("fan.speed"), std::string::npos);
    EXPECT_FALSE(parse_query("", &error));
    EXPECT_FALSE(parse_csv_format("json"));
    EXPECT_FALSE(parse_csv_format("noheader"));
}

TEST(Table, ShowsTheDeviceAndItsProcesses) {
    std::string table = format_table({sample()}, "Wed Dec  2 17:00:00 2026");
    EXPECT_NE(table.find("1.0.0 (20261202)"), std::string::npos);
    EXPECT_NE(table.find("3 MiB / 256 MiB"), std::string::npos);
    EXPECT_NE(table.find("37 %"), std::string::npos);
    EXPECT_NE(table.find("45C"), std::string::npos);
    EXPECT_NE(table.find("matmul"), std::string::npos);
    EXPECT_NE(table.find("2 MiB"), std::string::npos);
    // Every line of the box has the same width.
    size_t start = table.find('\n') + 1;
    while (start < table.size()) {
        size_t end = table.find('\n', start);
        std::string line = table.substr(start, end - start);
        if (!line.empty()) {
            EXPECT_EQ(line.size(), 79u) << line;
        }
        start = end + 1;
    }
}

TEST(Table, SaysWhenNoProcessRuns) {
    GpuSnapshot g = sample();
    g.processes.clear();
    EXPECT_NE(format_table({g}, "now").find("No running processes found"), std::string::npos);
}

TEST(FullReport, HasEverySection) {
    std::string report = format_full_report({sample()}, "now");
    for (const char *s : {"Product Name", "Product Architecture", "simt_2", "Driver uAPI Version",
                          "Bus Id", "0000:01:00.0", "FB Memory Usage", "Utilization", "37 %",
                          "GPU Current Temp", "45 C", "Clocks", "1500 MHz", "Process ID", "231"})
        EXPECT_NE(report.find(s), std::string::npos) << s;
}

} // namespace

// Every counter of counters.h is a --query-gpu field and a line of -q, with
// the derived figures after them; without the driver's counters (the
// in-process transport) both say [N/A].
TEST(Counters, QueryFieldsAndFullReportIterateTheList) {
    GpuSnapshot g = sample();
    std::string error;
    auto fields = parse_query("counters.thread_instructions,counters.stall_barrier", &error);
    ASSERT_TRUE(fields) << error;
    EXPECT_EQ(format_csv({g}, *fields, CsvFormat{}),
              "counters.thread_instructions [inst], counters.stall_barrier [warp*cycle]\n"
              "[N/A], [N/A]\n");
    for (uint32_t i = 0; i < SIMTGPU_NUM_COUNTERS; ++i)
        g.counters[i] = 1000 + i;
    g.counters[SIMTGPU_COUNTER_warp_instructions] = 3000;
    g.counters[SIMTGPU_COUNTER_sm_busy_cycles] = 4000;
    const std::string csv = format_csv({g}, *fields, CsvFormat{});
    EXPECT_EQ(csv.substr(csv.find('\n') + 1),
              std::to_string(1000 + SIMTGPU_COUNTER_thread_instructions) + " inst, " +
                  std::to_string(1000 + SIMTGPU_COUNTER_stall_barrier) + " warp*cycle\n");
    const std::string report = format_full_report({g}, "now");
    size_t at = report.find("    Counters\n");
    ASSERT_NE(at, std::string::npos);
#define SIMTGPU_X(name, unit, ncu, what)                                                           \
    at = report.find("        " #name, at);                                                        \
    EXPECT_NE(at, std::string::npos) << #name << " missing or out of order";
    SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    EXPECT_NE(report.find(": 4000 cycle  (sm__cycles_active.sum)\n"), std::string::npos);
    // IPC = warp instructions per SM busy cycle: 3000 / 4000.
    EXPECT_NE(report.find(": 0.750 inst/cycle  (sm__inst_executed.avg.per_cycle_active)\n"),
              std::string::npos)
        << report;
}
