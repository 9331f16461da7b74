// simt-doctor: checks the chain from the PCI device to a kernel that runs,
// one line per check, with the fix for what fails (docs/tools.md).
#include "system_info.h"

#include "simtgpu/hw.h"
#include "simtgpu/simtgpu.h"
#include "uapi/drm/simtgpu_drm.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include <xf86drm.h>

// The tiny kernel (doctor_kernel.cu): its image built by simtcc
// -arch=simt_1, which runs on every device; its image built with simtcc's
// defaults, for where simtcc cannot run (the guest image leaves it out); and
// its source, NUL-terminated.
extern "C" const unsigned char doctor_kernel_begin[], doctor_kernel_end[];
extern "C" const unsigned char doctor_default_kernel_begin[], doctor_default_kernel_end[];
extern "C" const char doctor_kernel_source[];
asm(".section .rodata\n"
    ".balign 16\n"
    ".global doctor_kernel_begin\n"
    "doctor_kernel_begin:\n"
    ".incbin \"" SIMT_DOCTOR_KERNEL "\"\n"
    ".global doctor_kernel_end\n"
    "doctor_kernel_end:\n"
    ".balign 16\n"
    ".global doctor_default_kernel_begin\n"
    "doctor_default_kernel_begin:\n"
    ".incbin \"" SIMT_DOCTOR_DEFAULT_KERNEL "\"\n"
    ".global doctor_default_kernel_end\n"
    "doctor_default_kernel_end:\n"
    ".global doctor_kernel_source\n"
    "doctor_kernel_source:\n"
    ".incbin \"" SIMT_DOCTOR_KERNEL_SOURCE "\"\n"
    ".byte 0\n"
    ".previous\n");

using namespace simtgpu::tools;
namespace fs = std::filesystem;

namespace {

struct Report {
    int failed = 0;

    void ok(const std::string &check, const std::string &detail) {
        std::printf("[ ok ] %s: %s\n", check.c_str(), detail.c_str());
    }
    void fail(const std::string &check, const std::string &reason, const std::string &fix) {
        ++failed;
        std::printf("[FAIL] %s: %s\n       fix: %s\n", check.c_str(), reason.c_str(), fix.c_str());
    }
    void skip(const std::string &check, const std::string &why) {
        std::printf("[skip] %s: %s\n", check.c_str(), why.c_str());
    }
};

std::string hex(uint32_t v, int digits) {
    char text[16];
    std::snprintf(text, sizeof(text), "%0*x", digits, v);
    return text;
}

// The uAPI the loaded libsimtgpu was built for (not the header simt-doctor
// was compiled with: a newer libsimtgpu may be installed).
uint32_t runtime_uapi_version() {
    int v = 0;
    simtgpuDriverGetVersion(&v); // major * 1000 + minor * 10
    return uint32_t(v / 1000) << 16 | uint32_t(v % 1000 / 10);
}

// The render node of the kernel driver, when the kernel-side checks pass.
struct KernelSide {
    bool usable = false;
    std::string node; // /dev/dri/renderD128
};

KernelSide check_kernel_side(Report &r) {
    KernelSide k;
    auto functions = find_simtgpu_functions("/sys");
    if (functions.empty()) {
        r.fail("PCI device", "no PCI device " + hex(SIMTGPU_PCI_VENDOR_ID, 4) + ":" +
                                 hex(SIMTGPU_PCI_DEVICE_ID, 4) + " on the bus (lspci -nn)",
               "start the machine with the simtgpu device: scripts/run-qemu.sh adds "
               "-device simtgpu,sim=<libsimtgpu-sim.so>");
        r.skip("kernel module", "no device");
        return k;
    }
    const PciFunction &f = functions.front();
    r.ok("PCI device", f.address + " [" + hex(f.vendor, 4) + ":" + hex(f.device, 4) + "] rev " +
                           hex(f.revision, 2) + ", class " + hex(f.class_code >> 8, 4) +
                           (functions.size() > 1 ? " (and " + std::to_string(functions.size() - 1) +
                                                       " more)"
                                                 : ""));

    struct stat st;
    if (stat("/sys/module/simtgpu", &st) != 0) {
        r.fail("kernel module", "simtgpu is not loaded (no /sys/module/simtgpu)",
               "modprobe simtgpu (or insmod simtgpu.ko; `make kmd` builds kmd/simtgpu.ko)");
        r.skip("driver bound", "no module");
        return k;
    }
    auto timeout = read_trimmed("/sys/module/simtgpu/parameters/timeout_ms");
    r.ok("kernel module",
         "simtgpu loaded" + (timeout ? " (timeout_ms=" + *timeout + ")" : std::string()));

    if (f.driver != "simtgpu") {
        r.fail("driver bound",
               f.address + (f.driver.empty() ? " has no driver" : " is bound to " + f.driver),
               "dmesg | grep simtgpu shows why the probe failed; then rmmod simtgpu && modprobe "
               "simtgpu");
        return k;
    }
    r.ok("driver bound", f.address + " is driven by simtgpu");

    if (f.render_node.empty()) {
        r.fail("render node", "the driver registered no render node for " + f.address,
               "dmesg | grep simtgpu (the probe stopped before drm_dev_register)");
        return k;
    }
    k.node = "/dev/dri/" + f.render_node;
    if (stat(k.node.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) {
        r.fail("render node", k.node + " does not exist although sysfs lists " + f.render_node,
               "mount devtmpfs on /dev (mount -t devtmpfs devtmpfs /dev) or let udev create it");
        return k;
    }
    r.ok("render node", k.node);

    int fd = open(k.node.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        r.fail("render node access",
               "user " + std::to_string(getuid()) + " cannot open " + k.node + ": " +
                   std::strerror(err),
               err == EACCES || err == EPERM
                   ? "add the user to the node's group (usermod -aG render $USER, then log in "
                     "again) or run as root"
                   : "check dmesg for the driver's errors");
        return k;
    }
    r.ok("render node access", "opened " + k.node + " read-write as user " +
                                   std::to_string(getuid()));

    drm_simtgpu_get_param p{SIMTGPU_PARAM_UAPI_VERSION, 0, 0};
    int rc = drmIoctl(fd, DRM_IOCTL_SIMTGPU_GET_PARAM, &p);
    int err = errno;
    close(fd);
    uint32_t runtime_version = runtime_uapi_version();
    std::string runtime = uapi_version_string(runtime_version);
    if (rc != 0) {
        r.fail("uAPI version",
               k.node + " did not answer GET_PARAM(UAPI_VERSION): " + std::strerror(err),
               "load the simtgpu.ko built from the same tree as libsimtgpu");
        return k;
    }
    uint32_t driver_major = uint32_t(p.value >> 16);
    std::string driver = uapi_version_string(uint32_t(p.value));
    if (driver_major != runtime_version >> 16) {
        r.fail("uAPI version",
               "the kernel driver speaks uAPI " + driver + ", libsimtgpu was built for uAPI " +
                   runtime,
               "build and install simtgpu.ko and libsimtgpu from the same tree (make kmd; "
               "cmake --build build)");
        return k;
    }
    r.ok("uAPI version", "kernel driver " + driver + ", libsimtgpu " + runtime);
    k.usable = true;
    return k;
}

// The device libsimtgpu found at `node` ("in-process" for the simulator).
bool find_device(Report &r, const std::string &node, simtgpuDevice *device,
                 simtgpuDeviceProperties *props) {
    if (simtgpuInit(0) != SIMTGPU_SUCCESS) {
        r.fail("libsimtgpu", simtgpuGetErrorDetail(),
               "fix what the message names; SIMTGPU_TRANSPORT=sim runs without the kernel driver");
        return false;
    }
    int count = 0;
    simtgpuDeviceGetCount(&count);
    for (int i = 0; i < count; ++i) {
        if (simtgpuDeviceGet(device, i) || simtgpuDeviceGetProperties(props, *device))
            continue;
        if (node.empty() || node == props->node) {
            r.ok("libsimtgpu", std::string(props->name) + ", uAPI " +
                                   uapi_version_string(props->uapi_version));
            return true;
        }
    }
    r.fail("libsimtgpu", "libsimtgpu does not list " + node,
           "check SIMTGPU_TRANSPORT (unset it, or drm)");
    return false;
}

std::string find_simtcc() {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && fs::exists(self.parent_path() / "simtcc"))
        return (self.parent_path() / "simtcc").string();
    const char *path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!dir.empty() && access((dir + "/simtcc").c_str(), X_OK) == 0)
            return dir + "/simtcc";
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return "";
}

// Runs simtcc --device-only on the tiny kernel with its default options;
// returns the image, or "" with *error set and *cannot_run when simtcc did
// not start at all (the shell's 127: not found, or missing libraries).
std::string compile_with_default_arch(const std::string &simtcc, std::string *error,
                                      bool *cannot_run) {
    char dir_template[] = "/tmp/simt-doctor.XXXXXX";
    const char *dir = mkdtemp(dir_template);
    if (!dir) {
        *error = std::string("cannot make a temporary directory: ") + std::strerror(errno);
        return "";
    }
    std::string src = std::string(dir) + "/tiny.cu", elf = std::string(dir) + "/tiny.elf",
                log = std::string(dir) + "/log";
    if (FILE *f = std::fopen(src.c_str(), "w")) {
        std::fputs(doctor_kernel_source, f);
        std::fclose(f);
    }
    std::string command = "'" + simtcc + "' --device-only '" + src + "' -o '" + elf + "' >'" + log +
                          "' 2>&1";
    int status = std::system(command.c_str());
    std::string image;
    if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string output = read_trimmed(log).value_or("");
        *cannot_run = WIFEXITED(status) && WEXITSTATUS(status) == 127;
        *error = simtcc + " --device-only failed" +
                 (output.empty() ? std::string() : ": " + output.substr(0, output.find('\n')));
    } else {
        if (FILE *f = std::fopen(elf.c_str(), "rb")) {
            char buf[65536];
            size_t n;
            while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
                image.append(buf, n);
            std::fclose(f);
        }
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return image;
}

void check_compiler_target(Report &r, simtgpuContext ctx, const simtgpuDeviceProperties &props) {
    std::string simtcc = find_simtcc();
    std::string error, image, compiler = simtcc;
    bool cannot_run = simtcc.empty();
    if (simtcc.empty())
        error = "simtcc is neither beside simt-doctor nor on PATH";
    else
        image = compile_with_default_arch(simtcc, &error, &cannot_run);
    if (image.empty() && !cannot_run) {
        r.fail("compiler target", error, "run the same command by hand: simtcc -v shows each step");
        return;
    }
    if (cannot_run) {
        // Compiled programs come from the host here: judge the defaults of
        // the simtcc that built this simt-doctor.
        std::printf("       (%s; judging the image the build's simtcc made with its defaults)\n",
                    error.c_str());
        image.assign(reinterpret_cast<const char *>(doctor_default_kernel_begin),
                     size_t(doctor_default_kernel_end - doctor_default_kernel_begin));
        compiler = "simtcc (the build's)";
    }
    simtgpuModule module = nullptr;
    if (simtgpuModuleLoadData(&module, ctx, image.data(), image.size()) != SIMTGPU_SUCCESS) {
        r.fail("compiler target", std::string("simtcc's default output does not load: ") +
                                      simtgpuGetErrorDetail(),
               "compile with -arch=simt_" + std::to_string(props.arch) +
                   " for this device, or run on a device of the newest architecture");
        return;
    }
    uint32_t arch = 0;
    simtgpuModuleGetArch(module, &arch);
    simtgpuModuleUnload(module);
    r.ok("compiler target", compiler + " builds simt_" + std::to_string(arch) +
                                " by default; the device runs simt_1..simt_" +
                                std::to_string(props.arch));
}

void check_tiny_kernel(Report &r, simtgpuContext ctx) {
    constexpr int n = 1000, a = 3;
    std::vector<int> x(n), y(n), expected(n), got(n);
    for (int i = 0; i < n; ++i) {
        x[i] = i * 7 - 500;
        y[i] = 1000 - i;
        expected[i] = a * x[i] + y[i];
    }
    simtgpuModule module = nullptr;
    simtgpuFunction function = nullptr;
    simtgpuDevicePtr dx = 0, dy = 0;
    auto failed = [&](const char *step) {
        r.fail("tiny kernel", std::string(step) + ": " + simtgpuGetErrorDetail(),
               "dmesg | tail shows the driver's side; simt-smi -q the device's state");
    };
    if (simtgpuModuleLoadData(&module, ctx, doctor_kernel_begin,
                              size_t(doctor_kernel_end - doctor_kernel_begin)))
        return failed("loading the kernel");
    if (simtgpuModuleGetFunction(&function, module, "doctor_axpy"))
        return failed("finding doctor_axpy");
    if (simtgpuMemAlloc(ctx, &dx, n * sizeof(int)) || simtgpuMemAlloc(ctx, &dy, n * sizeof(int)))
        return failed("allocating VRAM");
    if (simtgpuMemcpyHtoD(ctx, dx, x.data(), n * sizeof(int)) ||
        simtgpuMemcpyHtoD(ctx, dy, y.data(), n * sizeof(int)))
        return failed("copying to the device");
    int count = n, factor = a;
    void *params[] = {&count, &factor, &dx, &dy};
    if (simtgpuLaunchKernel(function, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params,
                            nullptr))
        return failed("launching");
    if (simtgpuCtxSynchronize(ctx))
        return failed("running");
    if (simtgpuMemcpyDtoH(ctx, got.data(), dy, n * sizeof(int)))
        return failed("copying back");
    int wrong = 0, first = -1;
    for (int i = 0; i < n; ++i)
        if (got[i] != expected[i] && wrong++ == 0)
            first = i;
    if (wrong) {
        r.fail("tiny kernel",
               std::to_string(wrong) + " of " + std::to_string(n) + " results wrong (y[" +
                   std::to_string(first) + "] = " + std::to_string(got[size_t(first)]) +
                   ", expected " + std::to_string(expected[size_t(first)]) + ")",
               "the device computes wrongly: report it with simt-smi -q and dmesg");
        return;
    }
    simtgpuMemFree(ctx, dx);
    simtgpuMemFree(ctx, dy);
    simtgpuModuleUnload(module);
    r.ok("tiny kernel", "y = 3x + y on " + std::to_string(n) +
                            " elements (8 blocks of 128 threads) matches the CPU");
}

} // namespace

int main(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::printf("usage: simt-doctor\n"
                        "Checks the PCI device, the kernel module, the render node, the uAPI "
                        "versions, libsimtgpu,\nthe compiler's default architecture and a tiny "
                        "kernel; exits 1 when a check fails.\n"
                        "SIMTGPU_TRANSPORT=sim checks the in-process simulator instead of the "
                        "kernel driver.\n");
            return 0;
        }
        std::fprintf(stderr, "simt-doctor: unknown argument %s (see --help)\n", argv[i]);
        return 2;
    }
    Report r;
    const char *transport = std::getenv("SIMTGPU_TRANSPORT");
    bool in_process = transport && std::string(transport) == "sim";
    std::string node = "in-process";
    if (in_process) {
        r.skip("kernel side", "SIMTGPU_TRANSPORT=sim: checking the in-process simulator");
    } else {
        KernelSide k = check_kernel_side(r);
        if (!k.usable) {
            std::printf("simt-doctor: %d check(s) failed\n", r.failed);
            return 1;
        }
        node = k.node;
        setenv("SIMTGPU_TRANSPORT", "drm", 1);
    }
    simtgpuDevice device = 0;
    simtgpuDeviceProperties props{};
    simtgpuContext ctx = nullptr;
    if (find_device(r, node, &device, &props)) {
        if (simtgpuCtxCreate(&ctx, 0, device) != SIMTGPU_SUCCESS) {
            r.fail("context", simtgpuGetErrorDetail(), "dmesg | grep simtgpu");
        } else {
            check_compiler_target(r, ctx, props);
            check_tiny_kernel(r, ctx);
            simtgpuCtxDestroy(ctx);
        }
    }
    if (r.failed) {
        std::printf("simt-doctor: %d check(s) failed\n", r.failed);
        return 1;
    }
    std::printf("simt-doctor: all checks passed\n");
    return 0;
}
