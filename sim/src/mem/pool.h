// The pools the memory system's requests, tokens and events live in: a slot
// from the free list, or a new one (steady state allocates nothing).
#pragma once

#include <cstdint>
#include <vector>

namespace simtgpu::sim::mem {

template <typename T> uint32_t take(std::vector<T> &pool, std::vector<uint32_t> &free_list) {
    if (!free_list.empty()) {
        uint32_t index = free_list.back();
        free_list.pop_back();
        return index;
    }
    pool.emplace_back();
    return uint32_t(pool.size() - 1);
}

} // namespace simtgpu::sim::mem
