#include "elf64.h"

#include <cstring>
#include <elf.h>
#include <fstream>
#include <iterator>

namespace simtgpu::tools {
namespace {

// Copies a T at `offset` when the file holds it whole.
template <typename T> bool read_at(const std::vector<uint8_t> &file, uint64_t offset, T &out) {
    if (offset > file.size() || sizeof(T) > file.size() - offset)
        return false;
    std::memcpy(&out, file.data() + offset, sizeof(T));
    return true;
}

bool range_ok(const std::vector<uint8_t> &file, uint64_t offset, uint64_t size) {
    return offset <= file.size() && size <= file.size() - offset;
}

} // namespace

Expected<ElfImage> read_elf(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open: " + std::strerror(errno)};
    ElfImage image;
    image.file.assign(std::istreambuf_iterator<char>(in), {});
    const auto &file = image.file;

    Elf64_Ehdr eh;
    if (!read_at(file, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return Error{path + ": not an ELF file"};
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return Error{path + ": not a 64-bit little-endian ELF (RV64 images are)"};
    if (eh.e_machine != EM_RISCV)
        return Error{path + ": not a RISC-V image (e_machine " + std::to_string(eh.e_machine) + ")"};
    if (eh.e_type != ET_EXEC)
        return Error{path + ": not a statically linked executable (link with -static, no -pie)"};
    if (eh.e_phentsize != sizeof(Elf64_Phdr))
        return Error{path + ": unexpected program header size"};
    image.entry = eh.e_entry;

    for (uint32_t i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        if (!read_at(file, eh.e_phoff + uint64_t(i) * sizeof ph, ph))
            return Error{path + ": program header " + std::to_string(i) + " lies outside the file"};
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (ph.p_filesz > ph.p_memsz || !range_ok(file, ph.p_offset, ph.p_filesz))
            return Error{path + ": PT_LOAD segment " + std::to_string(i) + " is malformed"};
        if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
            return Error{path + ": PT_LOAD segment " + std::to_string(i) + " wraps around"};
        ElfSegment seg;
        seg.vaddr = ph.p_vaddr;
        seg.memsz = ph.p_memsz;
        seg.data.assign(file.begin() + ph.p_offset, file.begin() + ph.p_offset + ph.p_filesz);
        seg.readable = ph.p_flags & PF_R;
        seg.writable = ph.p_flags & PF_W;
        seg.executable = ph.p_flags & PF_X;
        image.segments.push_back(std::move(seg));
    }
    if (image.segments.empty())
        return Error{path + ": no PT_LOAD segment to run"};
    return image;
}

std::optional<uint64_t> ElfImage::symbol(const std::string &name) const {
    Elf64_Ehdr eh;
    if (!read_at(file, 0, eh) || eh.e_shentsize != sizeof(Elf64_Shdr))
        return std::nullopt;
    for (uint32_t i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr sh, strtab;
        if (!read_at(file, eh.e_shoff + uint64_t(i) * sizeof sh, sh) || sh.sh_type != SHT_SYMTAB)
            continue;
        if (!read_at(file, eh.e_shoff + uint64_t(sh.sh_link) * sizeof strtab, strtab) ||
            !range_ok(file, strtab.sh_offset, strtab.sh_size) || !range_ok(file, sh.sh_offset, sh.sh_size))
            return std::nullopt;
        for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= sh.sh_size; at += sizeof(Elf64_Sym)) {
            Elf64_Sym sym;
            read_at(file, sh.sh_offset + at, sym);
            if (sym.st_shndx == SHN_UNDEF || sym.st_name >= strtab.sh_size)
                continue;
            const char *s = reinterpret_cast<const char *>(file.data() + strtab.sh_offset + sym.st_name);
            const size_t max = strtab.sh_size - sym.st_name;
            if (strnlen(s, max) < max && name == s)
                return sym.st_value;
        }
    }
    return std::nullopt;
}

} // namespace simtgpu::tools
