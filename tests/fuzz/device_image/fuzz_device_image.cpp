// libFuzzer target: the device-image (ELF) parser of libsimtgpu
// (umd/src/device_image.cpp), which reads whatever a program hands
// cuModuleLoadData. An image is either refused with a reason or parsed into
// something every later step may trust: kernels entered inside the image,
// symbols and relocations within it, parameters within their buffers.
#include "device_image.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using simtgpu::umd::DeviceImage;

namespace {

// What parse_device_image promises of an image it accepts.
void check_invariants(const DeviceImage &image) {
    const uint64_t span = image.bytes.size();
    if (span % SIMTGPU_PAGE_SIZE)
        abort();
    for (const auto &k : image.kernels) {
        if (k.entry_offset >= span && span)
            abort();
        for (const auto &p : k.params)
            if (uint64_t(p.offset) + p.size > k.param_bytes)
                abort();
        if (image.find_kernel(k.name) == nullptr)
            abort();
    }
    for (const auto &[name, sym] : image.symbols)
        if (sym.offset > span || sym.size > span - sym.offset)
            abort();
    for (const auto &r : image.relocations)
        if (r.offset > span || span - r.offset < 8)
            abort();
    // Placing it writes every relocation inside the copy (ASan checks).
    const std::vector<uint8_t> placed = image.relocated(0x7654320000ull);
    if (placed.size() != span)
        abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    DeviceImage image;
    std::string error;
    // 64 MiB: an image may ask for 4 GiB of .bss, which is no bug but more
    // host memory than a fuzzer's run may take.
    if (simtgpu::umd::parse_device_image(data, size, &image, &error, 64ull << 20))
        check_invariants(image);
    else if (error.empty())
        abort(); // every refusal says why
    return 0;
}
