#!/bin/sh
# The labs of docs/labs/, as written: for each one scripts/build-lab.sh ran
# the host steps into a module (/opt/simtgpu/labs/NAME/simtgpu.ko); here
# that module replaces simtgpu.ko while the lab's guest steps (guest.sh)
# run, and the repository's own module comes back after. A lab directory
# without a module is a lab whose host steps failed.
# Prints "labs: N passed, N failed"; a folder with no lab at all is one
# failure (the image was built without docs/labs' labs). SIMTGPU_LABS_DIR
# names another folder (tests/scripts/guest_harness_test.sh).
labs_dir=${SIMTGPU_LABS_DIR:-/opt/simtgpu/labs}
passed=0
failed=0
pass() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
tmp=$(mktemp -d)

for lab in "$labs_dir"/*; do
	[ -d "$lab" ] || continue
	name=$(basename "$lab")
	if [ ! -f "$lab/simtgpu.ko" ]; then
		fail "$name: its host steps built no module (the build log is in the build directory: lab-$name.log)"
		continue
	fi
	grep -q '^simtgpu ' /proc/modules && rmmod simtgpu
	if ! insmod "$lab/simtgpu.ko"; then
		fail "$name: load the lab's simtgpu.ko"
		modprobe simtgpu
		continue
	fi
	if sh "$lab/guest.sh" >"$tmp/out" 2>&1; then
		cat "$tmp/out"
		pass "$name: the guest steps of docs/labs/$name.md"
	else
		cat "$tmp/out"
		fail "$name: the guest steps of docs/labs/$name.md"
	fi
	rmmod simtgpu
	modprobe simtgpu || fail "reload the repository's simtgpu.ko after $name"
done
rm -rf "$tmp"
[ "$passed" -ne 0 ] || [ "$failed" -ne 0 ] || fail "a lab in $labs_dir: there is none (docs/labs has labs with guest steps)"
echo "labs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
