/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the simtgpu kernel driver (events/simtgpu/ in tracefs), in
 * the manner of drm/v3d's v3d_trace.h: a job's submit, its begin and end on
 * a ring, preemption and resets. Every field is printed as key=value so that
 * simt-trace (tools/) can turn the trace into the Perfetto JSON of
 * docs/trace.md; keep that form when adding fields.
 */
#if !defined(_SIMTGPU_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _SIMTGPU_TRACE_H_

#include <linux/stringify.h>
#include <linux/types.h>
#include <linux/tracepoint.h>

#undef TRACE_SYSTEM
#define TRACE_SYSTEM simtgpu
#define TRACE_INCLUDE_FILE simtgpu_trace

/*
 * SUBMIT accepted a job onto @queue_id; the scheduler runs it when its
 * dependencies have signalled and the policy admits it.
 */
TRACE_EVENT(simtgpu_submit,
	    TP_PROTO(u32 queue_id, pid_t pid, u64 ib_va, u32 ib_dwords),
	    TP_ARGS(queue_id, pid, ib_va, ib_dwords),

	    TP_STRUCT__entry(
			     __field(u32, queue_id)
			     __field(pid_t, pid)
			     __field(u64, ib_va)
			     __field(u32, ib_dwords)
			     ),

	    TP_fast_assign(
			   __entry->queue_id = queue_id;
			   __entry->pid = pid;
			   __entry->ib_va = ib_va;
			   __entry->ib_dwords = ib_dwords;
			   ),

	    TP_printk("queue=%u pid=%d ib_va=0x%llx ib_dwords=%u",
		      __entry->queue_id, __entry->pid, __entry->ib_va,
		      __entry->ib_dwords)
);

/* The job goes to @ring: its packets are written and its doorbell rung. */
TRACE_EVENT(simtgpu_job_begin,
	    TP_PROTO(unsigned int ring, u64 seqno, u32 queue_id, pid_t pid),
	    TP_ARGS(ring, seqno, queue_id, pid),

	    TP_STRUCT__entry(
			     __field(u32, ring)
			     __field(u64, seqno)
			     __field(u32, queue_id)
			     __field(pid_t, pid)
			     ),

	    TP_fast_assign(
			   __entry->ring = ring;
			   __entry->seqno = seqno;
			   __entry->queue_id = queue_id;
			   __entry->pid = pid;
			   ),

	    TP_printk("ring=%u seqno=%llu queue=%u pid=%d",
		      __entry->ring, __entry->seqno, __entry->queue_id,
		      __entry->pid)
);

/*
 * The job's fence signalled: the device finished it (error 0), or a reset
 * or a fault ended it. @device_ns is its device time from its TIMESTAMPs,
 * @device_start_ns the device's global timer when it began (0 with no
 * device time): the clock of libsimtgpu's SIMTGPU_TRACE file, which
 * simt-trace --umd merges on it.
 */
TRACE_EVENT(simtgpu_job_end,
	    TP_PROTO(unsigned int ring, u64 seqno, u64 device_ns,
		     u64 device_start_ns, int error),
	    TP_ARGS(ring, seqno, device_ns, device_start_ns, error),

	    TP_STRUCT__entry(
			     __field(u32, ring)
			     __field(u64, seqno)
			     __field(u64, device_ns)
			     __field(u64, device_start_ns)
			     __field(int, error)
			     ),

	    TP_fast_assign(
			   __entry->ring = ring;
			   __entry->seqno = seqno;
			   __entry->device_ns = device_ns;
			   __entry->device_start_ns = device_start_ns;
			   __entry->error = error;
			   ),

	    TP_printk("ring=%u seqno=%llu device_ns=%llu device_start_ns=%llu error=%d",
		      __entry->ring, __entry->seqno, __entry->device_ns,
		      __entry->device_start_ns, __entry->error)
);

/* The driver parked (park=1) or resumed (park=0) @ring's grid. */
TRACE_EVENT(simtgpu_preempt,
	    TP_PROTO(unsigned int ring, bool park),
	    TP_ARGS(ring, park),

	    TP_STRUCT__entry(
			     __field(u32, ring)
			     __field(bool, park)
			     ),

	    TP_fast_assign(
			   __entry->ring = ring;
			   __entry->park = park;
			   ),

	    TP_printk("ring=%u park=%u", __entry->ring, __entry->park)
);

/* A reset: of the whole device (ring=-1), or of one ring's work. */
TRACE_EVENT(simtgpu_reset,
	    TP_PROTO(int ring, const char *reason),
	    TP_ARGS(ring, reason),

	    TP_STRUCT__entry(
			     __field(int, ring)
			     __string(reason, reason)
			     ),

	    TP_fast_assign(
			   __entry->ring = ring;
			   __assign_str(reason, reason);
			   ),

	    TP_printk("ring=%d reason=%s", __entry->ring, __get_str(reason))
);

/*
 * Managed memory (simtgpu_managed.c) moved the page at @va of GPU context
 * @context: to="vram" (a GPU fault), "host" (a CPU fault) or "remote" (a
 * GPU fault with VRAM full: the GPU maps the host page over the bus). @ns
 * is how long the driver took, copy and page-table writes included.
 */
TRACE_EVENT(simtgpu_migrate,
	    TP_PROTO(u32 context, u64 va, const char *to, u64 ns),
	    TP_ARGS(context, va, to, ns),

	    TP_STRUCT__entry(
			     __field(u32, context)
			     __field(u64, va)
			     __string(to, to)
			     __field(u64, ns)
			     ),

	    TP_fast_assign(
			   __entry->context = context;
			   __entry->va = va;
			   __assign_str(to, to);
			   __entry->ns = ns;
			   ),

	    TP_printk("context=%u va=0x%llx to=%s ns=%llu",
		      __entry->context, __entry->va, __get_str(to),
		      __entry->ns)
);

#endif /* _SIMTGPU_TRACE_H_ */

/*
 * This part must be outside protection: an out-of-tree module's header is
 * found through -I$(src) (Kbuild).
 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#include <trace/define_trace.h>
