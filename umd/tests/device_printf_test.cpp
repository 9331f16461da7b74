// Device printf records formatted on the host must read as the host's own
// printf of the same arguments.
#include "device_printf.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace simtgpu::umd;

namespace {

// Packs arguments as clang's vprintf lowering does: natural alignment.
class Packer {
public:
    template <typename T> Packer &add(T v) {
        size_t at = (bytes.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
        bytes.resize(at + sizeof(T));
        std::memcpy(bytes.data() + at, &v, sizeof(T));
        return *this;
    }
    std::vector<uint8_t> bytes;
};

bool no_strings(uint64_t, std::string *) { return false; }

TEST(DevicePrintf, IntegersFloatsAndWidths) {
    Packer p;
    p.add<int32_t>(-42).add<uint64_t>(1ull << 40).add<double>(3.14159);
    p.add<int32_t>(7).add<int32_t>(99).add<int32_t>('z'); // %*d reads width, then value
    std::string got = format_device_printf("a=%d b=%llu c=%8.3f d=%*d e=%c %%\n",
                                           p.bytes.data(), p.bytes.size(), no_strings);
    char expect[128];
    std::snprintf(expect, sizeof(expect), "a=%d b=%llu c=%8.3f d=%*d e=%c %%\n", -42,
                  1ull << 40, 3.14159, 7, 99, 'z');
    EXPECT_EQ(got, expect);
}

TEST(DevicePrintf, MixedAlignmentMatchesHostPrintf) {
    Packer p;
    p.add<int32_t>(5).add<double>(-0.5).add<uint32_t>(0xbeef).add<int64_t>(-9000000000ll).add<int32_t>('Q');
    std::string got = format_device_printf("%d %g %x %ld %c", p.bytes.data(), p.bytes.size(),
                                           no_strings);
    char expect[128];
    std::snprintf(expect, sizeof(expect), "%d %g %x %ld %c", 5, -0.5, 0xbeef, -9000000000l, 'Q');
    EXPECT_EQ(got, expect);
}

TEST(DevicePrintf, StringsComeFromDeviceMemory) {
    Packer p;
    p.add<uint64_t>(0x1234).add<uint64_t>(0).add<uint64_t>(0x999);
    auto reader = [](uint64_t va, std::string *out) {
        if (va != 0x1234)
            return false;
        *out = "device text";
        return true;
    };
    std::string got = format_device_printf("[%s] [%s] [%-12s|", p.bytes.data(), p.bytes.size(),
                                           reader);
    EXPECT_EQ(got, "[device text] [(null)] [<bad string>|");
}

TEST(DevicePrintf, MissingArgumentsDoNotReadPastTheRecord) {
    Packer p;
    p.add<int32_t>(1);
    std::string got = format_device_printf("%d %d %f", p.bytes.data(), p.bytes.size(), no_strings);
    EXPECT_EQ(got, "1 0 0.000000");
}

} // namespace
