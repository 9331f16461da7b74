// Loading device ELFs: segments, relocations, kernel table, symbols, and the
// errors bad images get.
#include "device_image.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cstring>
#include <elf.h>
#include <memory>
#include <string>

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

// ---- Every refusal path of parse_device_image, each with its own error ----
// The test image with one field changed: ElfEdit reads and writes the ELF's
// structures in place by offset (memcpy, so no alignment is assumed).
class ElfEdit {
public:
    explicit ElfEdit(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
    template <class T> T get(uint64_t offset) const {
        T v;
        std::memcpy(&v, bytes_.data() + offset, sizeof(T));
        return v;
    }
    template <class T, class F> void edit(uint64_t offset, F change) {
        T v = get<T>(offset);
        change(v);
        std::memcpy(bytes_.data() + offset, &v, sizeof(T));
    }
    Elf64_Ehdr header() const { return get<Elf64_Ehdr>(0); }
    template <class F> void edit_header(F change) { edit<Elf64_Ehdr>(0, change); }
    uint64_t phdr_at(unsigned i) const { return header().e_phoff + uint64_t(i) * sizeof(Elf64_Phdr); }
    uint64_t shdr_at(unsigned i) const { return header().e_shoff + uint64_t(i) * sizeof(Elf64_Shdr); }
    Elf64_Shdr section(unsigned i) const { return get<Elf64_Shdr>(shdr_at(i)); }
    // The index of the section named `name` (the test fails without one).
    unsigned section_index(const char *name) const {
        const Elf64_Shdr names = section(header().e_shstrndx);
        for (unsigned i = 0; i < header().e_shnum; ++i)
            if (!std::strcmp(reinterpret_cast<const char *>(bytes_.data()) + names.sh_offset +
                                 section(i).sh_name,
                             name))
                return i;
        ADD_FAILURE() << "no section " << name;
        return 0;
    }
    template <class F> void edit_section(const char *name, F change) {
        edit<Elf64_Shdr>(shdr_at(section_index(name)), change);
    }
    // Every PT_LOAD program header, by index.
    std::vector<unsigned> loads() const {
        std::vector<unsigned> out;
        for (unsigned i = 0; i < header().e_phnum; ++i)
            if (get<Elf64_Phdr>(phdr_at(i)).p_type == PT_LOAD)
                out.push_back(i);
        return out;
    }
    template <class F> void edit_load(unsigned n, F change) {
        edit<Elf64_Phdr>(phdr_at(loads().at(n)), change);
    }
    // Where a section's contents start in the file.
    uint64_t contents(const char *name) const { return section(section_index(name)).sh_offset; }
    // The kernel table's header, entry i and param record i.
    template <class F> void edit_ktab(F change) {
        edit<simtgpu_ktab_header>(contents(SIMTGPU_KERNEL_TABLE_SECTION), change);
    }
    uint64_t ktab_entry_at(unsigned i) const {
        return contents(SIMTGPU_KERNEL_TABLE_SECTION) + sizeof(simtgpu_ktab_header) +
               uint64_t(i) * sizeof(simtgpu_ktab_entry);
    }
    template <class F> void edit_ktab_entry(unsigned i, F change) {
        edit<simtgpu_ktab_entry>(ktab_entry_at(i), change);
    }
    template <class F> void edit_first_rela(F change) {
        edit<Elf64_Rela>(contents(".rela.dyn"), change);
    }
    // parse_device_image's error, or "parsed" when it accepts the image.
    std::string error() const {
        DeviceImage image;
        std::string error;
        return parse_device_image(bytes_.data(), bytes_.size(), &image, &error) ? "parsed" : error;
    }
    std::vector<uint8_t> &bytes() { return bytes_; }

private:
    std::vector<uint8_t> bytes_;
};

class DeviceImageRefusal : public DeviceImageTest {
protected:
    void SetUp() override {
        DeviceImageTest::SetUp();
        elf_ = std::make_unique<ElfEdit>(bytes_);
        ASSERT_EQ(elf_->error(), "parsed") << "the unchanged image must parse";
        ASSERT_EQ(elf_->loads().size(), 4u) << "umd_kernels.elf's layout changed";
    }
    ElfEdit &elf() { return *elf_; }
    std::unique_ptr<ElfEdit> elf_;
};

#define EXPECT_REFUSED(edit, why) EXPECT_THAT_ERROR_CONTAINS(edit.error(), why)
#define EXPECT_THAT_ERROR_CONTAINS(error, why)                                         \
    do {                                                                               \
        const std::string e_ = (error);                                                \
        EXPECT_NE(e_, "parsed") << "accepted; expected a refusal naming: " << (why);  \
        EXPECT_NE(e_.find(why), std::string::npos) << "the error: " << e_;           \
    } while (0)

// LLVM's ELFFile<ELF64LE>::create checks only the size: an ELF32 or
// big-endian header was once read as ELF64LE.
TEST_F(DeviceImageRefusal, NotElf64LittleEndian) {
    EXPECT_THAT_ERROR_CONTAINS(ElfEdit(std::vector<uint8_t>(bytes_.begin(), bytes_.begin() + 40)).error(),
                               "not an ELF64 little-endian image");
    elf().edit_header([](Elf64_Ehdr &h) { h.e_ident[EI_CLASS] = ELFCLASS32; });
    EXPECT_REFUSED(elf(), "not an ELF64 little-endian image (class 1, data 1)");
    elf().edit_header([](Elf64_Ehdr &h) {
        h.e_ident[EI_CLASS] = ELFCLASS64;
        h.e_ident[EI_DATA] = ELFDATA2MSB;
    });
    EXPECT_REFUSED(elf(), "not an ELF64 little-endian image (class 2, data 2)");
    elf().edit_header([](Elf64_Ehdr &h) {
        h.e_ident[EI_DATA] = ELFDATA2LSB;
        h.e_ident[EI_MAG1] = 'e';
    });
    EXPECT_REFUSED(elf(), "not an ELF image (no \\177ELF at its start)");
}

TEST_F(DeviceImageRefusal, ProgramHeadersOutsideTheFile) {
    elf().edit_header([&](Elf64_Ehdr &h) { h.e_phoff = elf().bytes().size() - 8; });
    EXPECT_REFUSED(elf(), "program headers");
}

TEST_F(DeviceImageRefusal, SegmentFileSizeOverMemorySize) {
    elf().edit_load(1, [](Elf64_Phdr &ph) { ph.p_filesz = ph.p_memsz + 1; });
    EXPECT_REFUSED(elf(), "a PT_LOAD segment lies outside the file");
}

TEST_F(DeviceImageRefusal, SegmentPastTheEndOfTheFile) {
    const uint64_t size = elf().bytes().size();
    elf().edit_load(1, [&](Elf64_Phdr &ph) { ph.p_offset = size - ph.p_filesz + 1; });
    EXPECT_REFUSED(elf(), "a PT_LOAD segment lies outside the file");
}

// p_offset + p_filesz wraps past 2^64 to a small number: once read past the
// end of the file (found by tests/fuzz/device_image).
TEST_F(DeviceImageRefusal, SegmentOffsetThatWraps) {
    elf().edit_load(1, [](Elf64_Phdr &ph) { ph.p_offset = ~uint64_t(0) - ph.p_filesz + 2; });
    EXPECT_REFUSED(elf(), "a PT_LOAD segment lies outside the file");
}

// A segment with file bytes and no memory was skipped by the checks and then
// copied: 393914 bytes read past a fuzzer's input (tests/fuzz/device_image).
TEST_F(DeviceImageRefusal, SegmentWithFileBytesButNoMemory) {
    const uint64_t size = elf().bytes().size();
    elf().edit_load(3, [&](Elf64_Phdr &ph) {
        ph.p_memsz = 0;
        ph.p_filesz = size;
    });
    EXPECT_REFUSED(elf(), "a PT_LOAD segment lies outside the file");
}

TEST_F(DeviceImageRefusal, NoLoadSegment) {
    for (unsigned i = 0; i < 4; ++i)
        elf().edit_load(0, [](Elf64_Phdr &ph) { ph.p_type = PT_NULL; });
    EXPECT_REFUSED(elf(), "the image has no PT_LOAD segment");
}

TEST_F(DeviceImageRefusal, SegmentsNotFromAddressZero) {
    elf().edit_load(0, [](Elf64_Phdr &ph) { ph.p_vaddr = 0x1000; });
    EXPECT_REFUSED(elf(), "must start at address 0 and span under 4 GiB");
}

TEST_F(DeviceImageRefusal, SegmentsSpanningFourGiB) {
    elf().edit_load(3, [](Elf64_Phdr &ph) { ph.p_memsz = (1ull << 32) - ph.p_vaddr + 1; });
    EXPECT_REFUSED(elf(), "must start at address 0 and span under 4 GiB");
}

// p_vaddr + p_memsz wraps past 2^64: once written far outside the image.
TEST_F(DeviceImageRefusal, SegmentAddressThatWraps) {
    elf().edit_load(3, [](Elf64_Phdr &ph) {
        ph.p_vaddr = ~uint64_t(0) - 0xfff;
        ph.p_memsz = 0x2000;
    });
    EXPECT_REFUSED(elf(), "must start at address 0 and span under 4 GiB");
}

TEST_F(DeviceImageRefusal, SpanOverTheCallersLimit) {
    DeviceImage image;
    std::string error;
    EXPECT_FALSE(parse_device_image(bytes_.data(), bytes_.size(), &image, &error, 0x2000));
    EXPECT_NE(error.find("over the 8192-byte limit"), std::string::npos) << error;
}

TEST_F(DeviceImageRefusal, SectionHeadersOutsideTheFile) {
    elf().edit_header([&](Elf64_Ehdr &h) { h.e_shoff = elf().bytes().size() - 8; });
    EXPECT_REFUSED(elf(), "section header table");
}

TEST_F(DeviceImageRefusal, SymbolTableWithoutAStringTable) {
    const unsigned text = elf().section_index(".text");
    elf().edit_section(".symtab", [&](Elf64_Shdr &sh) { sh.sh_link = text; });
    EXPECT_REFUSED(elf(), "bad symbol table");
}

TEST_F(DeviceImageRefusal, RelocationsOfTheWrongEntrySize) {
    elf().edit_section(".rela.dyn", [](Elf64_Shdr &sh) { sh.sh_entsize = 16; });
    EXPECT_REFUSED(elf(), "sh_entsize");
}

TEST_F(DeviceImageRefusal, UnsupportedRelocationType) {
    elf().edit_first_rela([](Elf64_Rela &r) { r.r_info = ELF64_R_INFO(0, R_RISCV_32); });
    EXPECT_REFUSED(elf(), "unsupported dynamic relocation type 1");
}

TEST_F(DeviceImageRefusal, RelocationOutsideTheSegments) {
    elf().edit_first_rela([](Elf64_Rela &r) { r.r_offset = 0x10000; });
    EXPECT_REFUSED(elf(), "a relocation lies outside the loaded segments");
}

// r_offset + 8 wraps past 2^64: once let DeviceImage::relocated() write
// outside the image.
TEST_F(DeviceImageRefusal, RelocationOffsetThatWraps) {
    elf().edit_first_rela([](Elf64_Rela &r) { r.r_offset = ~uint64_t(0) - 3; });
    EXPECT_REFUSED(elf(), "a relocation lies outside the loaded segments");
}

TEST_F(DeviceImageRefusal, SymbolicRelocationWithoutASymbolTable) {
    elf().edit_first_rela([](Elf64_Rela &r) { r.r_info = ELF64_R_INFO(1, R_RISCV_64); });
    elf().edit_section(".rela.dyn", [](Elf64_Shdr &sh) { sh.sh_link = 0; });
    EXPECT_REFUSED(elf(), "a symbolic relocation has no symbol table");
}

TEST_F(DeviceImageRefusal, RelocationNamingNoSymbol) {
    // .dynsym holds only the null symbol.
    elf().edit_first_rela([](Elf64_Rela &r) { r.r_info = ELF64_R_INFO(7, R_RISCV_64); });
    EXPECT_REFUSED(elf(), "a relocation names a bad symbol");
}

TEST_F(DeviceImageRefusal, RelocationAgainstAnUndefinedSymbol) {
    // Against .symtab's symbol 1 (umd_kernels.c's FILE symbol), made global
    // and undefined.
    const unsigned symtab = elf().section_index(".symtab");
    elf().edit_section(".rela.dyn", [&](Elf64_Shdr &sh) { sh.sh_link = symtab; });
    elf().edit_first_rela([](Elf64_Rela &r) { r.r_info = ELF64_R_INFO(1, R_RISCV_64); });
    elf().edit<Elf64_Sym>(elf().contents(".symtab") + sizeof(Elf64_Sym), [](Elf64_Sym &s) {
        s.st_shndx = SHN_UNDEF;
        s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE);
    });
    EXPECT_REFUSED(elf(), "undefined symbol umd_kernels.c (device images are self-contained");
    // Weak, it stays 0 and the image loads.
    elf().edit<Elf64_Sym>(elf().contents(".symtab") + sizeof(Elf64_Sym), [](Elf64_Sym &s) {
        s.st_info = ELF64_ST_INFO(STB_WEAK, STT_NOTYPE);
    });
    EXPECT_EQ(elf().error(), "parsed");
}

TEST_F(DeviceImageRefusal, KernelTableOutsideTheFile) {
    elf().edit_section(SIMTGPU_KERNEL_TABLE_SECTION,
                       [&](Elf64_Shdr &sh) { sh.sh_offset = elf().bytes().size(); });
    EXPECT_REFUSED(elf(), "section [index 7] has a sh_offset");
}

TEST_F(DeviceImageRefusal, NoKernelTable) {
    const Elf64_Shdr names = elf().section(elf().header().e_shstrndx);
    const unsigned ktab = elf().section_index(SIMTGPU_KERNEL_TABLE_SECTION);
    elf().bytes()[names.sh_offset + elf().section(ktab).sh_name + 1] = 'X';
    EXPECT_REFUSED(elf(), "the image has no kernel table (section .simt.kernels): was it built "
                          "by simtcc?");
}

TEST_F(DeviceImageRefusal, KernelTableShorterThanItsHeader) {
    elf().edit_section(SIMTGPU_KERNEL_TABLE_SECTION, [](Elf64_Shdr &sh) { sh.sh_size = 8; });
    EXPECT_REFUSED(elf(), "is shorter than its header");
}

TEST_F(DeviceImageRefusal, KernelTableOfAnotherVersion) {
    elf().edit_ktab([](simtgpu_ktab_header &h) { h.version = SIMTGPU_KTAB_VERSION + 1; });
    EXPECT_REFUSED(elf(), "kernel table has magic/version 1112820563/2, expected SKTB version 1");
}

TEST_F(DeviceImageRefusal, KernelTableRecordsTooSmall) {
    elf().edit_ktab([](simtgpu_ktab_header &h) { h.entry_size = sizeof(simtgpu_ktab_entry) - 4; });
    EXPECT_REFUSED(elf(), "kernel table has bad record sizes or string table bounds");
    elf().edit_ktab([](simtgpu_ktab_header &h) {
        h.entry_size = sizeof(simtgpu_ktab_entry);
        h.param_size = sizeof(simtgpu_ktab_param) - 4;
    });
    EXPECT_REFUSED(elf(), "kernel table has bad record sizes or string table bounds");
}

TEST_F(DeviceImageRefusal, KernelTableStringsPastTheSection) {
    const uint64_t bytes = elf().section(elf().section_index(SIMTGPU_KERNEL_TABLE_SECTION)).sh_size;
    elf().edit_ktab([&](simtgpu_ktab_header &h) { h.strtab_size = uint32_t(bytes - h.strtab_offset + 1); });
    EXPECT_REFUSED(elf(), "kernel table has bad record sizes or string table bounds");
}

TEST_F(DeviceImageRefusal, KernelTableEntriesPastTheSection) {
    elf().edit_ktab([](simtgpu_ktab_header &h) { h.count = 0x10000000; });
    EXPECT_REFUSED(elf(), "kernel table entries run past the section");
}

TEST_F(DeviceImageRefusal, KernelNameOutsideTheStrings) {
    const uint32_t strings = elf().get<simtgpu_ktab_header>(
        elf().contents(SIMTGPU_KERNEL_TABLE_SECTION)).strtab_size;
    elf().edit_ktab_entry(3, [&](simtgpu_ktab_entry &e) { e.name = strings; });
    EXPECT_REFUSED(elf(), "kernel table entry 3 has a bad name offset");
}

TEST_F(DeviceImageRefusal, KernelNameWithoutItsNul) {
    // The string table's last byte, its last string's NUL, made a letter.
    const uint64_t ktab = elf().contents(SIMTGPU_KERNEL_TABLE_SECTION);
    const auto h = elf().get<simtgpu_ktab_header>(ktab);
    elf().bytes()[ktab + h.strtab_offset + h.strtab_size - 1] = 'x';
    elf().edit_ktab_entry(h.count - 1, [&](simtgpu_ktab_entry &e) {
        e.entry_symbol = h.strtab_size - 1; // the unterminated "x"
    });
    EXPECT_REFUSED(elf(), "kernel table entry " + std::to_string(h.count - 1) +
                              " has a bad name offset");
}

TEST_F(DeviceImageRefusal, EntrySymbolNotInTheImage) {
    // The entry symbol's name from its second letter: vec_add_entry -> ec_add_entry.
    elf().edit_ktab_entry(0, [](simtgpu_ktab_entry &e) { e.entry_symbol += 1; });
    EXPECT_REFUSED(elf(), "kernel vec_add: entry symbol ec_add_entry is not in the image's "
                          "symbol table");
}

// A symbol whose bytes lie outside the image names no memory of the module:
// it is left out, and a kernel entered there is refused.
TEST_F(DeviceImageRefusal, EntrySymbolOutsideTheImage) {
    const uint64_t symtab = elf().contents(".symtab");
    const uint64_t count = elf().section(elf().section_index(".symtab")).sh_size / sizeof(Elf64_Sym);
    const uint64_t strtab = elf().contents(".strtab");
    bool moved = false;
    for (uint64_t i = 1; i < count && !moved; ++i) {
        const auto sym = elf().get<Elf64_Sym>(symtab + i * sizeof(Elf64_Sym));
        if (std::strcmp(reinterpret_cast<const char *>(elf().bytes().data()) + strtab + sym.st_name,
                        "vec_add_entry"))
            continue;
        elf().edit<Elf64_Sym>(symtab + i * sizeof(Elf64_Sym),
                              [](Elf64_Sym &s) { s.st_value = 0x100000; });
        moved = true;
    }
    ASSERT_TRUE(moved) << "no vec_add_entry in .symtab";
    EXPECT_REFUSED(elf(), "kernel vec_add: entry symbol vec_add_entry is not in the image's "
                          "symbol table, or lies outside the image");
}

TEST_F(DeviceImageRefusal, ParamRecordsPastTheTable) {
    elf().edit_ktab_entry(0, [](simtgpu_ktab_entry &e) { e.param_first = 1000; });
    EXPECT_REFUSED(elf(), "kernel vec_add: parameter records run past the table");
}

TEST_F(DeviceImageRefusal, ParamOutsideItsBuffer) {
    elf().edit_ktab_entry(0, [](simtgpu_ktab_entry &e) { e.param_bytes = 27; });
    EXPECT_REFUSED(elf(), "kernel vec_add: parameter 3 lies outside its 27-byte parameter buffer");
}

} // namespace
