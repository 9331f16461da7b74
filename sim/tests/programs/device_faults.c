/* Traps and faults for simt-run's exception reports. */
#include "simtgpu/device/simt.h"

/* Thread 3 of CTA 1 hits a device-side assert; the others exit 0. */
__attribute__((noreturn)) void _start(void)
{
	if (simt_ctaid_x() == 1 && simt_tid_x() == 3)
		simt_trap();
	simt_exit(0);
}

/* Every thread stores to an address nothing maps. */
__attribute__((noreturn)) void store_unmapped(void)
{
	*(volatile uint64_t *)0x50000000ull = 1;
	simt_exit(0);
}

/* Stores into the code, which is mapped read and execute only. */
__attribute__((noreturn)) void store_to_code(void)
{
	*(volatile char *)(uintptr_t)&_start = 0;
	simt_exit(0);
}

/* An unknown environment call. */
__attribute__((noreturn)) void bad_ecall(void)
{
	register uint64_t a7 __asm__("a7") = 64;
	__asm__ volatile("ecall" : : "r"(a7));
	__builtin_unreachable();
}

/* Every thread waits for a flag that nothing sets: a hang, the program's
 * own fault, which runs until simt-run's --timeout (the driver's job timeout
 * on a real stack), not a livelock: every warp gets its turn. */
static volatile uint32_t never_set;

__attribute__((noreturn)) void wait_forever(void)
{
	while (!never_set)
		;
	simt_exit(0);
}

/* Every thread takes one lock four times with amoswap. Round-robin gives
 * the holder's warp its turn; greedy-then-oldest keeps issuing the older
 * spinning warps and never the young holder: a livelock, which the device
 * reports. */
static uint32_t lock;
static volatile uint64_t acquired;

__attribute__((noreturn)) void spin_lock(void)
{
	for (int i = 0; i < 4; ++i) {
		uint32_t held;

		do
			__asm__ volatile("amoswap.w.aq %0, %1, (%2)"
					 : "=r"(held)
					 : "r"(1), "r"(&lock)
					 : "memory");
		while (held);
		acquired = acquired + 1;
		__asm__ volatile("amoswap.w.rl x0, x0, (%0)" ::"r"(&lock)
				 : "memory");
	}
	simt_exit(0);
}
