// Hand-assembled kernels shared by the device tests and bench/device_bench:
// they need no compiler, so they test the device alone.
#pragma once

#include <cstdint>
#include <vector>

namespace simtgpu::test {

// Parameters at a0: out (u64), iterations (u64), tag (u64). Thread 0 of each
// CTA writes {smid, clock at start, clock at end, tag} at out + 32 * ctaid.x;
// every thread spins `iterations` times in between (assembled with
// llvm-mc-16 -mattr=-c).
inline const std::vector<uint32_t> kRecordKernel = {
    0x00853303, // ld t1, 8(a0)
    0x00053383, // ld t2, 0(a0)
    0xcc602e73, // csrr t3, ctaid.x
    0x005e1e93, // slli t4, t3, 5
    0x01d383b3, // add t2, t2, t4
    0xcc0025f3, // csrr a1, tid.x
    0x00059a63, // bnez a1, 1f
    0xcce02f73, // csrr t5, smid
    0x01e3b023, // sd t5, 0(t2)
    0xcd102ff3, // csrr t6, clock
    0x01f3b423, // sd t6, 8(t2)
    0xfff30313, // 1: addi t1, t1, -1
    0xfe031ee3, // bnez t1, 1b
    0x00059a63, // bnez a1, 2f
    0xcd102ff3, // csrr t6, clock
    0x01f3b823, // sd t6, 16(t2)
    0x01053283, // ld t0, 16(a0)
    0x0053bc23, // sd t0, 24(t2)
    0x05d00893, // 2: li a7, 93
    0x00000513, // li a0, 0
    0x00000073, // ecall
};
constexpr uint32_t kJumpSelf = 0x0000006f; // j .

// What kRecordKernel writes per CTA.
struct Record {
    uint64_t sm, start, end, tag;
};


} // namespace simtgpu::test
