// Shared helpers of the umd tests: where the test kernels are, and reading
// files.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace simtgpu::umd::test {

// The bare-metal test kernels (programs/umd_kernels.c). SIMTGPU_TEST_KERNELS
// overrides the build-tree path, for runs in the guest.
inline std::string kernels_path() {
    if (const char *p = std::getenv("SIMTGPU_TEST_KERNELS"))
        return p;
    return UMD_TEST_KERNELS;
}

inline std::vector<uint8_t> read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
}

} // namespace simtgpu::umd::test
