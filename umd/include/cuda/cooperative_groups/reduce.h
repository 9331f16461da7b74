/* SPDX-License-Identifier: MIT */
/*
 * cg::reduce over a tile or a coalesced group, with CUDA's function objects
 * cg::plus, cg::less, cg::greater, cg::bit_and, cg::bit_or, cg::bit_xor.
 * 32-bit integers with one of those become one __reduce_*_sync (the redux
 * instruction), as CUDA does on sm_80; other types a shuffle tree (tiles) or
 * a shuffle per member (coalesced groups). The result is in every thread.
 */
#ifndef SIMT_COOPERATIVE_GROUPS_REDUCE_H
#define SIMT_COOPERATIVE_GROUPS_REDUCE_H

#include <cooperative_groups.h>

#if defined(__CUDA__) && defined(__cplusplus)

#define SIMT_CG_QUALIFIER __device__ __forceinline__

namespace cooperative_groups {

template <class T> struct plus {
	SIMT_CG_QUALIFIER T operator()(T a, T b) const { return a + b; }
};
template <class T> struct less {
	SIMT_CG_QUALIFIER T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T> struct greater {
	SIMT_CG_QUALIFIER T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
	SIMT_CG_QUALIFIER T operator()(T a, T b) const { return a & b; }
};
template <class T> struct bit_or {
	SIMT_CG_QUALIFIER T operator()(T a, T b) const { return a | b; }
};
template <class T> struct bit_xor {
	SIMT_CG_QUALIFIER T operator()(T a, T b) const { return a ^ b; }
};

namespace details {
/* One redux for 32-bit integers and the operations it has; false otherwise. */
template <class T, class Op> struct redux {
	static constexpr bool value = false;
	static SIMT_CG_QUALIFIER T apply(unsigned, T v) { return v; }
};
#define SIMT_CG_REDUX(Op, T, call)                                                    \
	template <> struct redux<T, Op<T>> {                                          \
		static constexpr bool value = true;                                   \
		static SIMT_CG_QUALIFIER T apply(unsigned mask, T v) { return call; } \
	};
SIMT_CG_REDUX(plus, int, __reduce_add_sync(mask, v))
SIMT_CG_REDUX(plus, unsigned, __reduce_add_sync(mask, v))
SIMT_CG_REDUX(less, int, __reduce_min_sync(mask, v))
SIMT_CG_REDUX(less, unsigned, __reduce_min_sync(mask, v))
SIMT_CG_REDUX(greater, int, __reduce_max_sync(mask, v))
SIMT_CG_REDUX(greater, unsigned, __reduce_max_sync(mask, v))
SIMT_CG_REDUX(bit_and, unsigned, __reduce_and_sync(mask, v))
SIMT_CG_REDUX(bit_or, unsigned, __reduce_or_sync(mask, v))
SIMT_CG_REDUX(bit_xor, unsigned, __reduce_xor_sync(mask, v))
SIMT_CG_REDUX(bit_and, int, (int)__reduce_and_sync(mask, (unsigned)v))
SIMT_CG_REDUX(bit_or, int, (int)__reduce_or_sync(mask, (unsigned)v))
SIMT_CG_REDUX(bit_xor, int, (int)__reduce_xor_sync(mask, (unsigned)v))
#undef SIMT_CG_REDUX
} // namespace details

namespace details {
template <bool> struct use_redux {};

template <class Group, class T, class Op>
SIMT_CG_QUALIFIER T reduce_in(const Group &group, T value, Op, use_redux<true>)
{
	return redux<T, Op>::apply(group.lanes(), value);
}
template <unsigned N, class T, class Op>
SIMT_CG_QUALIFIER T reduce_in(const thread_block_tile<N> &group, T value, Op op, use_redux<false>)
{
	for (unsigned offset = N / 2; offset > 0; offset /= 2)
		value = op(value, group.shfl_xor(value, offset));
	return value;
}
template <class T, class Op>
SIMT_CG_QUALIFIER T reduce_in(const coalesced_group &group, T value, Op op, use_redux<false>)
{
	T result = group.shfl(value, 0);
	for (unsigned rank = 1; rank < group.size(); ++rank)
		result = op(result, group.shfl(value, rank));
	return result;
}
} // namespace details

namespace details {
/* A tile of whole warps: each warp reduces by shuffles, then every thread
 * combines its tile's warp results from the tile memory. */
template <unsigned N, class T, class Op>
SIMT_CG_QUALIFIER T reduce_warps(const thread_block_tile<N> &group, T value, Op op)
{
	static_assert(sizeof(T) <= sizeof(unsigned long long),
		      "cg::reduce over tiles above 32 threads: values of at most 8 bytes");
	for (unsigned offset = 16; offset > 0; offset /= 2)
		value = op(value, shuffle(value, [&](auto v) {
				   return __shfl_xor_sync(0xffffffffu, v, offset, 32);
			   }));
	tile_memory *mem = group.memory();
	const unsigned warp = block_rank() / 32, first = warp & ~(N / 32 - 1);
	if (laneid() == 0)
		__builtin_memcpy(&mem->slot[warp], &value, sizeof(T));
	group.sync();
	T result;
	__builtin_memcpy(&result, &mem->slot[first], sizeof(T));
	for (unsigned w = 1; w < N / 32; ++w) {
		T other;
		__builtin_memcpy(&other, &mem->slot[first + w], sizeof(T));
		result = op(result, other);
	}
	group.sync(); /* the slots are free again */
	return result;
}
} // namespace details

namespace details {
template <bool> struct whole_warps {};
template <unsigned N, class T, class Op>
SIMT_CG_QUALIFIER T reduce_tile(const thread_block_tile<N> &group, T value, Op op, whole_warps<true>)
{
	return reduce_warps(group, value, op);
}
template <unsigned N, class T, class Op>
SIMT_CG_QUALIFIER T reduce_tile(const thread_block_tile<N> &group, T value, Op op, whole_warps<false>)
{
	return reduce_in(group, value, op, use_redux<redux<T, Op>::value>());
}
} // namespace details

template <unsigned N, class T, class Op>
SIMT_CG_QUALIFIER T reduce(const thread_block_tile<N> &group, T value, Op op)
{
	return details::reduce_tile(group, value, op, details::whole_warps<(N > 32)>());
}

template <class T, class Op>
SIMT_CG_QUALIFIER T reduce(const coalesced_group &group, T value, Op op)
{
	return details::reduce_in(group, value, op, details::use_redux<details::redux<T, Op>::value>());
}

} // namespace cooperative_groups

#undef SIMT_CG_QUALIFIER

#endif /* __CUDA__ && __cplusplus */
#endif /* SIMT_COOPERATIVE_GROUPS_REDUCE_H */
