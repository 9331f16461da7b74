#!/bin/sh
# Usage: exit_under_asan.sh RELEASE_BUILD SANITIZER_BUILD
#
# CUDA programs that fail, run to their exit under AddressSanitizer and
# UndefinedBehaviorSanitizer: the failure examples that the release build's
# simtcc built (a kernel that faults, an allocation that fails), with the
# sanitizer build's libsimtcudart, libsimtgpu and simulator (LD_LIBRARY_PATH
# comes before the programs' RUNPATH) and libasan preloaded (the programs
# themselves are not instrumented). Each must end with its own status and no
# sanitizer report: the runtime's exit-time shutdown once wrote libsimtgpu's
# thread-local error string after it was freed (issue 20). Skips (77) when
# the release build has no failure examples.
release=$1
sanitized=$2
examples=$release/examples/failures
[ -x "$examples/illegal_address" ] && [ -x "$examples/out_of_vram" ] || {
	echo "no failure examples in $examples: skipped"
	exit 77
}
libasan=$(${CXX:-c++} -print-file-name=libasan.so)
[ -e "$libasan" ] || { echo "FAIL: no libasan.so ($libasan)"; exit 1; }
failed=0
for program in illegal_address out_of_vram; do
	run() {
		LD_PRELOAD=$libasan LD_LIBRARY_PATH=$sanitized/lib SIMTGPU_TRANSPORT=sim \
			ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
			"$@" "$examples/$program" 2>&1
	}
	loaded=$(run env LD_DEBUG=libs | grep -c "$sanitized/lib/libsimt")
	output=$(run env)
	status=$?
	if [ "$loaded" -lt 3 ]; then
		echo "FAIL $program: the sanitizer build's libraries were not the ones loaded"
		failed=1
	elif [ $status -ne 1 ] || echo "$output" | grep -qE 'AddressSanitizer|runtime error:'; then
		echo "$output"
		echo "FAIL $program: exit status $status (expected its own, 1) or a sanitizer report"
		failed=1
	else
		echo "ok   $program: its own exit status 1, no sanitizer report"
	fi
done
exit $failed
