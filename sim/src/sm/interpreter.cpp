// The interpreter loop: a convergent group runs its instructions (a burst)
// until a branch splits it, its PC meets another group's, it blocks, exits,
// touches global memory or its time slice ends. The memory accesses of the
// hot path are inline (sm_memory_access.h); everything else it calls is an
// instruction class of its own file.
#include "sm/fp.h"
#include "sm/group_choice.h"
#include "sm/sm_memory_access.h"

#include <cstring>

namespace simtgpu::sim {

uint32_t Sm::Impl::burst(uint32_t slot, uint32_t budget)
{
    return burst_group(slot, choose_group(warps[slot]), budget);
}


SIMT_HOST_SIMD_CLONES uint32_t Sm::Impl::burst_group(uint32_t slot, const GroupChoice &group,
                                                     uint32_t budget) {
    Warp &w = warps[slot];
    cur = &launches[ctas[w.cta].launch];
    const uint64_t mask = group.mask;
    const uint32_t first = uint32_t(std::countr_zero(mask));
    const uint32_t active = uint32_t(std::popcount(mask));
    uint64_t pc = group.pc;
    bool pcs_written = false; // lanes' PCs set individually (a split)
    bool stop = false;
    uint32_t issued = 0;
    CodePage *page = nullptr;
    uint64_t page_vpn = UINT64_MAX;
    touched_global = false;
    sleep_cycles = 0;
    fault_slot = slot;

    uint64_t *x = w.x.data();
    auto R = [&](uint32_t r) { return x + size_t(r) * W; };

    while (!stop && issued < budget) {
        fault_pc = pc;
        const Insn *ip = page_vpn == pc >> SIMTGPU_PAGE_SHIFT
                             ? &page->slots[(pc & kPageMask) >> 1]
                             : nullptr;
        if (!ip || ip->op == Op::Undecoded) [[unlikely]]
            ip = fetch(slot, first, pc, page, page_vpn);
        if (!ip) {
            if (stop_before) [[unlikely]] { // code in host memory
                stop_before = false;
                stop_at(slot, GroupChoice{pc, mask, group.yield_pc}, budget - issued);
            }
            break;
        }
        const Insn &in = *ip;
        ++issued;
        uint64_t next = pc + in.len;
        uint64_t *d = R(in.rd);
        const uint64_t *a = R(in.rs1), *b = R(in.rs2);
        const int64_t imm = in.imm;

#define ALU(expr) each(mask, [&](uint32_t l) { d[l] = (expr); })
#define A a[l]
#define B b[l]
#define SA int64_t(a[l])
#define SB int64_t(b[l])
#define W32(expr) uint64_t(int64_t(int32_t(uint32_t(expr))))

        // A conditional branch: all lanes agree, or the group splits.
        auto branch = [&](auto cond) {
            ++stats.branches;
            uint64_t taken = 0;
            each(mask, [&](uint32_t l) { taken |= uint64_t(cond(a[l], b[l])) << l; });
            if (taken == mask) {
                next = pc + imm;
            } else if (taken) {
                for (uint64_t m = mask; m; m &= m - 1) {
                    const uint32_t l = uint32_t(std::countr_zero(m));
                    w.pc[l] = (taken >> l & 1) ? pc + imm : next;
                }
                w.leave_same_pc(mask);
                pcs_written = stop = true;
                ++stats.divergent_branches;
            }
        };
        auto do_load = [&](auto type_tag, bool to_fp) __attribute__((always_inline)) {
            using T = decltype(type_tag);
            uint64_t *dst = to_fp ? F(w, in.rd) : d;
            auto widen = [](T v) {
                if constexpr (std::is_same_v<T, float>) return fp::box(v);
                else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(v);
                else if constexpr (std::is_signed_v<T>) return uint64_t(int64_t(v));
                else return uint64_t(v);
            };
            if (mask == full_mask) {
                if (const uint8_t *base = contiguous(slot, a, imm, sizeof(T), Access::Read)) {
                    for (uint32_t l = 0; l < W; ++l) {
                        T v;
                        std::memcpy(&v, base + l * sizeof(T), sizeof(T));
                        dst[l] = widen(v);
                    }
                    stats.mem_reads += active;
                    return;
                }
            }
            uint64_t offset_mask;
            bool one_address;
            if (const uint8_t *base = coalesced(slot, mask, a, imm, sizeof(T), Access::Read,
                                                offset_mask, one_address)) {
                // No lane can fault: straight into rd (a lane reads only its
                // own address register, so rd == rs1 is fine).
                each(mask, [&](uint32_t l) {
                    T v;
                    std::memcpy(&v, base + ((a[l] + imm) & offset_mask), sizeof(T));
                    dst[l] = widen(v);
                });
                stats.mem_reads += active;
                return;
            }
            if (const uint64_t off = a[first] + imm - SIMTGPU_LOCAL_BASE;
                one_address && off < cur->desc.stack_bytes &&
                cur->desc.stack_bytes - off >= sizeof(T) && (off & 7) + sizeof(T) <= 8) {
                // Every lane at the same local address (a stack slot): W
                // consecutive words.
                if (!w.local_row_ready(off >> 3)) [[unlikely]]
                    start_local_row(w, off >> 3, false);
                const uint8_t *slot_bytes = local_byte(w, 0, off);
                if (sizeof(T) == 8 && mask == full_mask) { // a spill's reload: one copy
                    copy_lanes(dst, slot_bytes);
                } else {
                    each(mask, [&](uint32_t l) {
                        T v;
                        std::memcpy(&v, slot_bytes + 8 * l, sizeof(T));
                        dst[l] = widen(v);
                    });
                }
                stats.mem_reads += active;
                return;
            }
            if (isolated && needs_serial(mask, a, imm, sizeof(T), Access::Read)) {
                stop_before = true;
                return;
            }
            for (uint64_t m = mask; m; m &= m - 1) {
                const uint32_t l = uint32_t(std::countr_zero(m));
                T v;
                if (!load<T>(slot, l, a[l] + imm, v))
                    return;
                res[l] = widen(v);
            }
            each(mask, [&](uint32_t l) { dst[l] = res[l]; });
            stats.mem_reads += active;
        };
        auto do_store = [&](auto type_tag, bool from_fp) __attribute__((always_inline)) {
            using T = decltype(type_tag);
            const uint64_t *src = from_fp ? F(w, in.rs2) : b;
            uint64_t offset_mask;
            bool one_address;
            uint8_t *row =
                mask == full_mask ? contiguous(slot, a, imm, sizeof(T), Access::Write) : nullptr;
            if (row) {
                for (uint32_t l = 0; l < W; ++l) {
                    const T v = T(src[l]);
                    std::memcpy(row + l * sizeof(T), &v, sizeof(T));
                }
            } else if (uint8_t *base = coalesced(slot, mask, a, imm, sizeof(T), Access::Write,
                                                 offset_mask, one_address)) {
                each(mask, [&](uint32_t l) {
                    const T v = T(src[l]);
                    std::memcpy(base + ((a[l] + imm) & offset_mask), &v, sizeof(T));
                });
            } else if (const uint64_t off = a[first] + imm - SIMTGPU_LOCAL_BASE;
                       one_address && off < cur->desc.stack_bytes &&
                       cur->desc.stack_bytes - off >= sizeof(T) && (off & 7) + sizeof(T) <= 8) {
                // A spill of every lane writes all of its row: nothing to zero.
                if (!w.local_row_ready(off >> 3)) [[unlikely]]
                    start_local_row(w, off >> 3, sizeof(T) == 8 && mask == full_mask);
                uint8_t *slot_bytes = local_byte(w, 0, off);
                if (sizeof(T) == 8 && mask == full_mask) { // a spill: one copy
                    copy_lanes(slot_bytes, src);
                } else {
                    each(mask, [&](uint32_t l) {
                        const T v = T(src[l]);
                        std::memcpy(slot_bytes + 8 * l, &v, sizeof(T));
                    });
                }
            } else if (isolated && needs_serial(mask, a, imm, sizeof(T), Access::Write)) {
                stop_before = true;
                return;
            } else {
                for (uint64_t m = mask; m; m &= m - 1) {
                    const uint32_t l = uint32_t(std::countr_zero(m));
                    if (!store<T>(slot, l, a[l] + imm, T(src[l])))
                        return;
                }
            }
            stats.mem_writes += active;
        };

        switch (in.op) {
        case Op::Undecoded:
        case Op::Illegal:
            raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
            break;
        case Op::Lui: ALU(uint64_t(imm)); break;
        case Op::Auipc: ALU(pc + imm); break;
        case Op::Jal:
            ALU(next);
            next = pc + imm;
            break;
        case Op::Jalr: {
            ++stats.branches;
            const uint64_t target = (a[first] + imm) & ~uint64_t(1);
            uint64_t differs = 0;
            each(mask, [&](uint32_t l) { differs |= uint64_t(((a[l] + imm) & ~uint64_t(1)) != target) << l; });
            if (differs) { // lanes jump to different places
                for (uint64_t m = mask; m; m &= m - 1) {
                    const uint32_t l = uint32_t(std::countr_zero(m));
                    w.pc[l] = (a[l] + imm) & ~uint64_t(1);
                }
                w.leave_same_pc(mask);
                pcs_written = stop = true;
                ++stats.divergent_branches;
            }
            ALU(next);
            next = target;
            break;
        }
        case Op::Beq: branch([](uint64_t p, uint64_t q) { return p == q; }); break;
        case Op::Bne: branch([](uint64_t p, uint64_t q) { return p != q; }); break;
        case Op::Blt: branch([](uint64_t p, uint64_t q) { return int64_t(p) < int64_t(q); }); break;
        case Op::Bge: branch([](uint64_t p, uint64_t q) { return int64_t(p) >= int64_t(q); }); break;
        case Op::Bltu: branch([](uint64_t p, uint64_t q) { return p < q; }); break;
        case Op::Bgeu: branch([](uint64_t p, uint64_t q) { return p >= q; }); break;
        case Op::Lb: do_load(int8_t{}, false); break;
        case Op::Lh: do_load(int16_t{}, false); break;
        case Op::Lw: do_load(int32_t{}, false); break;
        case Op::Ld: do_load(uint64_t{}, false); break;
        case Op::Lbu: do_load(uint8_t{}, false); break;
        case Op::Lhu: do_load(uint16_t{}, false); break;
        case Op::Lwu: do_load(uint32_t{}, false); break;
        case Op::Flw: do_load(float{}, true); break;
        case Op::Fld: do_load(double{}, true); break;
        case Op::Sb: do_store(uint8_t{}, false); break;
        case Op::Sh: do_store(uint16_t{}, false); break;
        case Op::Sw: do_store(uint32_t{}, false); break;
        case Op::Sd: do_store(uint64_t{}, false); break;
        case Op::Fsw: do_store(uint32_t{}, true); break;
        case Op::Fsd: do_store(uint64_t{}, true); break;
        case Op::Addi: ALU(A + imm); break;
        case Op::Slti: ALU(uint64_t(SA < imm)); break;
        case Op::Sltiu: ALU(uint64_t(A < uint64_t(imm))); break;
        case Op::Xori: ALU(A ^ imm); break;
        case Op::Ori: ALU(A | imm); break;
        case Op::Andi: ALU(A & imm); break;
        case Op::Slli: ALU(A << imm); break;
        case Op::Srli: ALU(A >> imm); break;
        case Op::Srai: ALU(uint64_t(SA >> imm)); break;
        case Op::Add: ALU(A + B); break;
        case Op::Sub: ALU(A - B); break;
        case Op::Sll: ALU(A << (B & 63)); break;
        case Op::Slt: ALU(uint64_t(SA < SB)); break;
        case Op::Sltu: ALU(uint64_t(A < B)); break;
        case Op::Xor: ALU(A ^ B); break;
        case Op::Srl: ALU(A >> (B & 63)); break;
        case Op::Sra: ALU(uint64_t(SA >> (B & 63))); break;
        case Op::Or: ALU(A | B); break;
        case Op::And: ALU(A & B); break;
        case Op::Addiw: ALU(W32(A + imm)); break;
        case Op::Slliw: ALU(W32(uint32_t(A) << imm)); break;
        case Op::Srliw: ALU(W32(uint32_t(A) >> imm)); break;
        case Op::Sraiw: ALU(W32(int32_t(A) >> imm)); break;
        case Op::Addw: ALU(W32(A + B)); break;
        case Op::Subw: ALU(W32(A - B)); break;
        case Op::Sllw: ALU(W32(uint32_t(A) << (B & 31))); break;
        case Op::Srlw: ALU(W32(uint32_t(A) >> (B & 31))); break;
        case Op::Sraw: ALU(W32(int32_t(A) >> (B & 31))); break;
        case Op::Mul: ALU(A * B); break;
        case Op::Mulh: ALU(uint64_t((__int128(SA) * __int128(SB)) >> 64)); break;
        case Op::Mulhsu: ALU(uint64_t((__int128(SA) * __int128((unsigned __int128)B)) >> 64)); break;
        case Op::Mulhu: ALU(uint64_t(((unsigned __int128)A * B) >> 64)); break;
        case Op::Div:
            ALU(B == 0 ? ~uint64_t(0)
                : (SA == INT64_MIN && SB == -1) ? A
                : uint64_t(SA / SB));
            break;
        case Op::Divu: ALU(B == 0 ? ~uint64_t(0) : A / B); break;
        case Op::Rem:
            ALU(B == 0 ? A : (SA == INT64_MIN && SB == -1) ? 0 : uint64_t(SA % SB));
            break;
        case Op::Remu: ALU(B == 0 ? A : A % B); break;
        case Op::Mulw: ALU(W32(uint32_t(A) * uint32_t(B))); break;
        case Op::Divw:
            ALU(int32_t(B) == 0 ? ~uint64_t(0)
                : (int32_t(A) == INT32_MIN && int32_t(B) == -1) ? W32(INT32_MIN)
                : W32(int32_t(A) / int32_t(B)));
            break;
        case Op::Divuw: ALU(uint32_t(B) == 0 ? ~uint64_t(0) : W32(uint32_t(A) / uint32_t(B))); break;
        case Op::Remw:
            ALU(int32_t(B) == 0 ? W32(A)
                : (int32_t(A) == INT32_MIN && int32_t(B) == -1) ? 0
                : W32(int32_t(A) % int32_t(B)));
            break;
        case Op::Remuw: ALU(uint32_t(B) == 0 ? W32(A) : W32(uint32_t(A) % uint32_t(B))); break;
        case Op::Fence: break;
        case Op::FenceI:
            for (auto &entry : cur->code) entry.second->invalidate();
            stop = true; // the current page's slots are gone
            break;
        case Op::Ecall: {
            const uint64_t *a7 = R(17);
            for (uint64_t m = mask; m; m &= m - 1) {
                const uint32_t l = uint32_t(std::countr_zero(m));
                if (a7[l] != SIMTGPU_ECALL_EXIT) {
                    raise(SIMTGPU_EXC_BAD_ECALL, slot, l, pc, uint32_t(a7[l]));
                    break;
                }
            }
            if (exception) break;
            exit_lanes(slot, mask);
            pcs_written = stop = true;
            break;
        }
        case Op::Ebreak: raise(SIMTGPU_EXC_TRAP, slot, first, pc); break;
        case Op::Csrrw: case Op::Csrrs: case Op::Csrrc:
        case Op::Csrrwi: case Op::Csrrsi: case Op::Csrrci:
            exec_csr(slot, in, mask, now + issued - 1);
            break;
        case Op::LrW: case Op::ScW: case Op::AmoW: case Op::LrD: case Op::ScD: case Op::AmoD:
            if ((in.funct == kAmoCas || in.funct >= kAmoFadd) && config.arch < SIMTGPU_ARCH_SIMT2 &&
                (in.op == Op::AmoW || in.op == Op::AmoD)) { // simt_2's atomics
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
                break;
            }
            // Global atomics see every SM's stores: they run serially.
            if (isolated && needs_serial(mask, a, 0, 1, Access::Atomic)) {
                stop_before = true;
                break;
            }
            exec_atomic(slot, in, mask);
            break;
        case Op::Bar:
            if (in.funct != SIMTGPU_BAR_SYNC && config.arch < SIMTGPU_ARCH_SIMT2) { // bar.red: simt_2
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
                break;
            }
            w.set_pcs(mask, next);
            pcs_written = stop = true;
            arrive_barrier(slot, in, mask);
            break;
        case Op::Match:
        case Op::Redux:
            if (config.arch < SIMTGPU_ARCH_SIMT2) { // match, redux: simt_2
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
                break;
            }
            [[fallthrough]];
        case Op::Vote: {
            // vote, match, redux: over the member lanes rs2 (all live
            // ones here, or wait for them).
            const uint8_t kind = uint8_t(in.funct | (in.op == Op::Vote    ? kCollectiveVote
                                                     : in.op == Op::Match ? kCollectiveMatch
                                                                          : kCollectiveRedux));
            uint64_t absent = 0;
            uint64_t value[64];
            each(mask, [&](uint32_t l) {
                absent |= b[l] & ~mask;
                value[l] = in.op == Op::Vote ? uint64_t(a[l] != 0) : a[l];
            });
            if (absent & w.live()) {
                each(mask, [&](uint32_t l) {
                    w.sync_mask[l] = b[l];
                    w.sync_value[l] = value[l];
                    w.sync_funct[l] = kind;
                    w.sync_rd[l] = in.rd;
                });
                pcs_written = stop = true;
                wait_in_warp_sync(slot, mask, w.waiting_vote, next);
                break;
            }
            // Lanes with the same members get the same result, except in
            // match.any: compute it once per member mask.
            const bool per_lane = kind == (kCollectiveMatch | SIMTGPU_MATCH_ANY);
            uint64_t done_for = 0, result = 0;
            bool done = false;
            each(mask, [&](uint32_t l) {
                const uint64_t members = mask & b[l];
                if (per_lane || !done || members != done_for) {
                    result = collective(kind, l, members, value);
                    done_for = members;
                    done = true;
                }
                res[l] = result;
            });
            ALU(res[l]);
            break;
        }
        case Op::Shfl: {
            const uint64_t *c = R(in.rs3);
            const uint8_t mode = in.funct;
            uint8_t src[64]; // the lane each lane reads
            uint64_t sources = 0;
            each(mask, [&](uint32_t l) {
                const int64_t lane = l, bv = int64_t(b[l] & 63);
                const int64_t clamp = int64_t(c[l] & 63), seg = int64_t((c[l] >> 8) & 63);
                const int64_t max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
                int64_t j;
                bool ok;
                switch (mode) {
                case SIMTGPU_SHFL_UP: j = lane - bv; ok = j >= max_lane; break;
                case SIMTGPU_SHFL_DOWN: j = lane + bv; ok = j <= max_lane; break;
                case SIMTGPU_SHFL_BFLY: j = lane ^ bv; ok = j <= max_lane; break;
                default: j = min_lane | (bv & ~seg); ok = j <= max_lane; break;
                }
                if (!ok || j < 0 || j >= int64_t(W)) j = lane;
                src[l] = uint8_t(j);
                sources |= uint64_t(1) << j;
                res[l] = a[j];
            });
            if (w.waiting_shfl || (sources & ~mask & w.live() & ~w.blocked_bar)) {
                each(mask, [&](uint32_t l) {
                    w.sync_src[l] = src[l];
                    w.sync_value[l] = a[l];
                    w.sync_rs1[l] = in.rs1;
                    w.sync_rd[l] = in.rd;
                });
                pcs_written = stop = true;
                wait_in_warp_sync(slot, mask, w.waiting_shfl, next);
                break;
            }
            ALU(res[l]);
            break;
        }
        case Op::ActiveMask: ALU(mask); break;
        case Op::Nanosleep: { // the longest any lane asked for, in cycles
            if (config.arch < SIMTGPU_ARCH_SIMT2) {
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
                break;
            }
            uint64_t ns = 0;
            each(mask, [&](uint32_t l) {
                ns = std::max<uint64_t>(ns, std::min<uint64_t>(uint32_t(a[l]), SIMTGPU_NANOSLEEP_MAX_NS));
            });
            sleep_cycles = std::max<uint64_t>(1, ns * config.clock_khz / 1000000);
            break;
        }
        case Op::WarpSync: {
            uint64_t waiting = 0;
            each(mask, [&](uint32_t l) {
                const uint64_t need = (a[l] | uint64_t(1) << l) & w.live();
                waiting |= uint64_t((need & ~mask) != 0) << l;
            });
            if (!waiting) break; // every member is here: nothing to wait for
            each(mask, [&](uint32_t l) { w.sync_mask[l] = a[l] | uint64_t(1) << l; });
            pcs_written = stop = true;
            wait_in_warp_sync(slot, mask, w.waiting_warp_sync, next);
            break;
        }
        default:
            exec_fp(slot, in, mask);
            break;
        }
#undef ALU
#undef A
#undef B
#undef SA
#undef SB
#undef W32
        if (replay_hold) [[unlikely]] {
            // The instruction did nothing: it runs again after the replay.
            --issued;
            hold(slot);
            break;
        }
        if (stop_before) [[unlikely]] {
            // The instruction did nothing: it runs again when run() goes on.
            stop_before = false;
            --issued;
            stop_at(slot, GroupChoice{pc, mask, group.yield_pc}, budget - issued);
            break;
        }
        if (exception) break;
        pc = next;
        if (touched_global) {
            ready_at[slot] = now + issued + config.mem_latency;
            break;
        }
        if (sleep_cycles) {
            ready_at[slot] = now + issued + sleep_cycles; // the timing model: SmPipeline::issue
            break;
        }
        if (pc >= group.yield_pc) break;
    }
    if (!pcs_written)
        w.set_pcs(mask, pc);
    stats.warp_instructions += issued;
    stats.thread_instructions += uint64_t(issued) * active;
    cur->thread_instructions += uint64_t(issued) * active;
    return issued;
}

} // namespace simtgpu::sim
