// Shared helpers of the umd tests: the test kernels' image, and reading
// files.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace simtgpu::umd::test {

inline std::vector<uint8_t> read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
}

} // namespace simtgpu::umd::test

extern "C" const uint8_t umd_test_kernels_begin[], umd_test_kernels_end[]; // kernels_blob.cpp

namespace simtgpu::umd::test {

// The bare-metal test kernels (programs/umd_kernels.c), embedded in the
// binary; SIMTGPU_TEST_KERNELS names another image to use instead.
inline std::vector<uint8_t> kernels_image() {
    if (const char *p = std::getenv("SIMTGPU_TEST_KERNELS"))
        return read_file(p);
    return std::vector<uint8_t>(umd_test_kernels_begin, umd_test_kernels_end);
}

} // namespace simtgpu::umd::test
