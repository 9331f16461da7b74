#include "driver.h"

#include "device_printf.h"

#include "simtgpu/counters.h"
#include "simtgpu/driver_policy.h"
#include "simtgpu/hw.h"
#include "simtgpu/hw_names.h"
#include "uapi/drm/simtgpu_drm.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <sys/mman.h>

namespace simtgpu::umd {

namespace {

// QUEUE_CREATE's EBUSY: the GPU is split into partitions (kmd docs/sharing.md).
simtgpuResult fail_queue_create(int rc) {
    if (rc == -EBUSY)
        return fail(SIMTGPU_ERROR_NO_DEVICE,
                    "QUEUE_CREATE failed: the GPU is split into partitions and its whole-GPU "
                    "render node runs no work: use a partition's render node (simt-smi "
                    "partition list shows them; SIMTGPU_RENDER_NODE=/dev/dri/renderDN selects "
                    "one) or destroy the partitions");
    return fail_errno(rc, "QUEUE_CREATE");
}

// This process's cgroup v2 path, from /proc/self/cgroup ("0::/PATH").
std::string own_cgroup() {
    std::string path = "/";
    if (FILE *f = std::fopen("/proc/self/cgroup", "r")) {
        char line[512];
        while (std::fgets(line, sizeof(line), f)) {
            if (std::strncmp(line, "0::", 3) == 0) {
                path = line + 3;
                while (!path.empty() && (path.back() == '\n' || path.back() == '\r'))
                    path.pop_back();
                break;
            }
        }
        std::fclose(f);
    }
    return path;
}

constexpr uint64_t kEnvHeaderBytes = 256;

std::string hex(uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// A JSON string literal of text (kernel names are identifiers, but a
// demangled template argument may hold anything).
std::string json_string(const std::string &text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// `"counters": {...}, "derived": {...}` of counter values (or differences),
// by their names in include/simtgpu/counters.h.
void write_counters_json(FILE *f, const std::vector<uint64_t> &counters,
                         const simtgpuDeviceProperties &props) {
    std::fprintf(f, "\"counters\": {");
    const char *sep = "";
#define SIMTGPU_X(name, unit, ncu, meaning)                                                        \
    std::fprintf(f, "%s\"" #name "\": %llu", sep,                                                  \
                 (unsigned long long)counters[SIMTGPU_COUNTER_##name]);                            \
    sep = ", ";
    SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    std::fprintf(f, "}, \"derived\": {");
    sep = "";
#define SIMTGPU_X(name, unit, ncu, meaning, num, den)                                              \
    std::fprintf(f, "%s\"" #name "\": %.6g", sep,                                                  \
                 simtgpu_derived_value(SIMTGPU_DERIVED_##name, counters.data(),                    \
                                       props.warps_per_sm, props.clock_khz));                      \
    sep = ", ";
    SIMTGPU_DERIVED(SIMTGPU_X)
#undef SIMTGPU_X
    std::fprintf(f, "}");
}

// SIMTGPU_STATS=FILE: the device and each kernel's statistics from the launch
// reports, as JSON, for tools (simt-sweep) that collect them per run.
// `counters`: what the device's counters (include/simtgpu/counters.h) moved
// while the context lived, or empty.
// `kernel_counters`: each kernel's own, summed over its launches.
void write_stats_json(const char *path, const simtgpuDeviceProperties &props,
                      const std::map<std::string, simtgpuKernelStats> &kernels,
                      const std::map<std::string, std::vector<uint64_t>> &kernel_counters,
                      const std::vector<uint64_t> &counters) {
    FILE *f = std::fopen(path, "w");
    if (!f) {
        std::fprintf(stderr, "simtgpu: SIMTGPU_STATS=%s: cannot write: %s\n", path,
                     std::strerror(errno));
        return;
    }
    const double cycles_per_us = props.clock_khz / 1000.0;
    std::fprintf(f,
                 "{\n  \"device\": {\"name\": %s, \"transport\": %s, \"num_sms\": %u, "
                 "\"warps_per_sm\": %u, \"warp_size\": %u, \"ctas_per_sm\": %u, "
                 "\"shared_per_sm\": %u, \"clock_khz\": %u},\n  \"kernels\": {",
                 json_string(props.name).c_str(), json_string(props.transport).c_str(),
                 props.num_sms, props.warps_per_sm, props.warp_size, props.ctas_per_sm,
                 props.shared_per_sm, props.clock_khz);
    simtgpuKernelStats total{};
    const char *separator = "\n";
    for (const auto &[name, k] : kernels) {
        int status = 0;
        char *demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
        std::fprintf(f,
                     "%s    %s: {\"name\": %s, \"launches\": %llu, \"device_cycles\": %llu, "
                     "\"device_us\": %.3f, \"thread_instructions\": %llu",
                     separator, json_string(name).c_str(),
                     json_string(status == 0 && demangled ? demangled : name).c_str(),
                     (unsigned long long)k.launches, (unsigned long long)k.device_cycles,
                     double(k.device_cycles) / cycles_per_us,
                     (unsigned long long)k.thread_instructions);
        if (auto c = kernel_counters.find(name); c != kernel_counters.end()) {
            std::fprintf(f, ",\n      ");
            write_counters_json(f, c->second, props);
        }
        std::fprintf(f, "}");
        std::free(demangled);
        separator = ",\n";
        total.launches += k.launches;
        total.device_cycles += k.device_cycles;
        total.thread_instructions += k.thread_instructions;
    }
    std::fprintf(
        f,
        "\n  },\n  \"total\": {\"kernels\": %zu, \"launches\": %llu, "
        "\"device_cycles\": %llu, \"device_us\": %.3f, \"thread_instructions\": %llu, "
        "\"thread_instructions_per_cycle\": %.6f}",
        kernels.size(), (unsigned long long)total.launches, (unsigned long long)total.device_cycles,
        double(total.device_cycles) / cycles_per_us, (unsigned long long)total.thread_instructions,
        total.device_cycles ? double(total.thread_instructions) / double(total.device_cycles)
                            : 0.0);
    // The device's counters and the figures derived from them, by their
    // names in include/simtgpu/counters.h: the whole device while this
    // context lived (other processes' work included, on a shared GPU).
    if (counters.size() == SIMTGPU_NUM_COUNTERS) {
        std::fprintf(f, ",\n  ");
        write_counters_json(f, counters, props);
    }
    std::fprintf(f, "\n}\n");
    if (std::fclose(f) != 0)
        std::fprintf(stderr, "simtgpu: SIMTGPU_STATS=%s: write failed: %s\n", path,
                     std::strerror(errno));
}

// A traced submission's name: its kernel, or what its packets do.
std::string trace_label(const std::vector<uint32_t> &packets, const std::string &kernel) {
    if (!kernel.empty()) {
        int status = 0;
        char *demangled = abi::__cxa_demangle(kernel.c_str(), nullptr, nullptr, &status);
        std::string name = status == 0 && demangled ? demangled : kernel;
        std::free(demangled);
        return name;
    }
    std::string label;
    for (size_t i = 0; i < packets.size(); i += 1 + SIMTGPU_PKT_BODY_DWORDS(packets[i])) {
        const uint32_t op = SIMTGPU_PKT_OPCODE(packets[i]);
        auto bytes = [&] { // the packet's 64-bit byte count: COPY's third field, FILL's second
            const size_t at = i + 1 + (op == SIMTGPU_PKT_COPY ? 4 : 2);
            return at + 1 < packets.size() ? uint64_t(packets[at]) | uint64_t(packets[at + 1]) << 32
                                           : 0;
        };
        std::string what = op == SIMTGPU_PKT_COPY   ? "copy " + std::to_string(bytes()) + " B"
                           : op == SIMTGPU_PKT_FILL ? "memset " + std::to_string(bytes()) + " B"
                           : op == SIMTGPU_PKT_TIMESTAMP ? "event record"
                                                         : "";
        if (!what.empty())
            label += (label.empty() ? "" : ", ") + what;
    }
    return label.empty() ? "work" : label;
}

std::string dim3_text(const uint32_t v[3]) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "[%u,%u,%u]", v[0], v[1], v[2]);
    return buf;
}

} // namespace

Context::Context(simtgpuDevice device, std::unique_ptr<Transport> transport)
    : device_(device), transport_(std::move(transport)) {
    default_stream_.ctx = this;
    if (const char *stats = std::getenv("SIMTGPU_STATS"); stats && *stats) {
        stats_path_ = stats;
        counters_at_start_.resize(SIMTGPU_NUM_COUNTERS);
        if (transport_->read_counters(counters_at_start_.data()) != 0)
            counters_at_start_.clear();
    }
}

const simtgpuDeviceProperties &Context::props() const {
    return (*devices())[device_].props;
}

Context::~Context() {
    // Work still queued finishes first, as when a process closes its fd, and
    // the streams go before what their work and printf drain use (events'
    // timestamps, module images, memory). destroy_stream erases the stream
    // from streams_, so take the front each time rather than iterate. Held
    // work waits for its host functions, which run on their thread.
    {
        std::lock_guard<std::recursive_mutex> guard(mu_);
        synchronize_all();
    }
    if (host_thread_.joinable()) {
        {
            std::lock_guard<std::mutex> guard(host_mu_);
            host_thread_stop_ = true;
        }
        host_calls_changed_.notify_all();
        host_thread_.join();
    }
    while (!streams_.empty())
        destroy_stream(&streams_.front());
    destroy_stream(&default_stream_);
    for (auto &event : events) {
        if (event.syncobj) {
            drm_syncobj_destroy d{event.syncobj, 0};
            transport_->ioctl(DRM_IOCTL_SYNCOBJ_DESTROY, &d);
        }
        destroy_bo(event.timestamp);
    }
    for (auto &module : modules)
        destroy_bo(module.bo);
    for (auto &[va, bo] : device_bos_)
        if (bo.kind == BoKind::Managed)
            orphan_managed(bo);
        else if (bo.kind != BoKind::Module)
            destroy_bo(bo);
    for (auto &[ptr, bo] : host_bos_)
        if (bo.kind == BoKind::Host)
            std::free(bo.cpu);
    if (const char *profile = std::getenv("SIMTGPU_PROFILE"); profile && *profile == '1')
        print_kernel_stats();
    if (!stats_path_.empty()) {
        std::vector<uint64_t> counters;
        if (!counters_at_start_.empty()) {
            counters.resize(SIMTGPU_NUM_COUNTERS);
            if (transport_->read_counters(counters.data()) == 0) {
                for (size_t i = 0; i < counters.size(); ++i)
                    counters[i] -= counters_at_start_[i];
            } else {
                counters.clear();
            }
        }
        write_stats_json(stats_path_.c_str(), props(), kernel_stats_, kernel_counters_, counters);
    }
}

// SIMTGPU_PROFILE=1: each kernel's device time, from the launch reports, as
// nvprof's GPU summary gives it.
void Context::print_kernel_stats() const {
    const double cycles_per_us = props().clock_khz / 1000.0;
    std::fprintf(stderr, "simtgpu profile (device time from launch reports):\n");
    std::fprintf(stderr, "  %-32s %9s %14s %12s %16s\n", "kernel", "launches", "total us", "avg us",
                 "thread instrs");
    for (const auto &[name, k] : kernel_stats_) {
        int status = 0;
        char *demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
        std::fprintf(stderr, "  %-32s %9llu %14.3f %12.3f %16llu\n",
                     status == 0 && demangled ? demangled : name.c_str(),
                     (unsigned long long)k.launches, double(k.device_cycles) / cycles_per_us,
                     double(k.device_cycles) / cycles_per_us / double(k.launches),
                     (unsigned long long)k.thread_instructions);
        std::free(demangled);
    }
}

// ------------------------------------------------------------- memory ---

simtgpuResult Context::create_bo(uint64_t size, uint32_t flags, Bo *out, uint64_t fixed_va) {
    drm_simtgpu_bo_create create{};
    create.size = size;
    // Unified addressing: device memory where no host address can be.
    create.flags = flags | (unified_addressing() ? SIMTGPU_BO_HIGH_VA : 0);
    if (fixed_va) {
        create.flags = flags | SIMTGPU_BO_FIXED_VA;
        create.gpu_va = fixed_va;
    }
    if (int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_BO_CREATE, &create)) {
        if (rc == -ENOMEM) {
            // A cgroup VRAM limit (dmem "max"): name it and the cgroup.
            drm_simtgpu_get_param max{SIMTGPU_PARAM_CGROUP_VRAM_MAX, 0, 0};
            drm_simtgpu_get_param cur{SIMTGPU_PARAM_CGROUP_VRAM_CURRENT, 0, 0};
            if (transport_->ioctl(DRM_IOCTL_SIMTGPU_GET_PARAM, &max) == 0 &&
                transport_->ioctl(DRM_IOCTL_SIMTGPU_GET_PARAM, &cur) == 0 &&
                max.value != SIMTGPU_DMEM_MAX_NONE &&
                !simtgpu_dmem_allows(cur.value, size, max.value))
                return fail(SIMTGPU_ERROR_OUT_OF_MEMORY,
                            "out of device memory allocating " + std::to_string(size) +
                                " bytes: over the VRAM limit of cgroup " + own_cgroup() +
                                " (dmem max " + std::to_string(max.value) + " bytes, " +
                                std::to_string(cur.value) + " bytes in use)");
        }
        if (rc == -ENOSPC || rc == -ENOMEM) {
            drm_simtgpu_get_param used{SIMTGPU_PARAM_VRAM_USED, 0, 0};
            transport_->ioctl(DRM_IOCTL_SIMTGPU_GET_PARAM, &used);
            const uint64_t total = props().vram_size;
            const uint64_t free_bytes = total > used.value ? total - used.value : 0;
            return fail(SIMTGPU_ERROR_OUT_OF_MEMORY,
                        "out of device memory allocating " + std::to_string(size) +
                            " bytes: " + std::to_string(free_bytes) + " bytes free (" +
                            std::to_string(used.value) + " of " + std::to_string(total) +
                            " bytes of VRAM in use)");
        }
        if (fixed_va && (rc == -EEXIST || rc == -ERANGE))
            return fail(SIMTGPU_ERROR_INVALID_VALUE,
                        "device memory at " + hex(fixed_va) + ".." + hex(fixed_va + size) + ": " +
                            (rc == -EEXIST ? "part of the range is mapped already"
                                           : "the range lies outside the device's address "
                                             "space for buffers"));
        if (fixed_va && rc == -EINVAL && (props().uapi_version & 0xffff) < 5)
            return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                        "the kernel driver's uAPI predates BOs at a chosen address (1.5): load "
                        "the simtgpu.ko built with this library");
        return fail_errno(rc, "BO_CREATE of " + std::to_string(size) + " bytes");
    }
    drm_simtgpu_bo_mmap_offset map{create.handle, 0, 0};
    void *cpu = nullptr;
    int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &map);
    if (rc == 0) {
        drm_simtgpu_bo_info info{create.handle, 0, 0, 0};
        rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_BO_INFO, &info);
        if (rc == 0) {
            cpu = transport_->mmap(map.offset, info.size);
            size = info.size;
        }
    }
    if (!cpu) {
        drm_gem_close close{create.handle, 0};
        transport_->ioctl(DRM_IOCTL_GEM_CLOSE, &close);
        return fail_errno(rc ? rc : -ENOMEM, "mapping a BO for the CPU");
    }
    *out = Bo{create.handle, create.gpu_va, size, 0, static_cast<uint8_t *>(cpu), BoKind::Internal};
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::create_userptr_bo(void *ptr, uint64_t bytes, bool read_only, Bo *out) {
    const uint64_t page = SIMTGPU_PAGE_SIZE;
    const uint64_t begin = reinterpret_cast<uint64_t>(ptr) & ~(page - 1);
    const uint64_t end = (reinterpret_cast<uint64_t>(ptr) + bytes + page - 1) & ~(page - 1);
    if (unified_addressing()) {
        uint32_t handle = 0;
        if (simtgpuResult r = map_host_pages(begin, end, read_only, &handle))
            return r;
        *out = Bo{handle, reinterpret_cast<uint64_t>(ptr), end - begin,
                  bytes,  static_cast<uint8_t *>(ptr),    BoKind::Registered};
        return SIMTGPU_SUCCESS;
    }
    drm_simtgpu_bo_userptr args{};
    args.user_ptr = begin;
    args.size = end - begin;
    args.flags = read_only ? SIMTGPU_BO_READ_ONLY : 0;
    if (int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_BO_USERPTR, &args)) {
        if (rc == -EFAULT)
            return fail(SIMTGPU_ERROR_INVALID_VALUE,
                        "host memory " + hex(begin) + ".." + hex(end) + " is not mapped" +
                            (read_only ? ""
                                       : " writable (register read-only memory with the "
                                         "read-only flag)") +
                            " in this process");
        return fail_errno(rc, "BO_USERPTR of " + std::to_string(end - begin) + " bytes");
    }
    const uint64_t offset = reinterpret_cast<uint64_t>(ptr) - begin;
    *out = Bo{args.handle, args.gpu_va + offset,        end - begin,
              bytes,       static_cast<uint8_t *>(ptr), BoKind::Registered};
    return SIMTGPU_SUCCESS;
}

// Unified addressing: maps the pages of [begin, end) not mapped yet at their
// own address, and counts one more user of every run of pages it touches.
// `handle` gets one of the BOs (the range may span several).
simtgpuResult Context::map_host_pages(uint64_t begin, uint64_t end, bool read_only,
                                      uint32_t *handle) {
    // The runs of [begin, end) that no mapped run covers.
    std::vector<std::pair<uint64_t, uint64_t>> gaps;
    auto it = host_pages_.upper_bound(begin);
    if (it != host_pages_.begin() && std::prev(it)->second.end > begin)
        --it;
    for (uint64_t cursor = begin; cursor < end; ++it) {
        if (it == host_pages_.end() || it->first >= end) {
            gaps.emplace_back(cursor, end);
            break;
        }
        if (it->first > cursor)
            gaps.emplace_back(cursor, it->first);
        cursor = it->second.end;
    }
    std::vector<uint64_t> made;
    for (auto [from, to] : gaps) {
        drm_simtgpu_bo_userptr args{};
        args.user_ptr = from;
        args.size = to - from;
        args.flags = SIMTGPU_BO_FIXED_VA | (read_only ? SIMTGPU_BO_READ_ONLY : 0);
        args.gpu_va = from;
        if (int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_BO_USERPTR, &args)) {
            for (uint64_t start : made) {
                drm_gem_close close{host_pages_[start].handle, 0};
                transport_->ioctl(DRM_IOCTL_GEM_CLOSE, &close);
                host_pages_.erase(start);
            }
            const std::string range = hex(from) + ".." + hex(to);
            if (rc == -EFAULT)
                return fail(SIMTGPU_ERROR_INVALID_VALUE,
                            "host memory " + range + " is not mapped" +
                                (read_only ? ""
                                           : " writable (register read-only memory with the "
                                             "read-only flag)") +
                                " in this process");
            if (rc == -EEXIST || rc == -ERANGE)
                return fail(SIMTGPU_ERROR_INVALID_VALUE,
                            "host memory " + range +
                                " cannot be mapped for the device at its own address: " +
                                (rc == -EEXIST ? "the device already maps something there"
                                               : "it lies outside the device's address space") +
                                " (unified addressing; SIMTGPU_BO_FIXED_VA)");
            return fail_errno(rc, "BO_USERPTR of " + std::to_string(to - from) + " bytes at " +
                                      hex(from));
        }
        host_pages_[from] = HostPages{to, args.handle, 0};
        made.push_back(from);
    }
    // Recomputed: the runs just made may lie before `first`.
    it = host_pages_.upper_bound(begin);
    if (it != host_pages_.begin() && std::prev(it)->second.end > begin)
        --it;
    *handle = it->second.handle;
    for (; it != host_pages_.end() && it->first < end; ++it)
        ++it->second.users;
    return SIMTGPU_SUCCESS;
}

void Context::unmap_host_pages(uint64_t begin, uint64_t end) {
    auto it = host_pages_.upper_bound(begin);
    if (it != host_pages_.begin() && std::prev(it)->second.end > begin)
        --it;
    while (it != host_pages_.end() && it->first < end) {
        if (--it->second.users == 0) {
            drm_gem_close close{it->second.handle, 0};
            transport_->ioctl(DRM_IOCTL_GEM_CLOSE, &close);
            it = host_pages_.erase(it);
        } else {
            ++it;
        }
    }
}

void Context::destroy_bo(Bo &bo) {
    if (!bo.handle)
        return;
    if (unified_addressing() && (bo.kind == BoKind::Host || bo.kind == BoKind::Registered)) {
        const uint64_t begin = reinterpret_cast<uint64_t>(bo.cpu) & ~uint64_t(SIMTGPU_PAGE_SIZE - 1);
        unmap_host_pages(begin, begin + bo.size);
        bo = Bo{};
        return;
    }
    // A user-pointer BO's memory is the caller's, not a mapping of ours.
    if (bo.kind != BoKind::Host && bo.kind != BoKind::Registered)
        transport_->munmap(bo.cpu, bo.size);
    drm_gem_close close{bo.handle, 0};
    transport_->ioctl(DRM_IOCTL_GEM_CLOSE, &close);
    bo = Bo{};
}

simtgpuResult Context::mem_alloc(size_t bytes, simtgpuDevicePtr *out) {
    Bo bo;
    if (simtgpuResult r = create_bo(bytes, 0, &bo))
        return r;
    bo.kind = BoKind::Device;
    bo.user_size = bytes;
    device_bos_[bo.va] = bo;
    *out = bo.va;
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::mem_alloc_at(uint64_t va, size_t bytes) {
    Bo bo;
    if (simtgpuResult r = create_bo(bytes, 0, &bo, va))
        return r;
    bo.kind = BoKind::Device;
    bo.user_size = bytes;
    device_bos_[bo.va] = bo;
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::mem_free(simtgpuDevicePtr ptr) {
    auto it = device_bos_.find(ptr);
    if (it == device_bos_.end() || it->second.kind != BoKind::Device)
        return fail(SIMTGPU_ERROR_INVALID_VALUE,
                    "free of " + hex(ptr) + ", which is not an allocation of this context");
    // Like cudaFree: the memory may still be in use by queued work.
    synchronize_all();
    destroy_bo(it->second);
    device_bos_.erase(it);
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::host_alloc(size_t bytes, void **out) {
    uint64_t size = (bytes + SIMTGPU_PAGE_SIZE - 1) & ~uint64_t(SIMTGPU_PAGE_SIZE - 1);
    void *p = std::aligned_alloc(SIMTGPU_PAGE_SIZE, size ? size : SIMTGPU_PAGE_SIZE);
    if (!p)
        return fail(SIMTGPU_ERROR_OUT_OF_MEMORY,
                    "out of host memory allocating " + std::to_string(bytes) + " bytes");
    // Pinned and mapped for the device, which reaches it by DMA; under a
    // kernel driver older than user-pointer BOs (uAPI 1.0) plain memory that
    // copies stage through VRAM.
    Bo bo{0, 0, size, bytes, static_cast<uint8_t *>(p), BoKind::Host};
    if (has_userptr()) {
        if (simtgpuResult r = create_userptr_bo(p, bytes, false, &bo)) {
            std::free(p);
            return r;
        }
        bo.kind = BoKind::Host;
    }
    if (bo.handle)
        device_bos_[bo.va] = bo;
    host_bos_[reinterpret_cast<uint64_t>(p)] = bo;
    *out = p;
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::host_free(void *ptr) {
    auto it = host_bos_.find(reinterpret_cast<uint64_t>(ptr));
    if (it == host_bos_.end() || it->second.kind != BoKind::Host)
        return fail(SIMTGPU_ERROR_INVALID_VALUE,
                    "pointer was not allocated by simtgpuMemHostAlloc");
    synchronize_all();
    Bo bo = it->second;
    host_bos_.erase(it);
    if (bo.handle) {
        device_bos_.erase(bo.va);
        destroy_bo(bo);
    }
    std::free(ptr);
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::host_register(void *ptr, size_t bytes, bool read_only) {
    const uint64_t p = reinterpret_cast<uint64_t>(ptr);
    auto next = host_bos_.lower_bound(p);
    bool overlaps = next != host_bos_.end() && next->first < p + bytes;
    if (next != host_bos_.begin()) {
        auto prev = std::prev(next);
        overlaps |= p < prev->first + prev->second.valid_bytes();
    }
    if (!has_userptr())
        return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                    "the kernel driver's uAPI " + std::to_string(props().uapi_version >> 16) + "." +
                        std::to_string(props().uapi_version & 0xffff) +
                        " has no user-pointer BOs (1.3): load the simtgpu.ko built with this "
                        "library");
    if (overlaps)
        return fail(SIMTGPU_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                    hex(p) + ".." + hex(p + bytes) +
                        " overlaps host memory already registered or allocated pinned");
    Bo bo;
    if (simtgpuResult r = create_userptr_bo(ptr, bytes, read_only, &bo))
        return r;
    device_bos_[bo.va] = bo;
    host_bos_[p] = bo;
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::host_unregister(void *ptr) {
    auto it = host_bos_.find(reinterpret_cast<uint64_t>(ptr));
    if (it == host_bos_.end() || it->second.kind != BoKind::Registered)
        return fail(SIMTGPU_ERROR_HOST_MEMORY_NOT_REGISTERED,
                    hex(reinterpret_cast<uint64_t>(ptr)) +
                        " is not the start of a range registered with simtgpuMemHostRegister");
    // The GPU may still be using it: as in CUDA, unregistering waits.
    synchronize_all();
    Bo bo = it->second;
    host_bos_.erase(it);
    device_bos_.erase(bo.va);
    destroy_bo(bo);
    return SIMTGPU_SUCCESS;
}

// ----------------------------------------------------- managed memory ---

bool Context::has_managed_bos() const {
    return transport_->services_page_faults() && (props().uapi_version >> 16) == 1 &&
           (props().uapi_version & 0xffff) >= 6 &&
           (props().caps & SIMTGPU_CAP_REPLAYABLE_FAULTS) && unified_addressing();
}

simtgpuResult Context::managed_alloc(size_t bytes, void **out) {
    if (!transport_->services_page_faults())
        return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                    "managed memory by page migration needs the kernel driver: the in-process "
                    "transport services no GPU page faults (use mapped host memory there)");
    if (!has_managed_bos())
        return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                    "managed memory by page migration needs uAPI 1.6 (the driver speaks " +
                        std::to_string(props().uapi_version >> 16) + "." +
                        std::to_string(props().uapi_version & 0xffff) +
                        "), a device with replayable faults (hardware 1.4) and unified "
                        "addressing: load the simtgpu.ko built with this library");
    const uint64_t page = SIMTGPU_PAGE_SIZE;
    const uint64_t size = (uint64_t(bytes) + page - 1) & ~(page - 1);
    if (!bytes || size < bytes)
        return fail(SIMTGPU_ERROR_INVALID_VALUE, "managed memory of " + std::to_string(bytes) +
                                                     " bytes: the size must be above 0");
    // An address of our own for it, which the device then maps too.
    void *at = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (at == MAP_FAILED)
        return fail(SIMTGPU_ERROR_OUT_OF_MEMORY,
                    "no host address range of " + std::to_string(size) +
                        " bytes for managed memory: " + std::strerror(errno));
    const uint64_t va = reinterpret_cast<uint64_t>(at);
    drm_simtgpu_bo_create create{};
    create.size = size;
    create.flags = SIMTGPU_BO_MANAGED | SIMTGPU_BO_FIXED_VA;
    create.gpu_va = va;
    if (int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_BO_CREATE, &create)) {
        munmap(at, size);
        if (rc == -EEXIST || rc == -ERANGE)
            return fail(SIMTGPU_ERROR_OUT_OF_MEMORY,
                        "managed memory at " + hex(va) + ".." + hex(va + size) +
                            ": the device cannot map it at its host address (" +
                            (rc == -EEXIST ? "something is mapped there already"
                                           : "outside the device's address space") +
                            ")");
        if (rc == -ENODEV)
            return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                        "the device has no replayable page faults: no managed BOs");
        if (rc == -ENOMEM)
            return fail(SIMTGPU_ERROR_OUT_OF_MEMORY,
                        "out of host memory for managed memory of " + std::to_string(size) +
                            " bytes");
        return fail_errno(rc, "BO_CREATE of " + std::to_string(size) + " bytes of managed memory");
    }
    drm_simtgpu_bo_mmap_offset map{create.handle, 0, 0};
    int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &map);
    void *cpu = rc ? nullptr : transport_->mmap_at(at, map.offset, size);
    if (cpu != at) {
        const int err = errno;
        munmap(at, size);
        drm_gem_close close{create.handle, 0};
        transport_->ioctl(DRM_IOCTL_GEM_CLOSE, &close);
        return rc ? fail_errno(rc, "BO_MMAP_OFFSET of managed memory")
                  : fail(SIMTGPU_ERROR_OUT_OF_MEMORY,
                         "mapping managed memory at " + hex(va) + ": " + std::strerror(err));
    }
    device_bos_[va] = Bo{create.handle, va, size, bytes, static_cast<uint8_t *>(cpu),
                         BoKind::Managed};
    *out = cpu;
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::managed_free(void *ptr) {
    auto it = device_bos_.find(reinterpret_cast<uint64_t>(ptr));
    if (it == device_bos_.end() || it->second.kind != BoKind::Managed)
        return fail(SIMTGPU_ERROR_INVALID_VALUE,
                    "free of " + hex(reinterpret_cast<uint64_t>(ptr)) +
                        ", which is not managed memory of this context");
    // As cudaFree: kernels that may still use it complete first.
    synchronize_all();
    destroy_bo(it->second); // unmaps it for the CPU, then closes the BO
    device_bos_.erase(it);
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::managed_stats(simtgpuManagedStats *out) {
    if ((props().uapi_version & 0xffff) < 6 && (props().uapi_version >> 16) == 1)
        return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                    "the kernel driver's uAPI predates managed memory counters (1.6): load the "
                    "simtgpu.ko built with this library");
    drm_simtgpu_get_param faults{SIMTGPU_PARAM_MANAGED_GPU_FAULTS, 0, 0};
    drm_simtgpu_get_param to_vram{SIMTGPU_PARAM_MANAGED_TO_VRAM, 0, 0};
    drm_simtgpu_get_param to_host{SIMTGPU_PARAM_MANAGED_TO_HOST, 0, 0};
    for (auto *p : {&faults, &to_vram, &to_host})
        if (int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_GET_PARAM, p))
            return fail_errno(rc, "GET_PARAM of the managed memory counters");
    // Counters newer than 1.6 read as 0 under a driver that predates them.
    const auto uapi_has = [&](uint32_t minor) {
        return (props().uapi_version >> 16) > 1 || (props().uapi_version & 0xffff) >= minor;
    };
    drm_simtgpu_get_param duplicated{SIMTGPU_PARAM_MANAGED_DUPLICATED, 0, 0};
    drm_simtgpu_get_param remote{SIMTGPU_PARAM_MANAGED_REMOTE, 0, 0};
    drm_simtgpu_get_param evicted{SIMTGPU_PARAM_MANAGED_EVICTED, 0, 0};
    for (auto [param, minor] : {std::pair{&duplicated, 10u}, {&remote, 11u}, {&evicted, 11u}})
        if (uapi_has(minor))
            if (int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_GET_PARAM, param))
                return fail_errno(rc, "GET_PARAM of the managed memory counters");
    *out = simtgpuManagedStats{faults.value,     to_vram.value, to_host.value,
                               duplicated.value, remote.value,  evicted.value};
    return SIMTGPU_SUCCESS;
}

// A managed BO whose context goes while the memory is still allocated: it
// stays at its address as plain host memory with its last contents, as the
// memfd mapping of mapped host memory does, so that host code can still
// read it (a __managed__ variable after cudaDeviceReset or at exit). Reading
// it first brings every page home; the anonymous mapping then replaces the
// BO's (MAP_FIXED), and the BO is closed.
void Context::orphan_managed(Bo &bo) {
    std::vector<uint8_t> contents(bo.cpu, bo.cpu + bo.size);
    void *plain = mmap(bo.cpu, bo.size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (plain == bo.cpu)
        std::memcpy(plain, contents.data(), bo.size);
    else
        munmap(bo.cpu, bo.size); // the BO's mapping must not outlive the file
    drm_gem_close close{bo.handle, 0};
    transport_->ioctl(DRM_IOCTL_GEM_CLOSE, &close);
    bo = Bo{};
}

Bo *Context::find_device(uint64_t va, uint64_t bytes) {
    auto it = device_bos_.upper_bound(va);
    if (it == device_bos_.begin())
        return nullptr;
    --it;
    Bo &bo = it->second;
    if (va < bo.va || va + bytes > bo.va + bo.valid_bytes() || va + bytes < va)
        return nullptr;
    return &bo;
}

Bo *Context::find_host(const void *ptr, uint64_t bytes) {
    uint64_t p = reinterpret_cast<uint64_t>(ptr);
    auto it = host_bos_.upper_bound(p);
    if (it == host_bos_.begin())
        return nullptr;
    --it;
    Bo &bo = it->second;
    if (!bo.handle || p + bytes > it->first + bo.valid_bytes())
        return nullptr;
    return &bo;
}

bool Context::is_host_allocated(const void *ptr) {
    uint64_t p = reinterpret_cast<uint64_t>(ptr);
    auto it = host_bos_.upper_bound(p);
    if (it == host_bos_.begin())
        return false;
    --it;
    return p < it->first + it->second.valid_bytes();
}

bool Context::read_string(uint64_t va, std::string *out) {
    auto from = [&](const uint8_t *base, uint64_t base_va, uint64_t size) {
        if (va < base_va || va >= base_va + size)
            return false;
        const char *s = reinterpret_cast<const char *>(base + (va - base_va));
        *out = std::string(s, strnlen(s, std::min<uint64_t>(base_va + size - va, 4096)));
        return true;
    };
    for (auto &m : modules)
        if (from(m.loaded.data(), m.bo.va, m.loaded.size()))
            return true;
    if (Bo *bo = find_device(va, 1))
        return from(bo->cpu, bo->va, bo->size);
    return false;
}

// ---------------------------------------------------------------- work ---

simtgpuResult Context::create_stream(unsigned flags, int priority, simtgpuStream *out) {
    drm_simtgpu_queue_create create{};
    create.priority = priority > 0   ? SIMTGPU_PRIORITY_HIGH
                      : priority < 0 ? SIMTGPU_PRIORITY_LOW
                                     : SIMTGPU_PRIORITY_NORMAL;
    if (int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &create))
        return fail_queue_create(rc);
    simtgpuStream_st &s = streams_.emplace_back();
    s.ctx = this;
    s.flags = flags;
    s.priority = std::clamp(priority, -1, 1);
    s.queue_id = create.queue_id;
    *out = &s;
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::destroy_stream(simtgpuStream s) {
    drain(*s);
    // Nothing of it is held now: no one needs to follow it any more.
    auto forget = [s](std::vector<HeldAfter> &after) {
        std::erase_if(after, [s](const HeldAfter &a) { return a.stream == s; });
    };
    auto forget_in = [&](simtgpuStream_st &other) {
        forget(other.pending_after);
        for (HeldWork &work : other.held)
            forget(work.after);
    };
    forget_in(default_stream_);
    for (auto &other : streams_)
        forget_in(other);
    for (auto &event : events)
        if (event.held.stream == s)
            event.held = {nullptr, 0};
    release_waits(s->pending_waits);
    destroy_bo(s->env);
    if (s->queue_id) {
        drm_simtgpu_queue_destroy d{s->queue_id, 0};
        transport_->ioctl(DRM_IOCTL_SIMTGPU_QUEUE_DESTROY, &d);
        s->queue_id = 0;
    }
    if (s != &default_stream_)
        streams_.remove_if([s](const simtgpuStream_st &x) { return &x == s; });
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::snapshot_syncobj(uint32_t syncobj, uint32_t *out) {
    drm_syncobj_create create{};
    if (int rc = transport_->ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &create))
        return fail_errno(rc, "SYNCOBJ_CREATE");
    drm_syncobj_transfer transfer{};
    transfer.src_handle = syncobj;
    transfer.dst_handle = create.handle;
    if (int rc = transport_->ioctl(DRM_IOCTL_SYNCOBJ_TRANSFER, &transfer)) {
        drm_syncobj_destroy d{create.handle, 0};
        transport_->ioctl(DRM_IOCTL_SYNCOBJ_DESTROY, &d);
        return fail_errno(rc, "SYNCOBJ_TRANSFER");
    }
    *out = create.handle;
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::follow_held_record(const HeldAfter &record, uint32_t *out) {
    auto work = std::find_if(record.stream->held.begin(), record.stream->held.end(),
                             [&](const HeldWork &w) { return w.seq == record.seq; });
    if (work == record.stream->held.end())
        return fail(SIMTGPU_ERROR_UNKNOWN, "the held record of the event is not in its stream");
    drm_syncobj_create create{};
    if (int rc = transport_->ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &create))
        return fail_errno(rc, "SYNCOBJ_CREATE");
    work->extra_out_syncobjs.push_back(create.handle);
    *out = create.handle;
    return SIMTGPU_SUCCESS;
}

void Context::release_waits(std::vector<uint32_t> &waits) {
    for (uint32_t syncobj : waits) {
        drm_syncobj_destroy d{syncobj, 0};
        transport_->ioctl(DRM_IOCTL_SYNCOBJ_DESTROY, &d);
    }
    waits.clear();
}

simtgpuResult Context::wait_syncobj(uint32_t syncobj, bool block, bool *signaled) {
    drm_syncobj_wait wait{};
    wait.handles = reinterpret_cast<uint64_t>(&syncobj);
    wait.count_handles = 1;
    wait.timeout_nsec = block ? INT64_MAX : 0;
    int rc = transport_->ioctl(DRM_IOCTL_SYNCOBJ_WAIT, &wait);
    if (rc == 0 || rc == -ETIME) {
        *signaled = rc == 0;
        return SIMTGPU_SUCCESS;
    }
    return fail_errno(rc, "SYNCOBJ_WAIT");
}

simtgpuResult Context::poison(simtgpuResult code, const std::string &detail) {
    if (sticky_ == SIMTGPU_SUCCESS) {
        sticky_ = code;
        sticky_detail_ = detail;
    }
    return fail(sticky_, sticky_detail_);
}

simtgpuResult Context::submit(simtgpuStream_st &s, const std::vector<uint32_t> &packets,
                              std::vector<Bo> transient,
                              const std::vector<uint32_t> &extra_out_syncobjs) {
    Submission sub;
    sub.transient = std::move(transient);
    return submit_work(s, packets, std::move(sub), extra_out_syncobjs);
}

simtgpuResult Context::submit_launch(simtgpuStream_st &s, const std::vector<uint32_t> &packets,
                                     Bo params, const std::string &kernel, uint32_t report_offset) {
    Submission sub;
    sub.transient = {params};
    sub.kernel = kernel;
    sub.report_offset = report_offset;
    if (counters_at_start_.empty())
        return submit_work(s, packets, std::move(sub), {});
    // SIMTGPU_STATS: the device's counters just before and after the launch,
    // with nothing else of this context on the device, are the kernel's own
    // (docs/counters.md): launches are serialised, as Nsight Compute does.
    // Errors surface as before, at the next call that synchronises.
    synchronize_all();
    std::vector<uint64_t> before(SIMTGPU_NUM_COUNTERS), after(SIMTGPU_NUM_COUNTERS);
    const bool readable = transport_->read_counters(before.data()) == 0;
    if (simtgpuResult r = submit_work(s, packets, std::move(sub), {}))
        return r;
    drain(s);
    if (readable && transport_->read_counters(after.data()) == 0) {
        std::vector<uint64_t> &sum = kernel_counters_[kernel];
        sum.resize(SIMTGPU_NUM_COUNTERS);
        for (size_t i = 0; i < sum.size(); ++i)
            sum[i] += after[i] - before[i];
    }
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::submit_work(simtgpuStream_st &s, const std::vector<uint32_t> &packets,
                                   Submission sub,
                                   const std::vector<uint32_t> &extra_out_syncobjs) {
    if (sticky_) {
        for (auto &bo : sub.transient)
            destroy_bo(bo);
        return fail(sticky_, sticky_detail_);
    }
    std::vector<HeldAfter> after = held_before(s);
    if (!s.held.empty() || !after.empty()) {
        HeldWork work;
        work.packets = packets;
        work.sub = std::move(sub);
        work.extra_out_syncobjs = extra_out_syncobjs;
        hold(s, std::move(work), std::move(after));
        return SIMTGPU_SUCCESS;
    }
    simtgpuResult r = submit_now(s, packets, std::move(sub), extra_out_syncobjs, s.pending_waits);
    if (r == SIMTGPU_SUCCESS)
        release_waits(s.pending_waits);
    return r;
}

// CUDA's legacy default stream: it waits for every blocking stream, and
// they wait for it.
template <class Visit> void Context::for_each_legacy_peer(simtgpuStream_st &s, Visit visit) {
    if (&s == &default_stream_) {
        for (auto &other : streams_)
            if (!(other.flags & SIMTGPU_STREAM_NON_BLOCKING))
                visit(other);
    } else if (!(s.flags & SIMTGPU_STREAM_NON_BLOCKING)) {
        visit(default_stream_);
    }
}

std::vector<HeldAfter> Context::held_before(simtgpuStream_st &s) {
    std::vector<HeldAfter> after;
    for (const HeldAfter &a : s.pending_after)
        if (pending(a))
            after.push_back(a);
    for_each_legacy_peer(s, [&](simtgpuStream_st &other) {
        if (!other.held.empty())
            after.push_back({&other, other.held.back().seq});
    });
    return after;
}

void Context::hold(simtgpuStream_st &s, HeldWork work, std::vector<HeldAfter> after) {
    work.seq = s.next_seq++;
    work.waits = std::move(s.pending_waits);
    s.pending_waits.clear();
    work.after = std::move(after);
    s.pending_after.clear();
    s.held.push_back(std::move(work));
    pump();
}

void Context::pump() {
    for (bool moved = true; moved;) {
        moved = false;
        auto serve = [&](simtgpuStream_st &s) {
            while (!s.held.empty()) {
                HeldWork &front = s.held.front();
                if (front.started || std::any_of(front.after.begin(), front.after.end(), pending))
                    return;
                moved = true;
                if (front.host_fn) {
                    start_host_function(s, front);
                    return;
                }
                HeldWork work = std::move(front);
                s.held.pop_front();
                s.flushed_seq = work.seq;
                // A failure has no caller to go to: it is the context's
                // error from now on (CUDA reports asynchronous errors so).
                if (simtgpuResult r = submit_now(s, work.packets, std::move(work.sub),
                                                 work.extra_out_syncobjs, work.waits))
                    poison(r, last_detail_c());
                release_waits(work.waits);
            }
        };
        serve(default_stream_);
        for (auto &s : streams_)
            serve(s);
    }
    held_moved_.notify_all();
}

simtgpuResult Context::launch_host_func(simtgpuStream_st &s, simtgpuHostFn fn, void *user,
                                        unsigned flags) {
    if (sticky_)
        return fail(sticky_, sticky_detail_);
    HeldWork work;
    work.host_fn = fn;
    work.user = user;
    work.host_flags = flags;
    hold(s, std::move(work), held_before(s));
    return SIMTGPU_SUCCESS;
}

// A NOP on the stream, after the work before the function and the waits it
// was given, signals the syncobj the host-function thread waits for.
void Context::start_host_function(simtgpuStream_st &s, HeldWork &work) {
    work.started = true;
    uint32_t done = 0;
    if (!sticky_) {
        drm_syncobj_create create{};
        if (int rc = transport_->ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &create)) {
            poison(fail_errno(rc, "SYNCOBJ_CREATE"), last_detail_c());
        } else if (simtgpuResult r = submit_now(
                       s, {SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, 0)}, Submission{},
                       {create.handle}, work.waits)) {
            drm_syncobj_destroy d{create.handle, 0};
            transport_->ioctl(DRM_IOCTL_SYNCOBJ_DESTROY, &d);
            poison(r, last_detail_c());
        } else {
            done = create.handle;
        }
    }
    release_waits(work.waits);
    {
        std::lock_guard<std::mutex> guard(host_mu_);
        host_calls_.push_back({&s, done, work.host_fn, work.user, work.host_flags});
    }
    host_calls_changed_.notify_one();
    if (!host_thread_.joinable())
        host_thread_ = std::thread([this] { host_function_thread(); });
}

void Context::host_function_thread() {
    std::unique_lock<std::mutex> lock(host_mu_);
    for (;;) {
        host_calls_changed_.wait(lock, [&] { return host_thread_stop_ || !host_calls_.empty(); });
        if (host_calls_.empty())
            return;
        HostCall call = host_calls_.front();
        host_calls_.pop_front();
        lock.unlock();
        if (call.syncobj) { // the work before it: without the context's lock
            bool signaled = false;
            wait_syncobj(call.syncobj, true, &signaled);
            drm_syncobj_destroy d{call.syncobj, 0};
            transport_->ioctl(DRM_IOCTL_SYNCOBJ_DESTROY, &d);
        }
        simtgpuResult status;
        {
            std::lock_guard<std::recursive_mutex> guard(mu_);
            check_queue(*call.stream); // a fault before it is the sticky error now
            status = sticky_;
        }
        if (status == SIMTGPU_SUCCESS || (call.flags & SIMTGPU_HOST_FN_AFTER_ERROR))
            call.fn(call.user, status);
        {
            std::lock_guard<std::recursive_mutex> guard(mu_);
            simtgpuStream_st &s = *call.stream;
            s.flushed_seq = s.held.front().seq;
            s.held.pop_front();
            pump();
        }
        lock.lock();
    }
}

simtgpuResult Context::drain(simtgpuStream_st &s) {
    wait_held([&] {
        return s.held.empty() &&
               std::none_of(s.pending_after.begin(), s.pending_after.end(), pending);
    });
    return retire(s, true);
}

simtgpuResult Context::submit_now(simtgpuStream_st &s, const std::vector<uint32_t> &packets,
                                  Submission sub,
                                  const std::vector<uint32_t> &extra_out_syncobjs,
                                  const std::vector<uint32_t> &pending_waits) {
    auto release = [&] {
        for (auto &bo : sub.transient)
            destroy_bo(bo);
    };
    if (sticky_) {
        release();
        return fail(sticky_, sticky_detail_);
    }
    if (!s.queue_id) {
        // The default stream's queue is made on first use.
        drm_simtgpu_queue_create create{};
        create.priority = SIMTGPU_PRIORITY_NORMAL;
        if (int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &create)) {
            release();
            return fail_queue_create(rc);
        }
        s.queue_id = create.queue_id;
    }
    // SIMTGPU_TRACE: two TIMESTAMPs around the work, into the IB's tail,
    // give its device time for the stream's track (docs/trace.md).
    const bool traced = transport_->tracing();
    const size_t dwords = packets.size() + (traced ? 6 : 0);
    const uint32_t times = uint32_t((dwords * 4 + 7) & ~size_t(7));
    if (simtgpuResult r = create_bo(traced ? times + 16 : dwords * 4, 0, &sub.ib)) {
        for (auto &bo : sub.transient)
            destroy_bo(bo);
        return r;
    }
    auto *ib = reinterpret_cast<uint32_t *>(sub.ib.cpu);
    if (traced) {
        auto timestamp = [&](uint32_t *at, uint64_t va) {
            at[0] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_TIMESTAMP, 0, 2);
            at[1] = uint32_t(va);
            at[2] = uint32_t(va >> 32);
        };
        sub.times_offset = times;
        sub.label = trace_label(packets, sub.kernel);
        std::memset(sub.ib.cpu + times, 0, 16);
        timestamp(ib, sub.ib.va + times);
        std::memcpy(ib + 3, packets.data(), packets.size() * 4);
        timestamp(ib + 3 + packets.size(), sub.ib.va + times + 8);
    } else {
        std::memcpy(ib, packets.data(), packets.size() * 4);
    }
    drm_syncobj_create create{};
    if (int rc = transport_->ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &create)) {
        destroy_bo(sub.ib);
        for (auto &bo : sub.transient)
            destroy_bo(bo);
        return fail_errno(rc, "SYNCOBJ_CREATE");
    }
    sub.syncobj = create.handle;

    std::vector<uint32_t> waits = pending_waits;
    for_each_legacy_peer(s, [&](simtgpuStream_st &other) {
        if (!other.inflight.empty())
            waits.push_back(other.inflight.back().syncobj);
    });
    std::vector<drm_simtgpu_sync> in, out;
    for (uint32_t h : waits)
        in.push_back({h, 0, 0});
    out.push_back({sub.syncobj, 0, 0});
    for (uint32_t h : extra_out_syncobjs)
        out.push_back({h, 0, 0});

    drm_simtgpu_submit a{};
    a.ib_va = sub.ib.va;
    a.ib_dwords = uint32_t(dwords);
    a.queue_id = s.queue_id;
    a.in_syncs = reinterpret_cast<uint64_t>(in.data());
    a.in_sync_count = uint32_t(in.size());
    a.sync_stride = sizeof(drm_simtgpu_sync);
    a.out_syncs = reinterpret_cast<uint64_t>(out.data());
    a.out_sync_count = uint32_t(out.size());
    a.flags = SIMTGPU_SUBMIT_NO_IMPLICIT_SYNC; // streams and events order our work
    int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_SUBMIT, &a);
    if (rc) {
        drm_syncobj_destroy d{sub.syncobj, 0};
        transport_->ioctl(DRM_IOCTL_SYNCOBJ_DESTROY, &d);
        destroy_bo(sub.ib);
        for (auto &bo : sub.transient)
            destroy_bo(bo);
        if (rc == -ECANCELED) { // the queue faulted earlier: say why
            check_queue(s);
            if (sticky_)
                return fail(sticky_, sticky_detail_);
        }
        return fail_errno(rc, "SUBMIT");
    }
    s.inflight.push_back(std::move(sub));
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::retire(simtgpuStream_st &s, bool block) {
    bool any = false;
    while (!s.inflight.empty()) {
        Submission &sub = s.inflight.front();
        bool signaled = false;
        if (simtgpuResult r = wait_syncobj(sub.syncobj, block, &signaled))
            return r;
        if (!signaled)
            return SIMTGPU_ERROR_NOT_READY;
        drm_syncobj_destroy d{sub.syncobj, 0};
        transport_->ioctl(DRM_IOCTL_SYNCOBJ_DESTROY, &d);
        if (!sub.kernel.empty()) {
            simtgpu_launch_report report;
            std::memcpy(&report, sub.transient[0].cpu + sub.report_offset, sizeof report);
            simtgpuKernelStats &k = kernel_stats_[sub.kernel];
            ++k.launches;
            k.device_cycles += report.cycles;
            k.thread_instructions += report.thread_instructions;
        }
        if (sub.times_offset) {
            uint64_t t[2];
            std::memcpy(t, sub.ib.cpu + sub.times_offset, sizeof t);
            const std::string track =
                &s == &default_stream_ ? "default stream" : "stream " + std::to_string(s.queue_id);
            if (t[0] && t[1] >= t[0])
                transport_->trace_slice("CUDA streams", track.c_str(), sub.label.c_str(),
                                      t[0], t[1]);
        }
        destroy_bo(sub.ib);
        for (auto &bo : sub.transient)
            destroy_bo(bo);
        s.inflight.pop_front();
        any = true;
    }
    // Event waits not yet attached to a submission (cudaStreamWaitEvent before the
    // stream's next work) order the stream too: a wait for the stream (its
    // synchronisation, a synchronous pageable copy on it) includes them. A
    // wait for a record still held has no fence yet.
    if (!s.pending_waits.empty() &&
        std::any_of(s.pending_after.begin(), s.pending_after.end(), pending))
        return SIMTGPU_ERROR_NOT_READY;
    for (uint32_t syncobj : s.pending_waits) {
        bool signaled = false;
        if (simtgpuResult r = wait_syncobj(syncobj, block, &signaled))
            return r;
        if (!signaled)
            return SIMTGPU_ERROR_NOT_READY;
    }
    if (any) {
        drain_printf(s);
        check_queue(s);
    }
    return sticky_ ? fail(sticky_, sticky_detail_) : SIMTGPU_SUCCESS;
}

simtgpuResult Context::synchronize(simtgpuStream_st &s) {
    if (&s == &default_stream_) // the legacy default stream synchronises everything
        return synchronize_all();
    return drain(s);
}

simtgpuResult Context::synchronize_all() {
    wait_held([&] {
        return default_stream_.held.empty() &&
               std::all_of(streams_.begin(), streams_.end(),
                           [](const simtgpuStream_st &s) { return s.held.empty(); });
    });
    retire(default_stream_, true);
    for (auto &s : streams_)
        retire(s, true);
    return sticky_ ? fail(sticky_, sticky_detail_) : SIMTGPU_SUCCESS;
}

simtgpuResult Context::poll_all() {
    retire(default_stream_, false);
    for (auto &s : streams_)
        retire(s, false);
    return sticky_ ? fail(sticky_, sticky_detail_) : SIMTGPU_SUCCESS;
}

simtgpuResult Context::query(simtgpuStream_st &s) {
    if (!s.held.empty() || std::any_of(s.pending_after.begin(), s.pending_after.end(), pending))
        return SIMTGPU_ERROR_NOT_READY;
    simtgpuResult r = retire(s, false);
    if (r == SIMTGPU_ERROR_NOT_READY)
        return r;
    return sticky_ ? fail(sticky_, sticky_detail_) : r;
}

// Turns a failed queue into the context's sticky error, as CUDA does for
// faults: the context is unusable afterwards.
simtgpuResult Context::check_queue(simtgpuStream_st &s) {
    if (!s.queue_id)
        return SIMTGPU_SUCCESS;
    drm_simtgpu_queue_get_state state{};
    state.queue_id = s.queue_id;
    if (int rc = transport_->ioctl(DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, &state))
        return fail_errno(rc, "QUEUE_GET_STATE");
    if (!state.state)
        return SIMTGPU_SUCCESS;
    if (state.state & SIMTGPU_QUEUE_STATE_GUILTY)
        return poison(SIMTGPU_ERROR_LAUNCH_TIMEOUT,
                      "a job ran past the driver's timeout; the device was reset "
                      "(raise SIMTGPU_JOB_TIMEOUT_MS, or the kernel driver's timeout, for "
                      "long simulations)");
    const drm_simtgpu_fault_info &f = state.fault;
    std::string where = " at pc " + hex(f.pc) + ", block " + dim3_text(f.ctaid) + ", thread " +
                        dim3_text(f.tid) + " (SM " + std::to_string(f.sm) + ", warp " +
                        std::to_string(f.warp) + ", lane " + std::to_string(f.lane) + ")";
    switch (f.kind) {
    case SIMTGPU_EXC_PAGE_FAULT:
        return poison(SIMTGPU_ERROR_ILLEGAL_ADDRESS, std::string("illegal address: ") +
                                                         simtgpu_access_name(f.access) + " of " +
                                                         hex(f.address) + where);
    case SIMTGPU_EXC_MISALIGNED:
        return poison(SIMTGPU_ERROR_MISALIGNED_ADDRESS, std::string("misaligned ") +
                                                            simtgpu_access_name(f.access) + " of " +
                                                            hex(f.address) + where);
    case SIMTGPU_EXC_ILLEGAL_INSTRUCTION:
        return poison(SIMTGPU_ERROR_ILLEGAL_INSTRUCTION,
                      "illegal instruction " + hex(f.detail) + where);
    case SIMTGPU_EXC_TRAP: {
        const auto *env =
            s.env.cpu ? reinterpret_cast<const simtgpu_launch_env *>(s.env.cpu) : nullptr;
        if (env && env->assert_taken) {
            std::string file = "?", message = "?", function = "?";
            read_string(env->assert_file_va, &file);
            read_string(env->assert_message_va, &message);
            read_string(env->assert_function_va, &function);
            // The line CUDA prints for a failed device assert.
            std::fprintf(stderr,
                         "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` "
                         "failed.\n",
                         file.c_str(), env->assert_line, function.c_str(), env->assert_ctaid[0],
                         env->assert_ctaid[1], env->assert_ctaid[2], env->assert_tid[0],
                         env->assert_tid[1], env->assert_tid[2], message.c_str());
            std::fflush(stderr);
            return poison(SIMTGPU_ERROR_ASSERT, "device-side assert failed: " + file + ":" +
                                                    std::to_string(env->assert_line) + ": " +
                                                    message);
        }
        return poison(SIMTGPU_ERROR_LAUNCH_FAILED, "device trap (ebreak)" + where);
    }
    case SIMTGPU_EXC_DEADLOCK:
        if (f.detail == SIMTGPU_DEADLOCK_NO_PROGRESS)
            return poison(SIMTGPU_ERROR_LAUNCH_FAILED,
                          "livelock: the threads run but nothing changes, and one warp is "
                          "never given an issue slot (a spin lock whose holder the warp "
                          "scheduler starves? try another warp scheduler)" +
                              where);
        return poison(SIMTGPU_ERROR_LAUNCH_FAILED,
                      "deadlock: every live thread of block " + dim3_text(f.ctaid) +
                          " waits at a barrier or warp-level sync that cannot complete "
                          "(__syncthreads in divergent code, or a *_sync intrinsic whose "
                          "mask names a thread that never calls it?)");
    case SIMTGPU_EXC_BAD_LAUNCH:
        return poison(f.detail == SIMTGPU_LAUNCH_ERR_GEOMETRY
                          ? SIMTGPU_ERROR_INVALID_CONFIGURATION
                          : SIMTGPU_ERROR_LAUNCH_OUT_OF_RESOURCES,
                      "the device refused the launch (reason " + std::to_string(f.detail) + ")");
    case SIMTGPU_EXC_ARCH_MISMATCH:
        return poison(SIMTGPU_ERROR_NO_BINARY_FOR_GPU,
                      "the device refused code built for simt_" + std::to_string(f.detail));
    case SIMTGPU_EXC_BAD_ECALL:
        return poison(SIMTGPU_ERROR_LAUNCH_FAILED,
                      "unsupported ecall a7=" + std::to_string(f.detail) + where);
    case SIMTGPU_EXC_BAD_BARRIER: {
        // bar.sync id, count (__barrier_sync, __barrier_sync_count, PTX
        // bar.sync/bar.arrive) with an operand the device refused.
        const std::string value = std::to_string(SIMTGPU_BARRIER_DETAIL_VALUE(f.detail));
        std::string what;
        switch (SIMTGPU_BARRIER_DETAIL_REASON(f.detail)) {
        case SIMTGPU_BARRIER_ERR_ID:
            what = "barrier id " + value + " is out of range (0.." +
                   std::to_string(SIMTGPU_BARRIERS - 1) + ")";
            break;
        case SIMTGPU_BARRIER_ERR_COUNT_ALIGN:
            what = "thread count " + value + " is not a multiple of the warp size";
            break;
        case SIMTGPU_BARRIER_ERR_COUNT_RANGE:
            what = "thread count " + value + " is larger than the block";
            break;
        case SIMTGPU_BARRIER_ERR_COUNT_MISMATCH:
            what = "thread count " + value +
                   " differs from the count the threads already at the barrier gave";
            break;
        default:
            what = simtgpu_barrier_error_name(f.detail);
            break;
        }
        return poison(SIMTGPU_ERROR_LAUNCH_FAILED, "bad named barrier: " + what + where);
    }
    case SIMTGPU_EXC_BAD_L2_POLICY:
        // libsimtgpu checks the values first: reaching here means a device
        // whose limits differ from those it reported.
        return poison(SIMTGPU_ERROR_INVALID_VALUE,
                      "the device refused an L2 access policy (reason " +
                          std::to_string(f.detail) + ", hw.h SIMTGPU_L2_POLICY_ERR_*)");
    default:
        return poison(SIMTGPU_ERROR_LAUNCH_FAILED,
                      "the device reported exception kind " + std::to_string(f.kind) + " (detail " +
                          hex(f.detail) + "): last error " + std::to_string(state.last_error));
    }
}

simtgpuResult Context::ensure_env(simtgpuStream_st &s) {
    if (s.env.handle)
        return SIMTGPU_SUCCESS;
    if (simtgpuResult r = create_bo(kEnvHeaderBytes + printf_bytes, 0, &s.env))
        return r;
    auto *env = reinterpret_cast<simtgpu_launch_env *>(s.env.cpu);
    std::memset(env, 0, sizeof(*env));
    env->magic = SIMTGPU_ENV_MAGIC;
    env->version = SIMTGPU_ENV_VERSION;
    env->printf_va = s.env.va + kEnvHeaderBytes;
    env->printf_size = printf_bytes;
    return SIMTGPU_SUCCESS;
}

// Prints what the stream's kernels printed, in order, once it is idle.
void Context::drain_printf(simtgpuStream_st &s) {
    if (!s.env.cpu)
        return;
    auto *env = reinterpret_cast<simtgpu_launch_env *>(s.env.cpu);
    uint64_t used = std::min<uint64_t>(env->printf_used, env->printf_size);
    const uint8_t *buf = s.env.cpu + kEnvHeaderBytes;
    uint64_t at = 0;
    while (at + sizeof(simtgpu_printf_record) <= used) {
        simtgpu_printf_record rec;
        std::memcpy(&rec, buf + at, sizeof(rec));
        if (rec.total_bytes < sizeof(rec) || rec.total_bytes % 8 || at + rec.total_bytes > used ||
            sizeof(rec) + rec.args_bytes > rec.total_bytes)
            break; // a record still being written, or garbage: stop here
        std::string format;
        if (read_string(rec.format_va, &format)) {
            std::string text = format_device_printf(
                format, buf + at + sizeof(rec), rec.args_bytes,
                [this](uint64_t va, std::string *out) { return read_string(va, out); });
            std::fwrite(text.data(), 1, text.size(), stdout);
        }
        at += rec.total_bytes;
    }
    std::fflush(stdout);
    if (env->printf_dropped)
        std::fprintf(stderr,
                     "simtgpu: %llu device printf records did not fit the %llu-byte "
                     "buffer and were dropped\n",
                     static_cast<unsigned long long>(env->printf_dropped),
                     static_cast<unsigned long long>(env->printf_size));
    env->printf_used = 0;
    env->printf_dropped = 0;
}

} // namespace simtgpu::umd
