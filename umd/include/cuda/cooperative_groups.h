/* SPDX-License-Identifier: MIT */
/*
 * Cooperative groups, the part of CUDA's <cooperative_groups.h> that runs
 * within one block: this_thread_block(), tiled_partition() (a runtime size
 * or thread_block_tile<N>, N a power of two up to 32), coalesced_threads(),
 * their sync() and rank/size queries, and the tiles' collectives (shfl,
 * shfl_up/down/xor, any, all, ballot, match_any, match_all), and
 * this_grid() (grid_group; sync() needs cudaLaunchCooperativeKernel).
 * Multi-grid groups are not declared. Everything is built on the warp intrinsics: a tile's or a
 * coalesced group's sync() is __syncwarp of its lanes, the block's is
 * __syncthreads; cg::reduce is in <cooperative_groups/reduce.h>. Warps are
 * assumed to have 32 lanes (simtgpu's default). docs/cuda-runtime.md.
 */
#ifndef SIMT_COOPERATIVE_GROUPS_H
#define SIMT_COOPERATIVE_GROUPS_H

#if defined(__CUDA__) && defined(__cplusplus)

#define SIMT_CG_QUALIFIER __device__ __forceinline__

namespace cooperative_groups {

namespace details {
SIMT_CG_QUALIFIER unsigned laneid() { return __nvvm_read_ptx_sreg_laneid(); }
SIMT_CG_QUALIFIER unsigned lanemask_lt() { return __nvvm_read_ptx_sreg_lanemask_lt(); }
SIMT_CG_QUALIFIER unsigned block_rank()
{
	return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
SIMT_CG_QUALIFIER unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
/* The lanes of the aligned tile of `size` (a power of two up to 32)
 * holding this lane. */
SIMT_CG_QUALIFIER unsigned tile_mask(unsigned size)
{
	if (size >= 32)
		return 0xffffffffu;
	return ((1u << size) - 1) << (laneid() & ~(size - 1));
}
/* Lane of the rank-th set bit of mask (rank counted from bit 0). */
SIMT_CG_QUALIFIER unsigned lane_of_rank(unsigned mask, unsigned rank)
{
	for (unsigned i = 0; i < rank; ++i)
		mask &= mask - 1;
	return mask ? __ffs(mask) - 1 : 32;
}
/* Bits of lane_bits that are in mask, packed in rank order. */
SIMT_CG_QUALIFIER unsigned compress(unsigned lane_bits, unsigned mask)
{
	unsigned out = 0, bit = 0;
	for (unsigned m = mask; m; m &= m - 1, ++bit)
		if (lane_bits & (m & -m))
			out |= 1u << bit;
	return out;
}
/* A shuffle of any trivially copyable T: the types the warp intrinsics
 * take go as they are, others (vector types, structs) 32 bits at a time, as
 * CUDA's cooperative groups do. */
template <class T> struct native_shfl {
	static constexpr bool value = false;
};
#define SIMT_CG_NATIVE(T) \
	template <> struct native_shfl<T> { \
		static constexpr bool value = true; \
	};
SIMT_CG_NATIVE(int)
SIMT_CG_NATIVE(unsigned int)
SIMT_CG_NATIVE(long)
SIMT_CG_NATIVE(unsigned long)
SIMT_CG_NATIVE(long long)
SIMT_CG_NATIVE(unsigned long long)
SIMT_CG_NATIVE(float)
SIMT_CG_NATIVE(double)
#undef SIMT_CG_NATIVE
template <class T, bool Native = native_shfl<T>::value> struct shuffler {
	template <class Op> static SIMT_CG_QUALIFIER T apply(T var, Op op)
	{
		unsigned words[(sizeof(T) + 3) / 4] = {};
		__builtin_memcpy(words, &var, sizeof(T));
		for (unsigned i = 0; i < (sizeof(T) + 3) / 4; ++i)
			words[i] = op(words[i]);
		__builtin_memcpy(&var, words, sizeof(T));
		return var;
	}
};
template <class T> struct shuffler<T, true> {
	template <class Op> static SIMT_CG_QUALIFIER T apply(T var, Op op) { return op(var); }
};
template <class T, class Op> SIMT_CG_QUALIFIER T shuffle(T var, Op op)
{
	return shuffler<T>::apply(var, op);
}

/* Shared memory of the tiles larger than a warp (block_tile_memory): per
 * tile a barrier (arrivals, generation), per warp a word for collectives. */
struct tile_memory {
	unsigned arrived[32];
	unsigned generation[32];
	unsigned long long slot[32];
};

/* A barrier of the `warps` warps of one tile: lane 0 of each warp arrives,
 * the last one opens the next generation. */
SIMT_CG_QUALIFIER void tile_barrier(tile_memory *mem, unsigned tile, unsigned warps)
{
	__syncwarp();
	if (laneid() == 0) {
		volatile unsigned *generation = &mem->generation[tile];
		const unsigned seen = *generation;
		__threadfence_block();
		if (atomicAdd(&mem->arrived[tile], 1u) == warps - 1) {
			mem->arrived[tile] = 0;
			__threadfence_block();
			atomicAdd(&mem->generation[tile], 1u);
		} else {
			while (*generation == seen)
				;
		}
		__threadfence_block();
	}
	__syncwarp();
}
} // namespace details

/* Shared memory that lets tiled_partition<N> make tiles of N > 32 threads
 * (CUDA's cooperative groups need it for those too): declare it __shared__
 * and pass it to this_thread_block(). */
template <unsigned MaxBlockSize = 1024> struct block_tile_memory {
	static_assert(MaxBlockSize <= 1024, "block_tile_memory: at most 1024 threads");
	details::tile_memory mem;
};

/* The block: sync() is __syncthreads. */
class thread_block {
public:
	static SIMT_CG_QUALIFIER void sync() { __syncthreads(); }
	static SIMT_CG_QUALIFIER unsigned thread_rank() { return details::block_rank(); }
	static SIMT_CG_QUALIFIER unsigned size() { return details::block_size(); }
	static SIMT_CG_QUALIFIER unsigned num_threads() { return details::block_size(); }
	static SIMT_CG_QUALIFIER dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
	static SIMT_CG_QUALIFIER dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
	static SIMT_CG_QUALIFIER dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
	static SIMT_CG_QUALIFIER dim3 dim_threads() { return group_dim(); }

	/* The block_tile_memory given to this_thread_block, for tiles above 32. */
	details::tile_memory *tile_memory_ = nullptr;
};

SIMT_CG_QUALIFIER thread_block this_thread_block() { return thread_block(); }
template <unsigned MaxBlockSize>
SIMT_CG_QUALIFIER thread_block this_thread_block(block_tile_memory<MaxBlockSize> &scratch)
{
	thread_block block;
	block.tile_memory_ = &scratch.mem;
	if (details::block_rank() < 32) {
		scratch.mem.arrived[details::block_rank()] = 0;
		scratch.mem.generation[details::block_rank()] = 0;
	}
	__syncthreads();
	return block;
}

/*
 * A group known at run time: the block, a tile of it (tiled_partition with
 * a size) or a coalesced group. Its sync() waits for exactly its threads.
 */
class thread_group {
public:
	SIMT_CG_QUALIFIER thread_group(const thread_block &) : kind_(kBlock), mask_(0), size_(0) {}
	SIMT_CG_QUALIFIER void sync() const
	{
		if (kind_ == kBlock)
			__syncthreads();
		else
			__syncwarp(mask_);
	}
	SIMT_CG_QUALIFIER unsigned thread_rank() const
	{
		if (kind_ == kBlock)
			return details::block_rank();
		if (kind_ == kTile)
			return details::block_rank() & (size_ - 1);
		return __popc(mask_ & details::lanemask_lt());
	}
	SIMT_CG_QUALIFIER unsigned size() const
	{
		return kind_ == kBlock ? details::block_size() : size_;
	}
	SIMT_CG_QUALIFIER unsigned num_threads() const { return size(); }

	/* The implementation's: what tiled_partition and the derived groups build. */
	enum Kind { kBlock, kTile, kCoalesced };
	SIMT_CG_QUALIFIER thread_group(Kind kind, unsigned mask, unsigned size)
		: kind_(kind), mask_(mask), size_(size)
	{
	}
	SIMT_CG_QUALIFIER Kind kind() const { return kind_; }
	SIMT_CG_QUALIFIER unsigned lanes() const { return mask_; }

protected:
	Kind kind_;
	unsigned mask_; /* the lanes of a tile or coalesced group */
	unsigned size_;
};

/* A tile of `size` threads (a power of two, at most 32) of the parent: of
 * the block or a tile, the aligned lanes; of a coalesced group, the threads
 * of ranks [k * size, (k + 1) * size). */
SIMT_CG_QUALIFIER thread_group tiled_partition(const thread_group &parent, unsigned size)
{
	if (parent.kind() != thread_group::kCoalesced)
		return thread_group(thread_group::kTile, details::tile_mask(size), size);
	const unsigned tile = parent.thread_rank() / size;
	unsigned mask = 0, rank = 0;
	for (unsigned m = parent.lanes(); m; m &= m - 1, ++rank)
		if (rank / size == tile)
			mask |= m & -m;
	return thread_group(thread_group::kCoalesced, mask, __popc(mask));
}

/* A tile of N threads (a power of two, at most 32) of the block or of a
 * larger tile, with the warp collectives over its lanes. Results that are
 * masks (ballot, match_any, match_all) are in tile ranks (bit 0: rank 0). */
template <unsigned N, bool Large = (N > 32)> class thread_block_tile;

template <unsigned N> class thread_block_tile<N, false> : public thread_group {
	static_assert(N >= 1 && (N & (N - 1)) == 0,
		      "thread_block_tile<N>: N must be a power of two");

public:
	SIMT_CG_QUALIFIER thread_block_tile() : thread_group(kTile, details::tile_mask(N), N) {}
	SIMT_CG_QUALIFIER void sync() const { __syncwarp(mask()); }
	SIMT_CG_QUALIFIER unsigned thread_rank() const { return details::block_rank() & (N - 1); }
	static constexpr SIMT_CG_QUALIFIER unsigned size() { return N; }
	static constexpr SIMT_CG_QUALIFIER unsigned num_threads() { return N; }
	SIMT_CG_QUALIFIER unsigned meta_group_rank() const { return details::block_rank() / N; }
	SIMT_CG_QUALIFIER unsigned meta_group_size() const
	{
		return (details::block_size() + N - 1) / N;
	}

	template <class T> SIMT_CG_QUALIFIER T shfl(T var, int src_rank) const
	{
		return details::shuffle(var, [&](auto v) { return __shfl_sync(mask(), v, src_rank, N); });
	}
	template <class T> SIMT_CG_QUALIFIER T shfl_down(T var, unsigned delta) const
	{
		return details::shuffle(var, [&](auto v) { return __shfl_down_sync(mask(), v, delta, N); });
	}
	template <class T> SIMT_CG_QUALIFIER T shfl_up(T var, unsigned delta) const
	{
		return details::shuffle(var, [&](auto v) { return __shfl_up_sync(mask(), v, delta, N); });
	}
	template <class T> SIMT_CG_QUALIFIER T shfl_xor(T var, unsigned lane_mask) const
	{
		return details::shuffle(var, [&](auto v) { return __shfl_xor_sync(mask(), v, lane_mask, N); });
	}
	SIMT_CG_QUALIFIER int any(int predicate) const { return __any_sync(mask(), predicate); }
	SIMT_CG_QUALIFIER int all(int predicate) const { return __all_sync(mask(), predicate); }
	SIMT_CG_QUALIFIER unsigned ballot(int predicate) const
	{
		return __ballot_sync(mask(), predicate) >> base();
	}
	template <class T> SIMT_CG_QUALIFIER unsigned match_any(T value) const
	{
		return __match_any_sync(mask(), value) >> base();
	}
	template <class T> SIMT_CG_QUALIFIER unsigned match_all(T value, int &pred) const
	{
		return __match_all_sync(mask(), value, &pred) >> base();
	}

private:
	SIMT_CG_QUALIFIER unsigned mask() const { return mask_; }
	static SIMT_CG_QUALIFIER unsigned base() { return details::laneid() & ~(N - 1) & 31; }
};

/*
 * A tile of N > 32 threads (a power of two up to 1024), whole warps: needs
 * the block from this_thread_block(block_tile_memory), whose shared memory
 * holds the tile's barrier. sync(), ranks and sizes, and cg::reduce.
 */
template <unsigned N> class thread_block_tile<N, true> {
	static_assert(N <= 1024 && (N & (N - 1)) == 0,
		      "thread_block_tile<N>: N must be a power of two up to 1024");

public:
	SIMT_CG_QUALIFIER explicit thread_block_tile(details::tile_memory *mem) : mem_(mem) {}
	SIMT_CG_QUALIFIER void sync() const { details::tile_barrier(mem_, meta_group_rank(), N / 32); }
	SIMT_CG_QUALIFIER unsigned thread_rank() const { return details::block_rank() & (N - 1); }
	static constexpr SIMT_CG_QUALIFIER unsigned size() { return N; }
	static constexpr SIMT_CG_QUALIFIER unsigned num_threads() { return N; }
	SIMT_CG_QUALIFIER unsigned meta_group_rank() const { return details::block_rank() / N; }
	SIMT_CG_QUALIFIER unsigned meta_group_size() const
	{
		return (details::block_size() + N - 1) / N;
	}
	SIMT_CG_QUALIFIER details::tile_memory *memory() const { return mem_; }

private:
	details::tile_memory *mem_;
};

namespace details {
template <unsigned N, bool Large = (N > 32)> struct tile_maker {
	static SIMT_CG_QUALIFIER thread_block_tile<N> make(tile_memory *) { return thread_block_tile<N>(); }
	static SIMT_CG_QUALIFIER tile_memory *memory_of(const thread_block_tile<N> &) { return nullptr; }
};
template <unsigned N> struct tile_maker<N, true> {
	static SIMT_CG_QUALIFIER thread_block_tile<N> make(tile_memory *mem)
	{
		if (!mem)
			__trap(); /* a tile above 32 threads needs this_thread_block(block_tile_memory) */
		return thread_block_tile<N>(mem);
	}
	static SIMT_CG_QUALIFIER tile_memory *memory_of(const thread_block_tile<N> &tile)
	{
		return tile.memory();
	}
};
} // namespace details

template <unsigned N> SIMT_CG_QUALIFIER thread_block_tile<N> tiled_partition(const thread_block &block)
{
	return details::tile_maker<N>::make(block.tile_memory_);
}
template <unsigned N, unsigned M>
SIMT_CG_QUALIFIER thread_block_tile<N> tiled_partition(const thread_block_tile<M> &parent)
{
	static_assert(N <= M, "tiled_partition: a tile of a tile is not larger than it");
	return details::tile_maker<N>::make(details::tile_maker<M>::memory_of(parent));
}

/* The threads of the warp that execute this together (__activemask). */
class coalesced_group : public thread_group {
public:
	SIMT_CG_QUALIFIER explicit coalesced_group(unsigned mask)
		: thread_group(kCoalesced, mask, __popc(mask))
	{
	}
	SIMT_CG_QUALIFIER void sync() const { __syncwarp(mask_); }
	SIMT_CG_QUALIFIER unsigned thread_rank() const
	{
		return __popc(mask_ & details::lanemask_lt());
	}
	SIMT_CG_QUALIFIER unsigned size() const { return size_; }
	SIMT_CG_QUALIFIER unsigned num_threads() const { return size_; }
	SIMT_CG_QUALIFIER unsigned meta_group_rank() const { return 0; }
	SIMT_CG_QUALIFIER unsigned meta_group_size() const { return 1; }

	template <class T> SIMT_CG_QUALIFIER T shfl(T var, unsigned src_rank) const
	{
		const unsigned lane = details::lane_of_rank(mask_, src_rank);
		return details::shuffle(var, [&](auto v) { return __shfl_sync(mask_, v, lane, 32); });
	}
	template <class T> SIMT_CG_QUALIFIER T shfl_down(T var, unsigned delta) const
	{
		unsigned rank = thread_rank() + delta;
		unsigned lane = rank < size_ ? details::lane_of_rank(mask_, rank) : details::laneid();
		return details::shuffle(var, [&](auto v) { return __shfl_sync(mask_, v, lane, 32); });
	}
	template <class T> SIMT_CG_QUALIFIER T shfl_up(T var, unsigned delta) const
	{
		unsigned rank = thread_rank();
		unsigned lane = rank >= delta ? details::lane_of_rank(mask_, rank - delta)
					      : details::laneid();
		return details::shuffle(var, [&](auto v) { return __shfl_sync(mask_, v, lane, 32); });
	}
	SIMT_CG_QUALIFIER int any(int predicate) const { return __any_sync(mask_, predicate); }
	SIMT_CG_QUALIFIER int all(int predicate) const { return __all_sync(mask_, predicate); }
	SIMT_CG_QUALIFIER unsigned ballot(int predicate) const
	{
		return details::compress(__ballot_sync(mask_, predicate), mask_);
	}
	template <class T> SIMT_CG_QUALIFIER unsigned match_any(T value) const
	{
		return details::compress(__match_any_sync(mask_, value), mask_);
	}
	template <class T> SIMT_CG_QUALIFIER unsigned match_all(T value, int &pred) const
	{
		return details::compress(__match_all_sync(mask_, value, &pred), mask_);
	}
};

SIMT_CG_QUALIFIER coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

/* The threads of a group with the same label (or predicate), each set a
 * coalesced group: CUDA's labeled_partition and binary_partition. */
SIMT_CG_QUALIFIER coalesced_group labeled_partition(const coalesced_group &group, int label)
{
	return coalesced_group(__match_any_sync(group.lanes(), label));
}
template <unsigned N>
SIMT_CG_QUALIFIER coalesced_group labeled_partition(const thread_block_tile<N> &tile, int label)
{
	static_assert(N <= 32, "labeled_partition: of a tile of at most 32 threads");
	return coalesced_group(__match_any_sync(tile.lanes(), label));
}
SIMT_CG_QUALIFIER coalesced_group binary_partition(const coalesced_group &group, bool pred)
{
	const unsigned set = __ballot_sync(group.lanes(), pred);
	return coalesced_group(pred ? set : group.lanes() & ~set);
}
template <unsigned N>
SIMT_CG_QUALIFIER coalesced_group binary_partition(const thread_block_tile<N> &tile, bool pred)
{
	static_assert(N <= 32, "binary_partition: of a tile of at most 32 threads");
	const unsigned set = __ballot_sync(tile.lanes(), pred);
	return coalesced_group(pred ? set : tile.lanes() & ~set);
}

/* The device runtime's grid barrier (compiler/runtime/grid_sync.c). */
extern "C" __device__ void __simt_grid_sync(void);

/*
 * The whole grid. sync() needs a cooperative launch
 * (cudaLaunchCooperativeKernel), which checks that every block is resident
 * at once; in an ordinary launch of more blocks than fit it waits forever
 * (until the job timeout). Every block must call it the same number of
 * times. Needs -arch=simt_2 or newer (the launch environment's CSR).
 */
class grid_group {
public:
	static SIMT_CG_QUALIFIER void sync() { __simt_grid_sync(); }
	/* Always true: whether the launch was cooperative is not visible to
	 * the device. */
	static SIMT_CG_QUALIFIER bool is_valid() { return true; }
	static SIMT_CG_QUALIFIER unsigned long long num_blocks()
	{
		return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
	}
	static SIMT_CG_QUALIFIER unsigned long long block_rank()
	{
		return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
	}
	static SIMT_CG_QUALIFIER unsigned long long num_threads()
	{
		return num_blocks() * details::block_size();
	}
	static SIMT_CG_QUALIFIER unsigned long long size() { return num_threads(); }
	static SIMT_CG_QUALIFIER unsigned long long thread_rank()
	{
		return block_rank() * details::block_size() + details::block_rank();
	}
	static SIMT_CG_QUALIFIER dim3 group_dim() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
	static SIMT_CG_QUALIFIER dim3 dim_blocks() { return group_dim(); }
	static SIMT_CG_QUALIFIER dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
	static SIMT_CG_QUALIFIER dim3 dim_threads()
	{
		return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
	}
};

SIMT_CG_QUALIFIER grid_group this_grid() { return grid_group(); }

template <class Group> SIMT_CG_QUALIFIER void sync(const Group &group) { group.sync(); }

} // namespace cooperative_groups

#undef SIMT_CG_QUALIFIER

#endif /* __CUDA__ && __cplusplus */
#endif /* SIMT_COOPERATIVE_GROUPS_H */
