// SPDX-License-Identifier: MIT
// Device-side malloc and free, and so C++ new and delete in device code.
// The heap is one block of device memory per context, cudaLimitMallocHeapSize
// bytes (8 MiB by default, as CUDA's), that the CUDA runtime allocates the
// first time an image holding this file is loaded, writing its address into
// __simt_malloc_heap (docs/cuda-runtime.md, "Device-side malloc").
//
// Blocks come in power-of-two size classes from 32 bytes; each starts with
// a 16-byte header naming its class, so the pointer returned stays 16-byte
// aligned. free() pushes a block on its class's list; malloc() pops from it
// or, when it is empty, takes fresh space from the top of the heap. The lists
// are lock-free stacks whose heads carry a tag that changes on every update,
// so a stale head never wins a compare-and-swap (no ABA). No lock means no
// lane of a warp can wait for another lane of the same warp.
#include <stddef.h>
#include <stdint.h>

#define SIMT_HEAP_CLASSES 40
#define SIMT_HEAP_MIN_SHIFT 5 // 32-byte blocks: header and 16 bytes
#define SIMT_HEAP_TAG_BITS 20
#define SIMT_HEAP_TAG_MASK ((1ull << SIMT_HEAP_TAG_BITS) - 1)

// At the start of the heap; the runtime writes size and top, zeroes free.
struct simt_heap {
	uint64_t size; // bytes, this header included
	uint64_t top;  // offset of the first byte never handed out
	uint64_t free[SIMT_HEAP_CLASSES]; // offset << TAG_BITS | tag; 0: empty
};

struct simt_block {
	uint64_t size_class;
	uint64_t next; // offset of the next free block of the class
};

// Written by the CUDA runtime at load; 0 when the image has no heap.
struct simt_heap *__simt_malloc_heap;

static unsigned size_class(size_t bytes)
{
	unsigned k = 0;
	while (k < SIMT_HEAP_CLASSES - 1 &&
	       (1ull << (k + SIMT_HEAP_MIN_SHIFT)) < bytes + sizeof(struct simt_block))
		++k;
	return k;
}

void *malloc(size_t bytes)
{
	struct simt_heap *heap = __simt_malloc_heap;
	if (!heap || bytes == 0 || bytes > heap->size)
		return NULL;
	const unsigned k = size_class(bytes);
	const uint64_t block_bytes = 1ull << (k + SIMT_HEAP_MIN_SHIFT);
	char *base = (char *)heap;
	uint64_t head = __atomic_load_n(&heap->free[k], __ATOMIC_ACQUIRE);
	while (head >> SIMT_HEAP_TAG_BITS) {
		const uint64_t offset = head >> SIMT_HEAP_TAG_BITS;
		struct simt_block *b = (struct simt_block *)(base + offset);
		// May read a block another lane took meanwhile: then the tag moved
		// and the exchange fails.
		const uint64_t next = __atomic_load_n(&b->next, __ATOMIC_RELAXED);
		const uint64_t updated = next << SIMT_HEAP_TAG_BITS | ((head + 1) & SIMT_HEAP_TAG_MASK);
		if (__atomic_compare_exchange_n(&heap->free[k], &head, updated, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return b + 1;
	}
	uint64_t top = __atomic_load_n(&heap->top, __ATOMIC_RELAXED);
	do {
		if (top > heap->size || heap->size - top < block_bytes)
			return NULL; // the heap is full: as CUDA, malloc returns NULL
	} while (!__atomic_compare_exchange_n(&heap->top, &top, top + block_bytes, 0,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	struct simt_block *b = (struct simt_block *)(base + top);
	b->size_class = k;
	return b + 1;
}

void free(void *p)
{
	struct simt_heap *heap = __simt_malloc_heap;
	if (!p || !heap)
		return;
	struct simt_block *b = (struct simt_block *)p - 1;
	const uint64_t offset = (uint64_t)((char *)b - (char *)heap);
	const unsigned k = (unsigned)b->size_class;
	uint64_t head = __atomic_load_n(&heap->free[k], __ATOMIC_RELAXED);
	uint64_t updated;
	do {
		b->next = head >> SIMT_HEAP_TAG_BITS;
		updated = offset << SIMT_HEAP_TAG_BITS | ((head + 1) & SIMT_HEAP_TAG_MASK);
	} while (!__atomic_compare_exchange_n(&heap->free[k], &head, updated, 0, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}
