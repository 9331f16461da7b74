/* simt-run end-to-end tests (sim/tests/device_simt_run_test.cpp): exit
 * statuses of single and many threads. Entries are chosen with --entry. */
#include "simtgpu/device/simt.h"

static uint32_t global_thread(void)
{
	const uint32_t cta = (uint32_t)(simt_ctaid_x() +
					simt_nctaid_x() * (simt_ctaid_y() + simt_nctaid_y() * simt_ctaid_z()));
	return cta * simt_cta_threads() + simt_thread_linear();
}

/* The default entry: every thread exits 0. */
__attribute__((noreturn)) void _start(void)
{
	simt_exit(0);
}

/* Thread g exits with g: the first non-zero status is 1. */
__attribute__((noreturn)) void exit_global_id(void)
{
	simt_exit((int)global_thread());
}

/* Only the last thread of the grid exits non-zero, with 7. */
__attribute__((noreturn)) void exit_last(void)
{
	const uint32_t total = simt_cta_threads() *
			       (uint32_t)(simt_nctaid_x() * simt_nctaid_y() * simt_nctaid_z());
	simt_exit(global_thread() == total - 1 ? 7 : 0);
}

/* Data written by thread t, read back by thread t after a barrier from
 * its neighbour: exits 0 when every thread saw what its neighbour wrote. */
static volatile uint32_t cells[1024];
__attribute__((noreturn)) void exchange(void)
{
	const uint32_t t = simt_thread_linear(), n = simt_cta_threads();
	cells[t] = t * 2654435761u;
	simt_bar_sync();
	const uint32_t neighbour = (t + 1) % n;
	simt_exit(cells[neighbour] == neighbour * 2654435761u ? 0 : 1);
}
