/* Many threads in many CTAs add (global id + 1) to one counter with an AMO;
 * the thread that takes the last ticket checks the sum against
 * n (n + 1) / 2 and exits 0 when it matches, 3 when it does not. */
#include "simtgpu/device/simt.h"

static uint64_t sum;
static uint64_t tickets;

__attribute__((noreturn)) void _start(void)
{
	const uint64_t threads = simt_cta_threads() * simt_nctaid_x() * simt_nctaid_y() *
				 simt_nctaid_z();
	const uint64_t g = (simt_ctaid_x() +
			    simt_nctaid_x() * (simt_ctaid_y() + simt_nctaid_y() * simt_ctaid_z())) *
				   simt_cta_threads() +
			   simt_thread_linear();
	__atomic_fetch_add(&sum, g + 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&tickets, 1, __ATOMIC_ACQ_REL) == threads - 1)
		simt_exit(__atomic_load_n(&sum, __ATOMIC_RELAXED) == threads * (threads + 1) / 2 ? 0 : 3);
	simt_exit(0);
}
