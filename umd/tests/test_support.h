// Shared helpers of the umd tests: the test kernels' image, and reading
// files.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
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

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace simtgpu::umd::test {

// A cgroup VRAM limit (dmem "max") over this process, both ways: on the
// render node (drm), the process moves into a fresh cgroup
// /simtgpu-test-PID and the limit is written to the device's sysfs
// dmem_max; in-process, SIMTGPU_DMEM_MAX holds it. join() first (files
// opened after it are charged to the cgroup), then set(bytes); the
// destructor undoes both. error() says why a step failed.
class ScopedDmemLimit {
public:
    explicit ScopedDmemLimit(bool in_process) : in_process_(in_process) {
        path_ = "/simtgpu-test-" + std::to_string(getpid());
    }
    ScopedDmemLimit(const ScopedDmemLimit &) = delete;
    ScopedDmemLimit &operator=(const ScopedDmemLimit &) = delete;
    ~ScopedDmemLimit() {
        if (in_process_) {
            unsetenv("SIMTGPU_DMEM_MAX");
            return;
        }
        if (limited_)
            write_text(attr_, path_ + " max");
        if (joined_) {
            write_text(kRoot + std::string("/cgroup.procs"), std::to_string(getpid()));
            rmdir((kRoot + path_).c_str());
        }
    }
    bool join() {
        if (in_process_)
            return true;
        if (access((kRoot + std::string("/cgroup.procs")).c_str(), F_OK) != 0 &&
            mount("none", kRoot, "cgroup2", 0, nullptr) != 0)
            return fail("cannot mount cgroup2 at /sys/fs/cgroup");
        if (mkdir((kRoot + path_).c_str(), 0755) != 0 && errno != EEXIST)
            return fail("cannot create cgroup " + path_);
        if (!write_text(kRoot + path_ + "/cgroup.procs", std::to_string(getpid())))
            return fail("cannot move into cgroup " + path_);
        joined_ = true;
        for (int minor = 128; minor < 192 && attr_.empty(); ++minor) {
            std::string a = "/sys/class/drm/renderD" + std::to_string(minor) + "/device/dmem_max";
            if (access(a.c_str(), W_OK) == 0)
                attr_ = a;
        }
        return attr_.empty() ? fail("no render node has a writable dmem_max") : true;
    }
    bool set(uint64_t bytes) {
        if (in_process_)
            return setenv("SIMTGPU_DMEM_MAX", std::to_string(bytes).c_str(), 1) == 0;
        if (!write_text(attr_, path_ + " " + std::to_string(bytes)))
            return fail("cannot write " + attr_);
        limited_ = true;
        return true;
    }
    // VRAM charged to the cgroup (dmem "current", from the device's sysfs
    // dmem_current), after join(); false if it cannot be read.
    bool current(uint64_t *bytes) {
        std::ifstream in(attr_.substr(0, attr_.rfind('/')) + "/dmem_current");
        for (std::string group; in >> group >> *bytes;)
            if (group == path_)
                return true;
        errno = ENOENT;
        return fail("no dmem_current line for " + path_);
    }
    // The cgroup's path as /proc/self/cgroup shows it.
    const std::string &path() const { return path_; }
    const std::string &error() const { return error_; }

    static bool write_text(const std::string &file, const std::string &text) {
        int fd = ::open(file.c_str(), O_WRONLY);
        if (fd < 0)
            return false;
        bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
        ::close(fd);
        return ok;
    }

private:
    static constexpr const char *kRoot = "/sys/fs/cgroup";
    bool fail(const std::string &why) {
        error_ = why + ": " + std::strerror(errno);
        return false;
    }
    bool in_process_;
    bool joined_ = false;
    bool limited_ = false;
    std::string path_, attr_, error_;
};

} // namespace simtgpu::umd::test
