#!/bin/sh
# libsimtgpu in the guest: the same uAPI conformance and driver API test
# binaries that ctest runs on the in-process transport, here on the kernel
# driver's render node (SIMTGPU_TRANSPORT=drm). Prints "umd: N passed, N
# failed" from GoogleTest's own counts.
passed=0
failed=0
if ! grep -q '^simtgpu ' /proc/modules && ! modprobe simtgpu; then
	echo "umd: cannot load simtgpu.ko"
	echo "umd: 0 passed, 1 failed"
	exit 1
fi
for test in umd_uapi_tests umd_unit_tests umd_driver_tests; do
	if ! command -v "$test" >/dev/null 2>&1; then
		echo "umd: $test is not in the image"
		failed=$((failed + 1))
		continue
	fi
	log=$(mktemp)
	SIMTGPU_TRANSPORT=drm "$test" 2>&1 | tee "$log"
	p=$(grep -cE '^\[       OK \]' "$log")
	f=$(grep -cE '^\[  FAILED  \] .*\([0-9]+ ms\)$' "$log")
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "umd: $test ran no tests"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	rm -f "$log"
done
dmesg | grep -i simtgpu | tail -n 10
echo "umd: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
