#!/bin/sh
# Usage: run_sanitized.sh LIBDIR PROGRAM [ARGS...]
#
# Runs a CUDA program of the sanitizer build (its host side instrumented by
# the release simtcc, cmake/SanitizedCudaPrograms.cmake) on LIBDIR's
# sanitized libsimtcudart, libsimtgpu and simulator: LD_LIBRARY_PATH comes
# before the RUNPATH simtcc wrote (the release build's lib), and the
# loader's log must show all three loaded from LIBDIR. Exits with the
# program's status, or 125 when a library came from elsewhere.
libdir=$1
shift
log=$(mktemp -d) || exit 125
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} LD_DEBUG=libs \
	LD_DEBUG_OUTPUT=$log/ld "$@"
status=$?
for lib in libsimtcudart.so libsimtgpu.so libsimtgpu-sim.so; do
	if ! cat "$log"/ld.* 2>/dev/null | grep -q "calling init: $libdir/$lib$"; then
		echo "run_sanitized: $lib was not loaded from $libdir"
		status=125
	fi
done
rm -rf "$log"
exit $status
