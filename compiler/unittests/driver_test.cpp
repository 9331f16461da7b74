// SPDX-License-Identifier: MIT
// End-to-end tests of the simtcc binary: the device images it writes (read
// back with LLVM's ELF reader and checked against hw.h) and its refusals.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "simtgpu/hw.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace {

struct ToolRun {
    int status;
    std::string output; // stdout and stderr
};

ToolRun run_command(const std::string &command) {
    ToolRun run{-1, ""};
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe)
        return run;
    char buffer[4096];
    for (size_t got; (got = fread(buffer, 1, sizeof(buffer), pipe)) > 0;)
        run.output.append(buffer, got);
    int status = pclose(pipe);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

ToolRun simtcc(const std::string &arguments) {
    return run_command(std::string(SIMTCC_BINARY) + " " + arguments + " 2>&1");
}

// Runs a program simtcc built, on the in-process device.
ToolRun simtcc_run(const std::string &program) {
    return run_command("SIMTGPU_TRANSPORT=sim " + program + " 2>&1");
}

std::string input(const char *name) {
    return std::string(SIMTCC_TEST_INPUTS) + "/" + name;
}

std::string temporary(const char *suffix) {
    SmallString<128> path;
    EXPECT_FALSE(sys::fs::createTemporaryFile("simtcc-driver-test", suffix, path));
    return std::string(path);
}

std::string slurp(const std::string &path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(Driver, DeviceImageIsARelocatableRiscvElfWithAKernelTable) {
    std::string image = temporary("elf");
    ToolRun run = simtcc("--device-only " + input("kernels.cu") + " -o " + image);
    ASSERT_EQ(run.status, 0) << run.output;

    auto buffer = MemoryBuffer::getFile(image);
    ASSERT_TRUE(bool(buffer));
    auto file = object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
    ASSERT_TRUE(bool(file)) << toString(file.takeError());
    auto *elf = dyn_cast<object::ELF64LEObjectFile>(file->get());
    ASSERT_TRUE(elf);
    const auto &header = elf->getELFFile().getHeader();
    EXPECT_EQ(header.e_type, ELF::ET_DYN);
    EXPECT_EQ(header.e_machine, ELF::EM_RISCV);
    EXPECT_TRUE(header.e_flags & ELF::EF_RISCV_FLOAT_ABI_DOUBLE);

    auto segments = elf->getELFFile().program_headers();
    ASSERT_TRUE(bool(segments));
    int loads = 0;
    for (const auto &segment : *segments)
        loads += segment.p_type == ELF::PT_LOAD;
    EXPECT_GE(loads, 2);

    std::string table;
    std::vector<std::string> symbols;
    for (const object::SectionRef &section : elf->sections()) {
        Expected<StringRef> name = section.getName();
        ASSERT_TRUE(bool(name));
        if (*name == SIMTGPU_KERNEL_TABLE_SECTION)
            table = cantFail(section.getContents()).str();
    }
    for (const object::SymbolRef &symbol : elf->symbols())
        symbols.push_back(cantFail(symbol.getName()).str());
    ASSERT_GE(table.size(), sizeof(simtgpu_ktab_header));
    simtgpu_ktab_header h;
    std::memcpy(&h, table.data(), sizeof(h));
    EXPECT_EQ(h.magic, SIMTGPU_KTAB_MAGIC);
    EXPECT_EQ(h.arch, static_cast<uint32_t>(SIMTGPU_ARCH_NEWEST));
    ASSERT_EQ(h.count, 2u);
    for (uint32_t i = 0; i < h.count; ++i) {
        simtgpu_ktab_entry e;
        std::memcpy(&e, table.data() + sizeof(h) + i * h.entry_size, sizeof(e));
        std::string name = table.data() + h.strtab_offset + e.name;
        std::string entry = table.data() + h.strtab_offset + e.entry_symbol;
        EXPECT_NE(std::find(symbols.begin(), symbols.end(), entry), symbols.end()) << entry;
        EXPECT_GT(e.stack_bytes, 0u);
        EXPECT_EQ(e.stack_bytes % 16, 0u);
        if (name == "_Z5scalePffi") {
            EXPECT_EQ(e.param_count, 3u);
            EXPECT_EQ(e.param_bytes, 16u);          // ptr, float, int
            EXPECT_EQ(e.static_shared_bytes, 128u); // tile[32]
        } else {
            EXPECT_EQ(name, "_Z8add_pair4PairPd");
            EXPECT_EQ(e.param_count, 2u);
            EXPECT_EQ(e.param_bytes, 24u); // {int, double} then a pointer
        }
    }
    sys::fs::remove(image);
}

TEST(Driver, AssemblyAndIrShowTheSimtLowering) {
    std::string assembly = temporary("s"), ir = temporary("ll");
    ASSERT_EQ(simtcc("-S " + input("kernels.cu") + " -o " + assembly).status, 0);
    ASSERT_EQ(simtcc("--emit-llvm " + input("kernels.cu") + " -o " + ir).status, 0);
    std::string s = slurp(assembly), l = slurp(ir);
    EXPECT_NE(s.find("csrr"), std::string::npos);
    EXPECT_NE(s.find(".insn r 11, 0, 0, zero, zero, zero"), std::string::npos) << "bar.sync";
    EXPECT_NE(l.find("target triple = \"riscv64"), std::string::npos);
    EXPECT_EQ(l.find("llvm.nvvm"), std::string::npos);
    EXPECT_EQ(l.find("addrspace("), std::string::npos);
    sys::fs::remove(assembly);
    sys::fs::remove(ir);
}

TEST(Driver, UnmappableIntrinsicIsAnErrorNamingItAndWhere) {
    std::string image = temporary("elf");
    ToolRun run = simtcc("--device-only " + input("fns.cu") + " -o " + image);
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.output.find("error: simtcc cannot map NVVM intrinsic 'llvm.nvvm.fns'"),
              std::string::npos)
        << run.output;
    // The intrinsic is called in clang's header; the note leads to the
    // user's call, with line and column.
    EXPECT_NE(run.output.find("__clang_cuda_intrinsics.h:"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("fns.cu:4:21: note:"), std::string::npos) << run.output;
    sys::fs::remove(image);
}

TEST(Driver, OptionsAreCheckedAndDocumented) {
    ToolRun help = simtcc("--help");
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.output.find("-arch=simt_N"), std::string::npos);
    ToolRun version = simtcc("--version");
    EXPECT_EQ(version.status, 0);
    EXPECT_NE(version.output.find("simtcc"), std::string::npos);
    ToolRun arch = simtcc("-arch=simt_9 --device-only " + input("kernels.cu"));
    EXPECT_EQ(arch.status, 1);
    EXPECT_NE(arch.output.find("unknown device architecture 'simt_9'"), std::string::npos)
        << arch.output;
    ToolRun none = simtcc("-c");
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.output.find("no input files"), std::string::npos);
}

// Each of nvcc's spellings of an option means what it means to nvcc, and an
// option is never read as the prefix of another: -lineinfo is not
// "-l ineinfo" (a link that failed for want of libineinfo.so).
TEST(Driver, OptionsAreParsedAsNvccSpellsThem) {
    const std::string dir = input("include");
    const char *spellings[][3] = {
        {"-I", " ", "-D"}, // "-I dir", "-D M=V"
        {"-I", "", "-D"},  // "-Idir", "-DM=V"
        {"--include-path", "=", "--define-macro"},
        {"--include-path", " ", "--define-macro"},
    };
    for (const auto &s : spellings) {
        const std::string out = temporary("");
        const std::string args = std::string(s[0]) + s[1] + dir + " " + s[2] + s[1] +
                                 "OPTIONS_SCALE=3 -lineinfo --generate-line-info -G -link -lm "
                                 "--library m -l m -O3 --optimize 2 -O -o " +
                                 out + " " + input("options.cu");
        ToolRun build = simtcc(args);
        EXPECT_EQ(build.status, 0) << args << "\n" << build.output;
        ToolRun run = simtcc_run(out);
        EXPECT_EQ(run.status, 0) << args << "\n" << run.output;
        EXPECT_NE(run.output.find("126 11"), std::string::npos) << run.output;
        sys::fs::remove(out);
    }
    const struct {
        const char *args, *message;
    } refused[] = {
        {"--lineinfo", "unknown option '--lineinfo'"},
        {"-lineinfo=yes", "'-lineinfo' takes no value"},
        {"--output-file", "missing argument to '--output-file'"},
        {"-O7", "unsupported optimisation level '-O7'"},
        {"--optimize=9", "unsupported optimisation level '-O9'"},
        {"-lib", "nvcc's '-lib' is not supported"}, // was linked as libib
    };
    for (const auto &r : refused) {
        ToolRun bad = simtcc(input("options.cu") + " " + r.args);
        EXPECT_EQ(bad.status, 1) << r.args;
        EXPECT_NE(bad.output.find(r.message), std::string::npos) << r.args << ": " << bad.output;
    }
}

// -Xcompiler options reach the host compiler only (host pass and host link),
// -Xlinker ones the host link; both take nvcc's comma-separated lists.
TEST(Driver, XcompilerReachesTheHostOnlyAndXlinkerTheHostLink) {
    const std::string out = temporary(""), map = temporary("map");
    sys::fs::remove(map); // the link must write it
    ToolRun build = simtcc("-v -I " + input("include") +
                           " -DOPTIONS_SCALE=3 -Xcompiler -DHOST_FLAG_A,-DHOST_FLAG_B "
                           "--compiler-options=-fno-exceptions -Xlinker -Map," +
                           map + " -o " + out + " " + input("options.cu"));
    ASSERT_EQ(build.status, 0) << build.output;
    int device_lines = 0, host_lines = 0;
    std::istringstream lines(build.output);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("--cuda-device-only") != std::string::npos) {
            ++device_lines;
            EXPECT_EQ(line.find("HOST_FLAG"), std::string::npos) << line;
            EXPECT_EQ(line.find("-fno-exceptions"), std::string::npos) << line;
        } else if (line.find("--cuda-host-only") != std::string::npos) {
            ++host_lines;
            EXPECT_NE(line.find("-DHOST_FLAG_A -DHOST_FLAG_B -fno-exceptions"), std::string::npos)
                << line;
        }
    }
    EXPECT_EQ(device_lines, 1);
    EXPECT_EQ(host_lines, 1);
    EXPECT_TRUE(sys::fs::exists(map)) << "-Xlinker -Map,FILE did not reach the host link";
    ToolRun run = simtcc_run(out);
    EXPECT_NE(run.output.find("126 11"), std::string::npos) << run.output;
    sys::fs::remove(out);
    sys::fs::remove(map);
    // A macro given to the host compiler only is missing in device code.
    ToolRun host_only = simtcc("-I " + input("include") + " -Xcompiler -DOPTIONS_SCALE=3 -o " +
                               out + " " + input("options.cu"));
    EXPECT_EQ(host_only.status, 1) << host_only.output;
    EXPECT_NE(host_only.output.find("undeclared identifier 'OPTIONS_SCALE'"), std::string::npos)
        << host_only.output;
    sys::fs::remove(out);
}

// The rest of nvcc's options simtcc knows, each by its own name: what it
// maps, what it accepts because the device already behaves so, and what it
// refuses. None may be read as a clang option or as the prefix of another.
TEST(Driver, NvccOptionsAreMappedAcceptedOrRefusedByName) {
    const std::string image = temporary("elf");
    const char *accepted[] = {
        "-w",
        "--disable-warnings",
        "-Werror all-warnings",
        "--Werror=reorder,deprecated-declarations",
        "-rdc=false",
        "--relocatable-device-code false",
        "-m64",
        "-use_fast_math",
        "--use_fast_math",
        "-ftz=true",
        "--ftz false",
        "-prec-div=false",
        "-prec-sqrt=true",
        "-fmad=true",
        "--expt-relaxed-constexpr",
        "-expt-extended-lambda",
        "--extended-lambda",
        "-Wno-deprecated-gpu-targets",
        // What build systems pass nvcc (CMake's CUDA language among them).
        "-arch=sm_70",
        "--gpu-architecture compute_75",
        "-arch=native",
        "-gencode arch=compute_70,code=sm_70",
        "--generate-code=arch=compute_70,code=[compute_70,sm_70]",
        "--keep",
        "--keep-dir /tmp",
        "-x cu",
        "-forward-unknown-to-host-compiler -pthread",
        "-rdc=true",
    };
    for (const char *option : accepted) {
        ToolRun build =
            simtcc(std::string(option) + " --device-only -o " + image + " " + input("fmad.cu"));
        EXPECT_EQ(build.status, 0) << option << ": " << build.output;
        EXPECT_EQ(build.output.find("unknown"), std::string::npos)
            << option << ": " << build.output;
    }
    const struct {
        const char *args, *message;
    } refused[] = {
        {"-dlink", "-dlink links objects: compile '"},
        {"-rdc=maybe", "'-rdc' takes true or false (got 'maybe')"},
        {"-gencode arch=simt_2,code=sm_70", "'-gencode': unknown NVIDIA architecture 'simt_2'"},
        {"-x fortran", "'-x' takes cu, c++ or c (got 'fortran')"},
        {"-pthread", "unknown option '-pthread'"},
        {"-fmad=maybe", "'-fmad' takes true or false (got 'maybe')"},
        {"--ftz", "missing argument to '--ftz'"},
        {"-w=1", "'-w' takes no value"},
    };
    for (const auto &r : refused) {
        ToolRun bad = simtcc(input("fmad.cu") + " --device-only -o " + image + " " + r.args);
        EXPECT_EQ(bad.status, 1) << r.args;
        EXPECT_NE(bad.output.find(r.message), std::string::npos) << r.args << ": " << bad.output;
    }
    // -fmad=false: a * b + c stays a multiply and an add (clang's CUDA
    // default marks them for contraction).
    const std::string ir = temporary("ll");
    ASSERT_EQ(simtcc("--emit-llvm -o " + ir + " " + input("fmad.cu")).status, 0);
    EXPECT_NE(slurp(ir).find("fmul contract"), std::string::npos);
    ASSERT_EQ(simtcc("-fmad=false --emit-llvm -o " + ir + " " + input("fmad.cu")).status, 0);
    EXPECT_EQ(slurp(ir).find("contract"), std::string::npos) << slurp(ir);
    sys::fs::remove(ir);
    sys::fs::remove(image);
}

// Relocatable device code (tests/cuda/rdc builds and runs the working
// cases): an extern __device__ symbol no object defines is named, with the
// object that uses it, at the device link; without -dc the failed image link
// says -dc would resolve it; objects of different -arch are refused; -dlink
// without -rdc objects says so.
TEST(Driver, DeviceLinkNamesUndefinedSymbolsAndTheirObjects) {
    const std::string object = temporary("o"), other = temporary("o"), out = temporary("out");
    ToolRun compile = simtcc("-dc " + input("rdc_extern.cu") + " -o " + object);
    ASSERT_EQ(compile.status, 0) << compile.output;
    ToolRun link = simtcc(object + " -o " + out);
    EXPECT_EQ(link.status, 1) << link.output;
    EXPECT_NE(link.output.find("undefined device symbols in the device link"), std::string::npos)
        << link.output;
    EXPECT_NE(link.output.find("'undefined_twice(int)' (_Z15undefined_twicei), used by " + object),
              std::string::npos)
        << link.output;
    EXPECT_NE(link.output.find("'undefined_scale', used by " + object), std::string::npos)
        << link.output;

    // Without -dc the image of one .cu cannot link: lld names the symbols,
    // simtcc says that nothing defines them, and suggests -rdc only when
    // another translation unit of the link does.
    ToolRun plain = simtcc("-c " + input("rdc_extern.cu") + " -o " + other);
    EXPECT_EQ(plain.status, 1) << plain.output;
    EXPECT_NE(plain.output.find("undefined symbol: undefined_twice(int)"), std::string::npos)
        << plain.output;
    EXPECT_NE(plain.output.find("its device code uses 'undefined_twice(int)', 'undefined_scale', "
                                "which no device code of this compile defines"),
              std::string::npos)
        << plain.output;
    EXPECT_EQ(plain.output.find("-rdc"), std::string::npos) << plain.output;
    ToolRun two = simtcc(input("rdc_extern.cu") + " " + input("rdc_defines.cu") + " -o " + out);
    EXPECT_EQ(two.status, 1) << two.output;
    EXPECT_NE(two.output.find("another translation unit of this link defines "
                              "'undefined_twice(int)' (in " +
                              input("rdc_defines.cu") +
                              "): calls between .cu files need relocatable device code: compile "
                              "them with -dc (or -rdc=true)"),
              std::string::npos)
        << two.output;
    EXPECT_EQ(two.output.find("'undefined_scale' (in"), std::string::npos) << two.output;

    ASSERT_EQ(simtcc("-dc -arch=simt_1 " + input("kernels.cu") + " -o " + other).status, 0);
    ToolRun mixed = simtcc(object + " " + other + " -o " + out);
    EXPECT_EQ(mixed.status, 1) << mixed.output;
    EXPECT_NE(mixed.output.find("was compiled for simt_1 and " + object + " for simt_2"),
              std::string::npos)
        << mixed.output;

    ASSERT_EQ(simtcc("-c " + input("kernels.cu") + " -o " + other).status, 0);
    ToolRun nothing = simtcc("-dlink " + other + " -o " + out);
    EXPECT_EQ(nothing.status, 1) << nothing.output;
    EXPECT_NE(nothing.output.find("-dlink: no relocatable device code in the inputs"),
              std::string::npos)
        << nothing.output;
    for (const std::string &path : {object, other, out})
        sys::fs::remove(path);
}

// nvcc reads options from files: @FILE and --options-file (-optf), as
// CMake's Makefile generator passes object lists; a missing one is named.
TEST(Driver, OptionsFilesAreReadAsNvccReadsThem) {
    const std::string options = temporary("rsp"), nested = temporary("rsp"),
                      image = temporary("elf");
    std::ofstream(nested) << "-O1\n";
    std::ofstream(options) << "--device-only \"" << input("kernels.cu") << "\" @" << nested << "\n";
    ToolRun at = simtcc("@" + options + " -o " + image);
    EXPECT_EQ(at.status, 0) << at.output;
    ToolRun file = simtcc("--options-file " + options + " -o " + image);
    EXPECT_EQ(file.status, 0) << file.output;
    ToolRun optf = simtcc("-optf=" + options + " -o " + image);
    EXPECT_EQ(optf.status, 0) << optf.output;
    ToolRun missing = simtcc("@/nonexistent/objects1 -o " + image);
    EXPECT_EQ(missing.status, 1) << missing.output;
    EXPECT_NE(missing.output.find("cannot read the options file '/nonexistent/objects1': no such "
                                  "file"),
              std::string::npos)
        << missing.output;
    ToolRun bare = simtcc("--options-file");
    EXPECT_NE(bare.output.find("missing argument to '--options-file'"), std::string::npos)
        << bare.output;
    for (const std::string &path : {options, nested, image})
        sys::fs::remove(path);
}

// Each input by its language, as nvcc: a .c with C's defaults though the
// command line says -std=c++17 (which C refuses), a .cpp and a .cu with it.
TEST(Driver, EachInputIsCompiledInItsOwnLanguage) {
    const std::string out = temporary("out"), object = temporary("o");
    const std::string dir = input("mixed");
    ToolRun build = simtcc("-std=c++17 -Xcompiler -std=c++17 -O2 " + dir + "/main.cu " + dir +
                           "/helper.c " + dir + "/util.cpp -o " + out);
    ASSERT_EQ(build.status, 0) << build.output;
    ToolRun ran = simtcc_run(out);
    EXPECT_EQ(ran.status, 0) << ran.output;
    EXPECT_NE(ran.output.find("mixed: PASS"), std::string::npos) << ran.output;
    ToolRun c_only = simtcc("-std=c++17 -c " + dir + "/helper.c -o " + object);
    EXPECT_EQ(c_only.status, 0) << c_only.output;
    // -x cu overrides the suffix: helper.c as CUDA C++, where `new` is a keyword.
    ToolRun as_cuda = simtcc("-x cu -c " + dir + "/helper.c -o " + object);
    EXPECT_EQ(as_cuda.status, 1) << as_cuda.output;
    for (const std::string &path : {out, object})
        sys::fs::remove(path);
}

// nvcc's single `%` before a special register compiles; one with no simtgpu
// counterpart is refused at its line, in its PTX spelling.
TEST(Driver, LoneEscapeSpecialRegistersWithoutCounterpartAreRefused) {
    const std::string image = temporary("elf");
    ToolRun run = simtcc("--device-only " + input("ptx_sreg_refused.cu") + " -o " + image);
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(
        run.output.find("ptx_sreg_refused.cu:4:2: error: PTX inline assembly "
                        "'mov.u32 $0, %total_smem_size;': special register %total_smem_size has no "
                        "simtgpu equivalent"),
        std::string::npos)
        << run.output;
    sys::fs::remove(image);
}

// PTX's SIMD video statements are mapped (tests/cuda/simd_intrinsics.cu);
// forms simtcc does not map are refused at their line, saying what is wrong.
TEST(Driver, UnmappedSimdVideoFormsAreRefusedByName) {
    const std::string image = temporary("elf");
    const char *const messages[] = {
        "ptx_simd_refused.cu:9:2: error: PTX inline assembly 'vadd2.u32.u32.u32 $0, $1.h1, "
        "$2, $3;': operands must be d, a, b, c without lane selectors or masks",
        "ptx_simd_refused.cu:11:2: error: PTX inline assembly 'vmax4.u32.u32.u32.min $0, $1, "
        "$2, $3;': modifier .min (simtgpu supports .sat and the .add secondary operation)",
        "ptx_simd_refused.cu:13:2: error: PTX inline assembly 'vset2.u32.u32 $0, $1, $2, "
        "$3;': vset needs a comparison (.eq .ne .lt .le .gt .ge)"};
    for (int form = 1; form <= 3; ++form) {
        ToolRun run = simtcc("--device-only -DFORM=" + std::to_string(form) + " " +
                             input("ptx_simd_refused.cu") + " -o " + image);
        EXPECT_EQ(run.status, 1) << run.output;
        EXPECT_NE(run.output.find(messages[form - 1]), std::string::npos) << run.output;
    }
    sys::fs::remove(image);
}

// The device pass compiles preprocessed text when it escaped a `%`: the
// front end's diagnostics still name the source's lines.
TEST(Driver, LoneEscapeSourcesKeepTheirDiagnosticLines) {
    const std::string image = temporary("elf");
    ToolRun run = simtcc("--device-only " + input("ptx_sreg_line.cu") + " -o " + image);
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find("ptx_sreg_line.cu:8:10: error: use of undeclared identifier "
                              "'undeclared_value'"),
              std::string::npos)
        << run.output;
    sys::fs::remove(image);
}

// A __managed__ variable becomes a pointer variable of its name in the
// device image, which the runtime points at managed memory, with its
// initial value kept beside it as NAME.managed; kernels load the pointer.
TEST(Driver, ManagedVariablesBecomePointersToManagedMemory) {
    const std::string ir = temporary("ll");
    ToolRun run = simtcc("--emit-llvm " + input("managed_var.cu") + " -o " + ir);
    ASSERT_EQ(run.status, 0) << run.output;
    const std::string text = slurp(ir);
    EXPECT_NE(text.find("@counter.managed = "), std::string::npos) << text;
    EXPECT_NE(text.find("global i32 5"), std::string::npos) << text;
    EXPECT_NE(text.find("@counter = "), std::string::npos) << text;
    EXPECT_NE(text.find("externally_initialized global ptr null"), std::string::npos) << text;
    EXPECT_NE(text.find("load ptr, ptr @counter"), std::string::npos) << text;
    sys::fs::remove(ir);
}

// Its address is known at run time only: in a global's initialiser it is
// refused, naming both.
TEST(Driver, ManagedVariableAddressInAnInitialiserIsRefused) {
    const std::string image = temporary("elf");
    ToolRun run = simtcc("--device-only " + input("managed_var_address.cu") + " -o " + image);
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find("error: the address of __managed__ variable 'counter' in the "
                              "initialiser of 'where' is not supported"),
              std::string::npos)
        << run.output;
    sys::fs::remove(image);
}

// nvcc's dependency output: -M lists the source and its headers for the
// object's target on stdout (or -MF) without building; -MD/-MMD write them
// beside a compile, next to the object unless -MF says where; -MT names
// the target, -MP adds phony targets; -MMD leaves out system headers.
TEST(Driver, DependencyOutputAsNvccWritesIt) {
    const std::string flags = "-I " + input("include") + " -DOPTIONS_SCALE=3 ";
    const std::string header = input("include") + "/options_value.h";
    ToolRun m = simtcc("-M " + flags + input("options.cu"));
    ASSERT_EQ(m.status, 0) << m.output;
    EXPECT_EQ(m.output.rfind("options.o: " + input("options.cu"), 0), 0u) << m.output;
    EXPECT_NE(m.output.find(header), std::string::npos) << m.output;
    EXPECT_NE(m.output.find("cuda_runtime.h"), std::string::npos) << m.output;
    EXPECT_NE(m.output.find("/cmath"), std::string::npos) << m.output; // a system header

    const std::string dep = temporary("d");
    ToolRun mf = simtcc("-M -MF " + dep + " -MT 'a.o b.o' " + flags + input("options.cu"));
    ASSERT_EQ(mf.status, 0) << mf.output;
    EXPECT_EQ(mf.output, "");
    EXPECT_EQ(slurp(dep).rfind("a.o b.o: ", 0), 0u) << slurp(dep);

    // -MMD -MP with -c: NAME.d beside the object, no system headers.
    const std::string object = temporary("o");
    SmallString<128> beside(object);
    sys::path::replace_extension(beside, "d");
    sys::fs::remove(std::string(beside));
    ToolRun mmd = simtcc("-MMD -MP -c " + flags + input("options.cu") + " -o " + object);
    ASSERT_EQ(mmd.status, 0) << mmd.output;
    const std::string text = slurp(std::string(beside));
    EXPECT_EQ(text.rfind(object + ":", 0), 0u) << text;
    EXPECT_NE(text.find(input("options.cu")), std::string::npos) << text;
    EXPECT_NE(text.find(header), std::string::npos) << text;
    EXPECT_NE(text.find("\n" + header + ":"), std::string::npos) << text; // -MP
    EXPECT_EQ(text.find("/cmath"), std::string::npos) << text;
    uint64_t size = 0;
    EXPECT_FALSE(sys::fs::file_size(object, size));
    EXPECT_GT(size, 0u);

    // -MD in a build of a program: it still runs.
    const std::string out = temporary("");
    ToolRun md = simtcc("-MD -MF " + dep + " " + flags + input("options.cu") + " -o " + out);
    ASSERT_EQ(md.status, 0) << md.output;
    EXPECT_NE(slurp(dep).find(header), std::string::npos);
    EXPECT_NE(simtcc_run(out).output.find("126 11"), std::string::npos);

    ToolRun stray = simtcc("-MF " + dep + " -c " + flags + input("options.cu") + " -o " + object);
    EXPECT_EQ(stray.status, 1);
    EXPECT_NE(stray.output.find("-MF, -MT and -MP need -M, -MM, -MD or -MMD"), std::string::npos)
        << stray.output;
    for (const std::string &path : {dep, object, std::string(beside), out})
        sys::fs::remove(path);
}

// 'register' under C++17 is a warning, as with nvcc, in both passes; the
// user's -Werror=register makes it an error again.
TEST(Driver, RegisterIsAWarningAsWithNvcc) {
    const std::string out = temporary("");
    ToolRun build = simtcc("-std=c++17 -o " + out + " " + input("register_keyword.cu"));
    EXPECT_EQ(build.status, 0) << build.output;
    EXPECT_NE(build.output.find("warning: ISO C++17 does not allow 'register'"), std::string::npos)
        << build.output;
    ToolRun run = simtcc_run(out);
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("0 2 4 6"), std::string::npos) << run.output;
    sys::fs::remove(out);
    ToolRun strict = simtcc("-std=c++17 -Werror=register --device-only -o " + out + " " +
                            input("register_keyword.cu"));
    EXPECT_EQ(strict.status, 1) << strict.output;
    sys::fs::remove(out);
}

TEST(Driver, OlderArchitectureIsRecordedAndRefusesPrintf) {
    std::string plain = temporary("cu"), printing = temporary("cu"), image = temporary("elf");
    std::ofstream(plain) << "__global__ void k(int *p) { *p = 1; }\n";
    std::ofstream(printing) << "__global__ void k(int *p) { *p = 1; }\n"
                               "__global__ void q() { printf(\"%d\\n\", 1); }\n";
    ToolRun run = simtcc("-arch=simt_1 --device-only " + plain + " -o " + image);
    ASSERT_EQ(run.status, 0) << run.output;
    auto buffer = MemoryBuffer::getFile(image);
    ASSERT_TRUE(bool(buffer));
    auto file = object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
    ASSERT_TRUE(bool(file));
    bool found = false;
    for (const object::SectionRef &section : (*file)->sections())
        if (cantFail(section.getName()) == SIMTGPU_KERNEL_TABLE_SECTION) {
            simtgpu_ktab_header h;
            std::memcpy(&h, cantFail(section.getContents()).data(), sizeof(h));
            EXPECT_EQ(h.arch, static_cast<uint32_t>(SIMTGPU_ARCH_SIMT1));
            found = true;
        }
    EXPECT_TRUE(found);

    run = simtcc("-arch=simt_1 --device-only " + printing + " -o " + image);
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.output.find(":2:"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("printf needs -arch=simt_2"), std::string::npos) << run.output;
    for (const std::string &path : {plain, printing, image})
        sys::fs::remove(path);
}

} // namespace
