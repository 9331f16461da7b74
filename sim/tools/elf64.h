// A small, bounds-checked reader of statically linked RV64 ELF images: the
// PT_LOAD segments and the symbol table. Every offset and size in the file
// is checked before use; a malformed file gives an error, never a crash.
#pragma once

#include "support/expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simtgpu::tools {

struct ElfSegment {
    uint64_t vaddr = 0;
    uint64_t memsz = 0;
    std::vector<uint8_t> data; // filesz bytes; the rest up to memsz is zero
    bool readable = false, writable = false, executable = false;
};

struct ElfImage {
    uint64_t entry = 0;
    std::vector<ElfSegment> segments;
    std::vector<uint8_t> file; // kept for symbol lookups

    // Value of a defined symbol named `name`, from .symtab.
    std::optional<uint64_t> symbol(const std::string &name) const;
};

Expected<ElfImage> read_elf(const std::string &path);

} // namespace simtgpu::tools
