// uAPI conformance: every ioctl of include/uapi/drm/simtgpu_drm.h, with its
// validation errors and its effects, through the transport seam. ctest runs
// it on the in-process implementation; the guest runs the same binary with
// SIMTGPU_TRANSPORT=drm against the kernel driver. Both must pass.
#include "simtgpu/hw.h"
#include "transport.h"
#include "uapi/drm/simtgpu_drm.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

using namespace simtgpu::umd;

namespace {

struct BoHandle {
    uint32_t handle = 0;
    uint64_t va = 0;
    uint64_t size = 0;
    uint8_t *cpu = nullptr;
};

class Uapi : public ::testing::Test {
protected:
    void SetUp() override {
        std::vector<DeviceNode> nodes;
        std::string error;
        ASSERT_EQ(transport_discover(&nodes, &error), 0) << error;
        ASSERT_FALSE(nodes.empty());
        node_ = nodes[0];
        ASSERT_EQ(transport_open(node_, &t_, &error), 0) << error;
    }
    int io(unsigned long request, void *arg) { return transport_ioctl(*t_, request, arg); }
    int io(Transport &t, unsigned long request, void *arg) { return transport_ioctl(t, request, arg); }

    BoHandle bo(uint64_t size, uint32_t flags = 0, Transport *t = nullptr) {
        Transport &tr = t ? *t : *t_;
        drm_simtgpu_bo_create c{};
        c.size = size;
        c.flags = flags;
        EXPECT_EQ(io(tr, DRM_IOCTL_SIMTGPU_BO_CREATE, &c), 0);
        drm_simtgpu_bo_mmap_offset m{c.handle, 0, 0};
        EXPECT_EQ(io(tr, DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &m), 0);
        drm_simtgpu_bo_info info{c.handle, 0, 0, 0};
        EXPECT_EQ(io(tr, DRM_IOCTL_SIMTGPU_BO_INFO, &info), 0);
        auto *cpu = static_cast<uint8_t *>(transport_mmap(tr, m.offset, info.size));
        EXPECT_NE(cpu, nullptr);
        return {c.handle, c.gpu_va, info.size, cpu};
    }
    uint32_t queue(uint32_t priority = SIMTGPU_PRIORITY_NORMAL, Transport *t = nullptr) {
        drm_simtgpu_queue_create q{};
        q.priority = priority;
        EXPECT_EQ(io(t ? *t : *t_, DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &q), 0);
        return q.queue_id;
    }
    uint32_t syncobj(bool signaled = false, Transport *t = nullptr) {
        drm_syncobj_create c{};
        c.flags = signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0;
        EXPECT_EQ(io(t ? *t : *t_, DRM_IOCTL_SYNCOBJ_CREATE, &c), 0);
        return c.handle;
    }
    int wait(uint32_t handle, int64_t timeout_ns = INT64_MAX, Transport *t = nullptr) {
        drm_syncobj_wait w{};
        w.handles = reinterpret_cast<uint64_t>(&handle);
        w.count_handles = 1;
        w.timeout_nsec = timeout_ns;
        return io(t ? *t : *t_, DRM_IOCTL_SYNCOBJ_WAIT, &w);
    }
    // Writes packets into `ib` and submits them on `q`, signalling `out`.
    int submit(const BoHandle &ib, const std::vector<uint32_t> &packets, uint32_t q,
               uint32_t out, std::vector<uint32_t> in = {}, Transport *t = nullptr) {
        std::vector<drm_simtgpu_sync> ins;
        for (uint32_t h : in)
            ins.push_back({h, 0, 0});
        return submit_syncs(ib, packets, q, ins, {{out, 0, 0}}, t);
    }
    // The same with syncobj points.
    int submit_syncs(const BoHandle &ib, const std::vector<uint32_t> &packets, uint32_t q,
                     const std::vector<drm_simtgpu_sync> &ins,
                     const std::vector<drm_simtgpu_sync> &outs, Transport *t = nullptr) {
        std::memcpy(ib.cpu, packets.data(), packets.size() * 4);
        drm_simtgpu_submit s{};
        s.ib_va = ib.va;
        s.ib_dwords = uint32_t(packets.size());
        s.queue_id = q;
        s.in_syncs = reinterpret_cast<uint64_t>(ins.data());
        s.in_sync_count = uint32_t(ins.size());
        s.out_syncs = reinterpret_cast<uint64_t>(outs.data());
        s.out_sync_count = uint32_t(outs.size());
        s.sync_stride = sizeof(drm_simtgpu_sync);
        return io(t ? *t : *t_, DRM_IOCTL_SIMTGPU_SUBMIT, &s);
    }
    int timeline_wait(std::vector<uint32_t> handles, std::vector<uint64_t> points,
                      uint32_t flags = 0, int64_t timeout_ns = INT64_MAX,
                      uint32_t *first_signaled = nullptr) {
        drm_syncobj_timeline_wait w{};
        w.handles = reinterpret_cast<uint64_t>(handles.data());
        w.points = reinterpret_cast<uint64_t>(points.data());
        w.count_handles = uint32_t(handles.size());
        w.flags = flags;
        w.timeout_nsec = timeout_ns;
        int ret = io(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
        if (first_signaled)
            *first_signaled = w.first_signaled;
        return ret;
    }
    // SYNCOBJ_QUERY of one syncobj; UINT64_MAX on error.
    uint64_t query(uint32_t handle, uint32_t flags = 0) {
        uint64_t point = 0;
        drm_syncobj_timeline_array a{reinterpret_cast<uint64_t>(&handle),
                                     reinterpret_cast<uint64_t>(&point), 1, flags};
        return io(DRM_IOCTL_SYNCOBJ_QUERY, &a) == 0 ? point : UINT64_MAX;
    }
    int timeline_signal(uint32_t handle, uint64_t point) {
        drm_syncobj_timeline_array a{reinterpret_cast<uint64_t>(&handle),
                                     reinterpret_cast<uint64_t>(&point), 1, 0};
        return io(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a);
    }
    template <typename T> static void put(std::vector<uint32_t> &ib, uint32_t op, const T &body,
                                          uint32_t flags = 0) {
        ib.push_back(SIMTGPU_PKT_HEADER(op, flags, sizeof(T) / 4));
        size_t at = ib.size();
        ib.resize(at + sizeof(T) / 4);
        std::memcpy(&ib[at], &body, sizeof(T));
    }

    DeviceNode node_;
    std::unique_ptr<Transport> t_;
};

TEST_F(Uapi, GetParam) {
    drm_simtgpu_get_param p{SIMTGPU_PARAM_UAPI_VERSION, 0, 0};
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_GET_PARAM, &p), 0);
    EXPECT_EQ(p.value, (uint64_t(SIMTGPU_UAPI_VERSION_MAJOR) << 16) | SIMTGPU_UAPI_VERSION_MINOR);
    p = {SIMTGPU_PARAM_ARCH, 0, 0};
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_GET_PARAM, &p), 0);
    EXPECT_GE(p.value, 1u);
    p = {SIMTGPU_PARAM_VRAM_SIZE, 0, 0};
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_GET_PARAM, &p), 0);
    EXPECT_GT(p.value, 0u);
    uint64_t t0, t1;
    p = {SIMTGPU_PARAM_TIMESTAMP, 0, 0};
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_GET_PARAM, &p), 0);
    t0 = p.value;
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_GET_PARAM, &p), 0);
    t1 = p.value;
    EXPECT_GE(t1, t0);
    p = {SIMTGPU_PARAM_ARCH, 1, 0};
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_GET_PARAM, &p), -EINVAL);
    p = {1000, 0, 0};
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_GET_PARAM, &p), -EINVAL);
}

TEST_F(Uapi, BoCreateInfoAndValidation) {
    drm_simtgpu_bo_create c{};
    c.size = 1;
    c.flags = SIMTGPU_BO_READ_ONLY;
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_BO_CREATE, &c), 0);
    EXPECT_NE(c.handle, 0u);
    EXPECT_EQ(c.gpu_va % SIMTGPU_PAGE_SIZE, 0u);
    drm_simtgpu_bo_info info{c.handle, 0, 0, 0};
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_BO_INFO, &info), 0);
    EXPECT_EQ(info.size, SIMTGPU_PAGE_SIZE);
    EXPECT_EQ(info.flags, SIMTGPU_BO_READ_ONLY);
    EXPECT_EQ(info.gpu_va, c.gpu_va);
    BoHandle other = bo(3 * SIMTGPU_PAGE_SIZE);
    EXPECT_TRUE(other.va >= c.gpu_va + info.size || other.va + other.size <= c.gpu_va);

    drm_simtgpu_bo_create bad{};
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_BO_CREATE, &bad), -EINVAL); // size 0
    bad.size = 4096;
    bad.flags = 1u << 20;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_BO_CREATE, &bad), -EINVAL);
    bad.flags = 0;
    bad.extensions = 8;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_BO_CREATE, &bad), -EINVAL);
    drm_simtgpu_get_param vram{SIMTGPU_PARAM_VRAM_SIZE, 0, 0};
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_GET_PARAM, &vram), 0);
    bad = {};
    bad.size = vram.value * 2;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_BO_CREATE, &bad), -ENOSPC);

    drm_simtgpu_bo_info missing{12345, 0, 0, 0};
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_BO_INFO, &missing), -ENOENT);
    drm_simtgpu_bo_mmap_offset m{12345, 0, 0};
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &m), -ENOENT);
    m = {c.handle, 1, 0};
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &m), -EINVAL);
    drm_gem_close close{c.handle, 0};
    EXPECT_EQ(io(DRM_IOCTL_GEM_CLOSE, &close), 0);
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_BO_INFO, &info), -ENOENT);
    EXPECT_EQ(io(DRM_IOCTL_GEM_CLOSE, &close), -EINVAL);
}

TEST_F(Uapi, QueuesCreateDestroyAndState) {
    drm_simtgpu_queue_create q{};
    q.priority = 3;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &q), -EINVAL);
    q = {};
    q.flags = 1;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &q), -EINVAL);
    uint32_t id = queue(SIMTGPU_PRIORITY_HIGH);
    drm_simtgpu_queue_get_state st{};
    st.queue_id = id;
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, &st), 0);
    EXPECT_EQ(st.state, 0u);
    EXPECT_EQ(st.last_error, 0);
    st.pad = 1;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, &st), -EINVAL);
    drm_simtgpu_queue_destroy d{id, 0};
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_QUEUE_DESTROY, &d), 0);
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_QUEUE_DESTROY, &d), -ENOENT);
    st = {};
    st.queue_id = id;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, &st), -ENOENT);
}

TEST_F(Uapi, SubmitValidation) {
    BoHandle ib = bo(4096);
    uint32_t q = queue();
    uint32_t out = syncobj();
    std::vector<uint32_t> nop = {SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, 0)};
    std::memcpy(ib.cpu, nop.data(), 4);
    drm_simtgpu_sync sync{out, 0, 0};
    auto base = [&] {
        drm_simtgpu_submit s{};
        s.ib_va = ib.va;
        s.ib_dwords = 1;
        s.queue_id = q;
        s.out_syncs = reinterpret_cast<uint64_t>(&sync);
        s.out_sync_count = 1;
        s.sync_stride = sizeof(sync);
        return s;
    };
    drm_simtgpu_submit s = base();
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), 0);
    EXPECT_EQ(wait(out), 0);
    s = base(); s.flags = 1u << 7;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
    s = base(); s.extensions = 1;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
    s = base(); s.ib_dwords = 0;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
    s = base(); s.ib_va += 2;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
    s = base(); s.ib_va = 0x1000; // nothing mapped there
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
    s = base(); s.queue_id = 999;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -ENOENT);
    s = base(); s.sync_stride = 4;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
    drm_simtgpu_sync bad_sync{4242, 0, 0};
    s = base(); s.out_syncs = reinterpret_cast<uint64_t>(&bad_sync);
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -ENOENT);
    drm_simtgpu_sync padded{out, 1, 0};
    s = base(); s.out_syncs = reinterpret_cast<uint64_t>(&padded);
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
    drm_simtgpu_bo_ref ref{777, 0};
    s = base(); s.bos = reinterpret_cast<uint64_t>(&ref); s.bo_count = 1;
    s.bo_stride = sizeof(ref);
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -ENOENT);
    ref = {ib.handle, 1u << 5};
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
    s.bo_stride = 4;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
    // An in-sync with no fence has nothing to wait for.
    uint32_t empty = syncobj();
    drm_simtgpu_sync in{empty, 0, 0};
    s = base(); s.in_syncs = reinterpret_cast<uint64_t>(&in); s.in_sync_count = 1;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_SUBMIT, &s), -EINVAL);
}

TEST_F(Uapi, FillCopyFenceAndTimestampRun) {
    BoHandle ib = bo(4096), a = bo(64 * 1024), b = bo(64 * 1024), meta = bo(4096);
    uint32_t q = queue(), out = syncobj();
    std::vector<uint32_t> p;
    put(p, SIMTGPU_PKT_TIMESTAMP, simtgpu_pkt_timestamp{meta.va});
    put(p, SIMTGPU_PKT_FILL, simtgpu_pkt_fill{a.va, a.size, 0xa5a5f00du, 0});
    put(p, SIMTGPU_PKT_COPY, simtgpu_pkt_copy{a.va + 4, b.va + 100, 1000});
    put(p, SIMTGPU_PKT_FENCE, simtgpu_pkt_fence{meta.va + 8, 0x1122334455667788ull});
    put(p, SIMTGPU_PKT_TIMESTAMP, simtgpu_pkt_timestamp{meta.va + 16});
    ASSERT_EQ(submit(ib, p, q, out), 0);
    ASSERT_EQ(wait(out), 0);
    uint64_t m[3];
    std::memcpy(m, meta.cpu, sizeof(m));
    EXPECT_EQ(m[1], 0x1122334455667788ull);
    EXPECT_GT(m[2], m[0]); // the fill and copy took device time
    for (uint64_t i = 0; i < a.size / 4; ++i) {
        uint32_t w;
        std::memcpy(&w, a.cpu + 4 * i, 4);
        ASSERT_EQ(w, 0xa5a5f00du) << i;
    }
    for (uint64_t i = 0; i < b.size; ++i) {
        uint8_t expect = (i >= 100 && i < 1100) ? a.cpu[i - 100 + 4] : 0;
        ASSERT_EQ(b.cpu[i], expect) << i;
    }
    drm_simtgpu_wait_bo wb{a.handle, 0, INT64_MAX};
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_WAIT_BO, &wb), 0);
    wb.flags = 1;
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_WAIT_BO, &wb), -EINVAL);
    wb = {9999, 0, 0};
    EXPECT_EQ(io(DRM_IOCTL_SIMTGPU_WAIT_BO, &wb), -ENOENT);
}

TEST_F(Uapi, InSyncsOrderJobsAcrossQueues) {
    const uint64_t bytes = 1 << 20;
    BoHandle ib1 = bo(4096), ib2 = bo(4096), a = bo(bytes), b = bo(bytes);
    uint32_t q1 = queue(SIMTGPU_PRIORITY_LOW), q2 = queue(SIMTGPU_PRIORITY_HIGH);
    uint32_t done1 = syncobj(), done2 = syncobj();
    std::vector<uint32_t> p1, p2;
    put(p1, SIMTGPU_PKT_FILL, simtgpu_pkt_fill{a.va, bytes, 0x01010101u, 0});
    put(p1, SIMTGPU_PKT_FILL, simtgpu_pkt_fill{a.va, bytes, 0x77777777u, 0});
    put(p2, SIMTGPU_PKT_COPY, simtgpu_pkt_copy{a.va, b.va, bytes});
    ASSERT_EQ(submit(ib1, p1, q1, done1), 0);
    ASSERT_EQ(submit(ib2, p2, q2, done2, {done1}), 0);
    ASSERT_EQ(wait(done2), 0);
    EXPECT_EQ(wait(done1, 0), 0); // done before its dependent
    for (uint64_t i = 0; i < bytes; i += 4093)
        ASSERT_EQ(b.cpu[i], 0x77) << i;
}

TEST_F(Uapi, SyncobjWaitSignalAndReset) {
    uint32_t s = syncobj();
    EXPECT_EQ(wait(s, 0), -EINVAL); // no fence and no WAIT_FOR_SUBMIT
    drm_syncobj_wait w{};
    w.handles = reinterpret_cast<uint64_t>(&s);
    w.count_handles = 1;
    w.timeout_nsec = 0;
    w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_WAIT, &w), -ETIME);
    drm_syncobj_array arr{reinterpret_cast<uint64_t>(&s), 1, 0};
    ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_SIGNAL, &arr), 0);
    EXPECT_EQ(wait(s, 0), 0);
    ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_RESET, &arr), 0);
    EXPECT_EQ(wait(s, 0), -EINVAL);
    uint32_t signaled = syncobj(true);
    EXPECT_EQ(wait(signaled, 0), 0);
    drm_syncobj_destroy d{s, 0};
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_DESTROY, &d), 0);
    EXPECT_EQ(wait(s, 0), -ENOENT);
}

TEST_F(Uapi, TimelinePointsOrderJobsAcrossQueues) {
    const uint64_t bytes = 1 << 20;
    BoHandle ib1 = bo(4096), ib2 = bo(4096), a = bo(bytes), b = bo(bytes);
    uint32_t q1 = queue(SIMTGPU_PRIORITY_LOW), q2 = queue(SIMTGPU_PRIORITY_HIGH);
    uint32_t tl = syncobj();
    std::vector<uint32_t> p1, p2;
    put(p1, SIMTGPU_PKT_FILL, simtgpu_pkt_fill{a.va, bytes, 0x01010101u, 0});
    put(p1, SIMTGPU_PKT_FILL, simtgpu_pkt_fill{a.va, bytes, 0x77777777u, 0});
    put(p2, SIMTGPU_PKT_COPY, simtgpu_pkt_copy{a.va, b.va, bytes});
    // Point 2 is not submitted yet: nothing to wait for.
    EXPECT_EQ(submit_syncs(ib2, p2, q2, {{tl, 0, 2}}, {{tl, 0, 3}}), -EINVAL);
    ASSERT_EQ(submit_syncs(ib1, p1, q1, {}, {{tl, 0, 1}}), 0);
    ASSERT_EQ(submit_syncs(ib2, p2, q2, {{tl, 0, 1}}, {{tl, 0, 2}}), 0);
    EXPECT_EQ(query(tl, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED), 2u);
    EXPECT_EQ(timeline_wait({tl}, {2}, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, 0), 0);
    ASSERT_EQ(timeline_wait({tl}, {2}), 0);
    EXPECT_EQ(timeline_wait({tl}, {1}, 0, 0), 0); // done before its dependent
    EXPECT_EQ(query(tl), 2u);
    for (uint64_t i = 0; i < bytes; i += 4093)
        ASSERT_EQ(b.cpu[i], 0x77) << i;
    EXPECT_EQ(timeline_wait({tl}, {3}, 0, 0), -EINVAL);
    EXPECT_EQ(timeline_wait({tl}, {3}, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 0), -ETIME);
    EXPECT_EQ(wait(tl, 0), 0); // a binary wait waits for the last point
}

TEST_F(Uapi, TimelineCpuSignalQueryAndWait) {
    uint32_t s = syncobj(), t = syncobj();
    EXPECT_EQ(query(s), 0u);
    EXPECT_EQ(timeline_wait({s}, {1}, 0, 0), -EINVAL);
    EXPECT_EQ(timeline_wait({s}, {1}, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 0), -ETIME);
    EXPECT_EQ(timeline_wait({s}, {1}, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, 0), -ETIME);
    ASSERT_EQ(timeline_signal(s, 1), 0);
    ASSERT_EQ(timeline_signal(s, 3), 0);
    EXPECT_EQ(query(s), 3u);
    EXPECT_EQ(timeline_wait({s}, {2}, 0, 0), 0); // point 3 covers 2
    EXPECT_EQ(timeline_wait({s}, {4}, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 0), -ETIME);
    ASSERT_EQ(timeline_signal(t, 5), 0);
    uint32_t first = 99;
    EXPECT_EQ(timeline_wait({s, t}, {4, 5}, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 0, &first), 0);
    EXPECT_EQ(first, 1u);
    const uint32_t submit_all =
        DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
    EXPECT_EQ(timeline_wait({s, t}, {4, 5}, submit_all, 0), -ETIME);
    EXPECT_EQ(timeline_wait({s, t}, {3, 5}, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0), 0);
    // A job may wait for a CPU-signalled point.
    BoHandle ib = bo(4096);
    uint32_t q = queue(), out = syncobj();
    std::vector<uint32_t> nop = {SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, 0)};
    ASSERT_EQ(submit_syncs(ib, nop, q, {{s, 0, 2}}, {{out, 0, 0}}), 0);
    EXPECT_EQ(wait(out), 0);
}

TEST_F(Uapi, TimelineValidation) {
    uint32_t s = syncobj(), missing = 4242;
    uint64_t point = 1;
    ASSERT_EQ(timeline_signal(s, 1), 0);
    EXPECT_EQ(timeline_wait({s}, {1}, 1u << 3, 0), -EINVAL);
    EXPECT_EQ(timeline_wait({}, {}, 0, 0), -EINVAL);
    EXPECT_EQ(timeline_wait({missing}, {1}, 0, 0), -ENOENT);
    drm_syncobj_timeline_array a{reinterpret_cast<uint64_t>(&s),
                                 reinterpret_cast<uint64_t>(&point), 1, 1u << 1};
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_QUERY, &a), -EINVAL);
    a.flags = 1;
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a), -EINVAL);
    a.flags = 0;
    a.count_handles = 0;
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_QUERY, &a), -EINVAL);
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a), -EINVAL);
    a.count_handles = 1;
    a.handles = reinterpret_cast<uint64_t>(&missing);
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_QUERY, &a), -ENOENT);
    EXPECT_EQ(io(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a), -ENOENT);
    // A sync with a point still has to have an empty pad.
    BoHandle ib = bo(4096);
    uint32_t q = queue();
    std::vector<uint32_t> nop = {SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, 0)};
    EXPECT_EQ(submit_syncs(ib, nop, q, {{s, 1, 1}}, {}), -EINVAL);
    EXPECT_EQ(submit_syncs(ib, nop, q, {}, {{s, 1, 2}}), -EINVAL);
    EXPECT_EQ(query(s), 1u);
}

TEST_F(Uapi, FaultsFailTheJobAndMarkTheQueue) {
    BoHandle ib = bo(4096), dst = bo(4096);
    uint32_t q = queue(), out = syncobj();
    std::vector<uint32_t> p;
    put(p, SIMTGPU_PKT_COPY, simtgpu_pkt_copy{0x1000, dst.va, 64}); // unmapped source
    ASSERT_EQ(submit(ib, p, q, out), 0);
    ASSERT_EQ(wait(out), 0); // the fence signals, with an error
    drm_simtgpu_queue_get_state st{};
    st.queue_id = q;
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, &st), 0);
    EXPECT_TRUE(st.state & SIMTGPU_QUEUE_STATE_FAULTED);
    EXPECT_EQ(st.last_error, -EFAULT);
    EXPECT_EQ(st.fault.kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(st.fault.address & ~uint64_t(0xfff), 0x1000u);
    // A faulted queue takes no more work; another queue does.
    p.clear();
    put(p, SIMTGPU_PKT_FILL, simtgpu_pkt_fill{dst.va, 64, 0x42424242u, 0});
    EXPECT_EQ(submit(ib, p, q, out), -ECANCELED);
    uint32_t q2 = queue();
    ASSERT_EQ(submit(ib, p, q2, out), 0);
    ASSERT_EQ(wait(out), 0);
    EXPECT_EQ(dst.cpu[10], 0x42);
}

TEST_F(Uapi, PrivilegedPacketsAreRefusedInIndirectBuffers) {
    BoHandle ib = bo(4096);
    uint32_t q = queue(), out = syncobj();
    std::vector<uint32_t> p;
    put(p, SIMTGPU_PKT_SET_CONTEXT, simtgpu_pkt_set_context{1, 0, 0});
    ASSERT_EQ(submit(ib, p, q, out), 0);
    ASSERT_EQ(wait(out), 0);
    drm_simtgpu_queue_get_state st{};
    st.queue_id = q;
    ASSERT_EQ(io(DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, &st), 0);
    EXPECT_TRUE(st.state & SIMTGPU_QUEUE_STATE_FAULTED);
    EXPECT_EQ(st.fault.kind, uint32_t(SIMTGPU_EXC_PRIVILEGED_PACKET));
}

TEST_F(Uapi, FilesHaveSeparateAddressSpaces) {
    std::unique_ptr<Transport> t2;
    std::string error;
    ASSERT_EQ(transport_open(node_, &t2, &error), 0) << error;
    BoHandle mine = bo(4096), secret = bo(4096);
    std::memset(secret.cpu, 0x99, 4096);
    BoHandle ib = bo(4096, 0, t2.get()), theirs = bo(4096, 0, t2.get());
    uint32_t q = queue(SIMTGPU_PRIORITY_NORMAL, t2.get()), out = syncobj(false, t2.get());
    std::vector<uint32_t> p;
    put(p, SIMTGPU_PKT_COPY, simtgpu_pkt_copy{secret.va, theirs.va, 4096});
    ASSERT_EQ(submit(ib, p, q, out, {}, t2.get()), 0);
    ASSERT_EQ(wait(out, INT64_MAX, t2.get()), 0);
    drm_simtgpu_queue_get_state st{};
    st.queue_id = q;
    ASSERT_EQ(io(*t2, DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, &st), 0);
    bool leaked = !st.state && theirs.cpu[0] == 0x99 && theirs.cpu[4095] == 0x99;
    EXPECT_FALSE(leaked);
    (void)mine;
}

} // namespace
