// Loading device ELFs: segments, relocations, kernel table, symbols, and the
// errors bad images get.
#include "device_image.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cstring>
#include <elf.h>

using namespace simtgpu::umd;
using namespace simtgpu::umd::test;

namespace {

class DeviceImageTest : public ::testing::Test {
protected:
    void SetUp() override {
        bytes_ = kernels_image();
        ASSERT_FALSE(bytes_.empty());
    }
    std::vector<uint8_t> bytes_;
};

TEST_F(DeviceImageTest, ParsesTheKernelTable) {
    DeviceImage image;
    std::string error;
    ASSERT_TRUE(parse_device_image(bytes_.data(), bytes_.size(), &image, &error)) << error;
    EXPECT_EQ(image.arch, uint32_t(SIMTGPU_ARCH_SIMT2));
    ASSERT_EQ(image.kernels.size(), 10u); // umd_kernels.c's table
    const KernelInfo *vec_add = image.find_kernel("vec_add");
    ASSERT_NE(vec_add, nullptr);
    EXPECT_EQ(vec_add->params.size(), 4u);
    EXPECT_EQ(vec_add->param_bytes, 32u);
    EXPECT_EQ(vec_add->params[3].offset, 24u);
    EXPECT_EQ(vec_add->params[3].size, 4u);
    // The entry is the entry symbol's address.
    ASSERT_TRUE(image.symbols.count("vec_add_entry"));
    EXPECT_EQ(vec_add->entry_offset, image.symbols["vec_add_entry"].offset);
    EXPECT_EQ(image.find_kernel("block_sum")->max_threads_per_cta, 256u);
    ASSERT_NE(image.find_kernel("compute"), nullptr);
    EXPECT_EQ(image.find_kernel("compute")->param_bytes, 16u);
    ASSERT_NE(image.find_kernel("wait_flag"), nullptr);
    EXPECT_EQ(image.find_kernel("wait_flag")->param_bytes, 8u);
    EXPECT_EQ(image.find_kernel("nope"), nullptr);
}

TEST_F(DeviceImageTest, RelocatesPointersToTheChosenBase) {
    DeviceImage image;
    std::string error;
    ASSERT_TRUE(parse_device_image(bytes_.data(), bytes_.size(), &image, &error)) << error;
    ASSERT_FALSE(image.relocations.empty());
    const SymbolInfo table = image.symbols.at("device_table");
    const SymbolInfo ptr = image.symbols.at("device_table_ptr");
    EXPECT_EQ(table.size, 32u);
    for (uint64_t base : {0x100000000ull, 0x7654320000ull}) {
        std::vector<uint8_t> placed = image.relocated(base);
        uint64_t value;
        std::memcpy(&value, placed.data() + ptr.offset, 8);
        EXPECT_EQ(value, base + table.offset + 2 * sizeof(int32_t));
        int32_t first;
        std::memcpy(&first, placed.data() + table.offset, 4);
        EXPECT_EQ(first, 10); // initialised data comes from the file
    }
}

TEST_F(DeviceImageTest, RefusesBadImagesWithAReason) {
    DeviceImage image;
    std::string error;
    EXPECT_FALSE(parse_device_image(bytes_.data(), 16, &image, &error));
    EXPECT_FALSE(error.empty());

    std::vector<uint8_t> copy = bytes_;
    Elf64_Ehdr eh;
    std::memcpy(&eh, copy.data(), sizeof(eh));
    eh.e_machine = EM_X86_64;
    std::memcpy(copy.data(), &eh, sizeof(eh));
    EXPECT_FALSE(parse_device_image(copy.data(), copy.size(), &image, &error));
    EXPECT_NE(error.find("RISC-V"), std::string::npos) << error;

    copy = bytes_;
    std::memcpy(&eh, copy.data(), sizeof(eh));
    eh.e_type = ET_EXEC;
    std::memcpy(copy.data(), &eh, sizeof(eh));
    EXPECT_FALSE(parse_device_image(copy.data(), copy.size(), &image, &error));
    EXPECT_NE(error.find("-pie"), std::string::npos) << error;

    copy = bytes_;
    for (size_t i = 0; i + 4 <= copy.size(); i += 4) {
        uint32_t magic;
        std::memcpy(&magic, &copy[i], 4);
        if (magic == SIMTGPU_KTAB_MAGIC) {
            copy[i] ^= 0xff;
            break;
        }
    }
    EXPECT_FALSE(parse_device_image(copy.data(), copy.size(), &image, &error));
    EXPECT_NE(error.find("kernel table"), std::string::npos) << error;
}

} // namespace
