#include "device_image.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/Error.h>

#include <algorithm>
#include <cstring>

namespace simtgpu::umd {

namespace {

using ELFT = llvm::object::ELF64LE;
using ElfFile = llvm::object::ELFFile<ELFT>;

std::string take(llvm::Error error) { return llvm::toString(std::move(error)); }

constexpr uint64_t kPage = SIMTGPU_PAGE_SIZE;
constexpr uint64_t kMaxSpan = kDeviceImageMaxSpan;
constexpr const char *kSpanRule = "PT_LOAD segments must start at address 0 and span under 4 GiB";

// Reads the kernel table section: header, entries, params, string table.
bool parse_kernel_table(llvm::ArrayRef<uint8_t> section, const DeviceImage &image,
                        std::vector<KernelInfo> *kernels, uint32_t *arch, std::string *error) {
    simtgpu_ktab_header header;
    if (section.size() < sizeof(header)) {
        *error = "kernel table " SIMTGPU_KERNEL_TABLE_SECTION " is shorter than its header";
        return false;
    }
    std::memcpy(&header, section.data(), sizeof(header));
    if (header.magic != SIMTGPU_KTAB_MAGIC || header.version != SIMTGPU_KTAB_VERSION) {
        *error = "kernel table has magic/version " + std::to_string(header.magic) + "/" +
                 std::to_string(header.version) + ", expected SKTB version " +
                 std::to_string(SIMTGPU_KTAB_VERSION);
        return false;
    }
    if (header.entry_size < sizeof(simtgpu_ktab_entry) ||
        header.param_size < sizeof(simtgpu_ktab_param) ||
        uint64_t(header.strtab_offset) + header.strtab_size > section.size()) {
        *error = "kernel table has bad record sizes or string table bounds";
        return false;
    }
    uint64_t entries_end = sizeof(header) + uint64_t(header.count) * header.entry_size;
    if (entries_end > section.size()) {
        *error = "kernel table entries run past the section";
        return false;
    }
    const char *strtab = reinterpret_cast<const char *>(section.data()) + header.strtab_offset;
    auto string_at = [&](uint32_t offset, std::string *out) {
        if (offset >= header.strtab_size)
            return false;
        const char *s = strtab + offset;
        size_t n = strnlen(s, header.strtab_size - offset);
        if (n == header.strtab_size - offset)
            return false;
        *out = std::string(s, n);
        return true;
    };
    *arch = header.arch;
    for (uint32_t i = 0; i < header.count; ++i) {
        simtgpu_ktab_entry entry;
        std::memcpy(&entry, section.data() + sizeof(header) + uint64_t(i) * header.entry_size,
                    sizeof(entry));
        KernelInfo kernel;
        std::string entry_symbol;
        if (!string_at(entry.name, &kernel.name) || !string_at(entry.entry_symbol, &entry_symbol)) {
            *error = "kernel table entry " + std::to_string(i) + " has a bad name offset";
            return false;
        }
        auto sym = image.symbols.find(entry_symbol);
        if (sym == image.symbols.end()) {
            *error = "kernel " + kernel.name + ": entry symbol " + entry_symbol +
                     " is not in the image's symbol table, or lies outside the image";
            return false;
        }
        kernel.entry_offset = sym->second.offset;
        kernel.param_bytes = entry.param_bytes;
        kernel.static_shared_bytes = entry.static_shared_bytes;
        kernel.stack_bytes = entry.stack_bytes;
        kernel.max_threads_per_cta = entry.max_threads_per_cta;
        uint64_t params_at = entries_end + uint64_t(entry.param_first) * header.param_size;
        if (params_at + uint64_t(entry.param_count) * header.param_size > header.strtab_offset &&
            entry.param_count) {
            *error = "kernel " + kernel.name + ": parameter records run past the table";
            return false;
        }
        for (uint32_t p = 0; p < entry.param_count; ++p) {
            simtgpu_ktab_param param;
            std::memcpy(&param, section.data() + params_at + uint64_t(p) * header.param_size,
                        sizeof(param));
            if (uint64_t(param.offset) + param.size > entry.param_bytes) {
                *error = "kernel " + kernel.name + ": parameter " + std::to_string(p) +
                         " lies outside its " + std::to_string(entry.param_bytes) +
                         "-byte parameter buffer";
                return false;
            }
            kernel.params.push_back(param);
        }
        kernels->push_back(std::move(kernel));
    }
    return true;
}

} // namespace

bool parse_device_image(const void *data, size_t size, DeviceImage *out, std::string *error,
                        uint64_t max_span) {
    *out = DeviceImage{};
    // ELFFile<ELF64LE>::create checks only that the header fits.
    const auto *ident = static_cast<const unsigned char *>(data);
    if (size >= llvm::ELF::EI_NIDENT) {
        if (std::memcmp(ident, llvm::ELF::ElfMagic, 4) != 0) {
            *error = "not an ELF image (no \\177ELF at its start)";
            return false;
        }
        if (ident[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
            ident[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB) {
            *error = "not an ELF64 little-endian image (class " +
                     std::to_string(ident[llvm::ELF::EI_CLASS]) + ", data " +
                     std::to_string(ident[llvm::ELF::EI_DATA]) + ")";
            return false;
        }
    }
    auto file_or = ElfFile::create(
        llvm::StringRef(static_cast<const char *>(data), size));
    if (!file_or) {
        *error = "not an ELF64 little-endian image: " + take(file_or.takeError());
        return false;
    }
    const ElfFile &elf = *file_or;
    const auto &eh = elf.getHeader();
    if (eh.e_machine != llvm::ELF::EM_RISCV) {
        *error = "not a RISC-V image (e_machine " + std::to_string(eh.e_machine) + ")";
        return false;
    }
    if (eh.e_type != llvm::ELF::ET_DYN) {
        *error = "the image is not position-independent (ET_EXEC): build device code with "
                 "-fPIE and link it with -pie, so it can be placed at any address";
        return false;
    }

    // Segments: one span from the lowest to the highest PT_LOAD address.
    auto phdrs = elf.program_headers();
    if (!phdrs) {
        *error = take(phdrs.takeError());
        return false;
    }
    uint64_t low = UINT64_MAX, high = 0;
    for (const auto &ph : *phdrs) {
        if (ph.p_type != llvm::ELF::PT_LOAD)
            continue;
        // Each sum checked without wrapping past 2^64; an empty segment's
        // too, since its file bytes are copied below (tests/fuzz found one).
        if (ph.p_filesz > ph.p_memsz || ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
            *error = "a PT_LOAD segment lies outside the file";
            return false;
        }
        if (ph.p_memsz == 0)
            continue;
        if (ph.p_vaddr > kMaxSpan || ph.p_memsz > kMaxSpan - ph.p_vaddr) {
            *error = kSpanRule;
            return false;
        }
        low = std::min<uint64_t>(low, ph.p_vaddr);
        high = std::max<uint64_t>(high, ph.p_vaddr + ph.p_memsz);
    }
    if (low == UINT64_MAX) {
        *error = "the image has no PT_LOAD segment";
        return false;
    }
    if (low != 0) {
        *error = kSpanRule;
        return false;
    }
    if (high > max_span) {
        *error = "the image's segments span " + std::to_string(high) + " bytes, over the " +
                 std::to_string(max_span) + "-byte limit";
        return false;
    }
    out->bytes.assign((high + kPage - 1) & ~(kPage - 1), 0);
    for (const auto &ph : *phdrs)
        if (ph.p_type == llvm::ELF::PT_LOAD && ph.p_filesz)
            std::memcpy(out->bytes.data() + ph.p_vaddr,
                        static_cast<const uint8_t *>(data) + ph.p_offset, ph.p_filesz);

    auto sections = elf.sections();
    if (!sections) {
        *error = take(sections.takeError());
        return false;
    }
    // Symbols, from .symtab and .dynsym.
    for (const auto &sec : *sections) {
        if (sec.sh_type != llvm::ELF::SHT_SYMTAB && sec.sh_type != llvm::ELF::SHT_DYNSYM)
            continue;
        auto syms = elf.symbols(&sec);
        auto strtab = elf.getStringTableForSymtab(sec);
        if (!syms || !strtab) {
            *error = "bad symbol table";
            if (!syms)
                llvm::consumeError(syms.takeError());
            if (!strtab)
                llvm::consumeError(strtab.takeError());
            return false;
        }
        for (const auto &sym : *syms) {
            if (sym.st_shndx == llvm::ELF::SHN_UNDEF || sym.st_name == 0)
                continue;
            // A symbol must name bytes of this image: one outside it (a
            // linker's __global_pointer$, or a crafted one) could hand a
            // kernel entry or a global's address beyond the module.
            const uint64_t span = out->bytes.size();
            if (sym.st_value > span || sym.st_size > span - sym.st_value)
                continue;
            auto name = sym.getName(*strtab);
            if (!name) {
                llvm::consumeError(name.takeError());
                continue;
            }
            out->symbols.emplace(name->str(), SymbolInfo{sym.st_value, sym.st_size});
        }
    }

    // Dynamic relocations, from the allocated SHT_RELA sections.
    for (const auto &sec : *sections) {
        if (sec.sh_type != llvm::ELF::SHT_RELA || !(sec.sh_flags & llvm::ELF::SHF_ALLOC))
            continue;
        auto relas = elf.relas(sec);
        if (!relas) {
            *error = take(relas.takeError());
            return false;
        }
        const ELFT::Shdr *symtab = nullptr;
        if (sec.sh_link && sec.sh_link < sections->size())
            symtab = &(*sections)[sec.sh_link];
        for (const auto &rela : *relas) {
            DeviceImage::Relocation r;
            r.offset = rela.r_offset;
            r.type = rela.getType(false);
            r.addend = rela.r_addend;
            if (r.type == llvm::ELF::R_RISCV_NONE)
                continue;
            if (r.type != llvm::ELF::R_RISCV_RELATIVE && r.type != llvm::ELF::R_RISCV_64 &&
                r.type != llvm::ELF::R_RISCV_JUMP_SLOT) {
                *error = "unsupported dynamic relocation type " + std::to_string(r.type) +
                         " at offset " + std::to_string(r.offset);
                return false;
            }
            if (out->bytes.size() < 8 || r.offset > out->bytes.size() - 8) {
                *error = "a relocation lies outside the loaded segments";
                return false;
            }
            uint32_t index = rela.getSymbol(false);
            if (r.type != llvm::ELF::R_RISCV_RELATIVE && index) {
                if (!symtab) {
                    *error = "a symbolic relocation has no symbol table";
                    return false;
                }
                auto sym = elf.getRelocationSymbol(rela, symtab);
                if (!sym || !*sym) {
                    if (!sym)
                        llvm::consumeError(sym.takeError());
                    *error = "a relocation names a bad symbol";
                    return false;
                }
                if ((*sym)->st_shndx == llvm::ELF::SHN_UNDEF) {
                    if ((*sym)->getBinding() != llvm::ELF::STB_WEAK) {
                        auto strtab = elf.getStringTableForSymtab(*symtab);
                        std::string name = "?";
                        if (strtab) {
                            if (auto n = (*sym)->getName(*strtab))
                                name = n->str();
                            else
                                llvm::consumeError(n.takeError());
                        } else {
                            llvm::consumeError(strtab.takeError());
                        }
                        *error = "undefined symbol " + name +
                                 " (device images are self-contained: link everything in)";
                        return false;
                    }
                    continue; // undefined weak: stays 0
                }
                r.has_symbol = true;
                r.symbol_offset = (*sym)->st_value;
            }
            out->relocations.push_back(r);
        }
    }

    // Kernel table.
    for (const auto &sec : *sections) {
        auto name = elf.getSectionName(sec);
        if (!name) {
            llvm::consumeError(name.takeError());
            continue;
        }
        if (*name != SIMTGPU_KERNEL_TABLE_SECTION)
            continue;
        auto contents = elf.getSectionContents(sec);
        if (!contents) {
            *error = take(contents.takeError());
            return false;
        }
        return parse_kernel_table(*contents, *out, &out->kernels, &out->arch, error);
    }
    *error = "the image has no kernel table (section " SIMTGPU_KERNEL_TABLE_SECTION
             "): was it built by simtcc?";
    return false;
}

std::vector<uint8_t> DeviceImage::relocated(uint64_t base) const {
    std::vector<uint8_t> image = bytes;
    for (const auto &r : relocations) {
        uint64_t value = r.type == llvm::ELF::R_RISCV_RELATIVE
                             ? base + r.addend
                             : (r.has_symbol ? base + r.symbol_offset : 0) + r.addend;
        std::memcpy(image.data() + r.offset, &value, sizeof(value));
    }
    return image;
}

const KernelInfo *DeviceImage::find_kernel(const std::string &name) const {
    for (const auto &k : kernels)
        if (k.name == name)
            return &k;
    return nullptr;
}

} // namespace simtgpu::umd
