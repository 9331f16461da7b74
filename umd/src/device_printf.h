// Formats one device printf record on the host, as CUDA does when it drains
// the printf buffer: the format string comes from the module image and the
// arguments from the record, packed as clang's CUDA lowering packs vprintf's
// argument buffer (each at its natural alignment; float promoted to double;
// char and short promoted to int).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace simtgpu::umd {

// read_string(va) returns the NUL-terminated device string at va for %s, or
// nullopt-like empty with ok=false when unreadable.
using DeviceStringReader = std::function<bool(uint64_t va, std::string *out)>;

std::string format_device_printf(const std::string &format, const uint8_t *args,
                                 size_t args_bytes, const DeviceStringReader &read_string);

} // namespace simtgpu::umd
