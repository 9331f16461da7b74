#!/usr/bin/env bash
# A stand-in for qemu-system-x86_64 in the boot-watchdog tests: it records
# its arguments in $FAKE_QEMU_LOG and behaves as $FAKE_QEMU_<ACCEL> says for
# the accelerator it was given: "silent" (prints nothing, as QEMU does on a
# host whose KVM cannot run a guest) or "boots" (prints a boot line and the
# guest init's exit line, status 0).
set -u
accel=
while (($#)); do
	[[ $1 == -accel ]] && accel=$2
	shift
done
echo "accel=$accel" >>"$FAKE_QEMU_LOG"
behaviour_var=FAKE_QEMU_${accel^^}
case "${!behaviour_var:-boots}" in
silent) exec sleep 300 ;;
boots)
	printf 'fake guest booted\r\n'
	printf 'SIMTGPU-EXIT: 0\r\n'
	;;
esac
