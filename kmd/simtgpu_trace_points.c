// SPDX-License-Identifier: GPL-2.0
/* The tracepoints of simtgpu_trace.h, defined once. */
#define CREATE_TRACE_POINTS
#include "simtgpu_trace.h"
