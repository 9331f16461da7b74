#!/usr/bin/env bash
# Boots Debian's kernel (linux-image-amd64) in our QEMU with the simtgpu
# device, on an initramfs built from BUILD_DIR.
#
# Usage: scripts/run-qemu.sh [options] [-- CMD ARGS...]
#   without CMD: a shell on the serial console ('poweroff' or Ctrl-D leaves;
#                Ctrl-A X quits QEMU)
#   with CMD:    runs CMD in the guest (in the shared directory), shows its
#                output, powers off and exits with CMD's exit status
# Options:
#   --build DIR     userspace build directory (default: build)
#   --sim PATH      simulator library (default: BUILD_DIR/lib/libsimtgpu-sim.so)
#   --vram SIZE     VRAM, a power of two, e.g. 256M (default 16G, backed as touched)
#   --sms N         streaming multiprocessors (default: the simulator's)
#   --device-opts S more simtgpu properties, e.g. warp-size=16,warp-scheduler=gto
#   --mem SIZE      guest memory (default 4G, backed as touched)
#   --smp N         guest CPUs (default 1)
#   --share DIR     host directory shared over virtio-9p and mounted at the same
#                   path in the guest (default: the repository root); 'none'
#                   shares nothing
#   --timeout SEC   kill a guest still running after SEC seconds (default:
#                   none for the shell, 600 for a command)
#   --no-kmod       do not load simtgpu.ko at boot
#   --append ARGS   more kernel command line
#   --qemu PATH     this qemu-system-x86_64 instead of scripts/build-qemu.sh's
#   --kernel PATH   this kernel instead of Debian's linux-image-amd64
#   --initrd PATH   this initramfs instead of scripts/build-initramfs.sh's
#
# The accelerator is KVM only where scripts/choose-accel.sh has proven that
# KVM runs a guest on this host, TCG otherwise; SIMTGPU_ACCEL=kvm|tcg
# overrides it. A guest that prints nothing within SIMTGPU_BOOT_TIMEOUT
# seconds (default 60 under KVM, where a silent guest means a KVM that cannot
# run guests; 300 under TCG, whose first output takes minutes on a loaded
# host) is stopped with a message; when that happens under a probed KVM, KVM
# is recorded as unusable for this boot of the host and a command run is
# retried once under TCG.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$top/build
sim=
vram=16G
sms=
device_opts=
mem=4G
smp=1
share=$top
timeout_s=
append=
nomod=
qemu=
kernel=
initramfs=
boot_timeout=${SIMTGPU_BOOT_TIMEOUT:-}

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

while (($#)); do
	case "$1" in
	--build) build_dir=$2; shift 2 ;;
	--sim) sim=$2; shift 2 ;;
	--vram) vram=$2; shift 2 ;;
	--sms) sms=$2; shift 2 ;;
	--device-opts) device_opts=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--share) share=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--no-kmod) nomod=1; shift ;;
	--append) append=$2; shift 2 ;;
	--qemu) qemu=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initramfs=$2; shift 2 ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) echo "run-qemu: unknown option $1" >&2; usage ;;
	esac
done
command=("$@")

build_dir=$(cd "$build_dir" && pwd)
sim=${sim:-$build_dir/lib/libsimtgpu-sim.so}
if [[ ! -f $sim ]]; then
	echo "run-qemu: no simulator library at $sim (build it: cmake --build $build_dir --target simtgpu_sim)" >&2
	exit 1
fi

[[ -z $boot_timeout || $boot_timeout =~ ^[1-9][0-9]*$ ]] || {
	echo "run-qemu: SIMTGPU_BOOT_TIMEOUT=$boot_timeout is not a positive number of seconds" >&2
	exit 2
}
qemu=${qemu:-$("$top/scripts/build-qemu.sh" | tail -n 1)}
if [[ -z $initramfs ]]; then
	initramfs=$("$top/scripts/build-initramfs.sh" "$build_dir" | tail -n 1)
	kernel=${kernel:-/boot/vmlinuz-$(cat "$(dirname "$initramfs")/initramfs.kernel")}
fi
kernel=${kernel:-/boot/vmlinuz-$("$top/scripts/guest-kernel-version.sh")}
if [[ ! -r $kernel ]]; then
	echo "run-qemu: cannot read $kernel (install linux-image-amd64)" >&2
	exit 1
fi

device="simtgpu,bus=rp0,sim=$sim,vram=$vram"
[[ -z $sms ]] || device+=",sms=$sms"
[[ -z $device_opts ]] || device+=",$device_opts"

cmdline="console=ttyS0 panic=-1 $append"
args=(
	-M q35 -m "$mem" -smp "$smp" -nic none -vga none
	-L /usr/share/seabios -L /usr/share/qemu
	-kernel "$kernel" -initrd "$initramfs"
	-device pcie-root-port,id=rp0,chassis=1,slot=0
	-device "$device"
	-no-reboot
)
if [[ $share != none ]]; then
	share=$(cd "$share" && pwd)
	args+=(-fsdev "local,id=share0,path=$share,security_model=none"
		-device virtio-9p-pci,fsdev=share0,mount_tag=simtgpu-share)
	cmdline+=" simtgpu_share=$share"
fi
[[ -z $nomod ]] || cmdline+=" simtgpu_nomod=1"
# The device's config= for the guest's tests, which compare what the device
# reports with the configuration file (tests/guest/suites/30-umd.sh).
if [[ ,$device_opts, =~ ,config=([^,]*), ]]; then
	cmdline+=" simtgpu_config=${BASH_REMATCH[1]}"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# choose_accel: sets $accel (kvm or tcg) and $accel_reason.
choose_accel() {
	local choice
	choice=$("$top/scripts/choose-accel.sh") || exit 2
	accel=${choice%%:*}
	accel_reason=${choice#*: }
	if [[ -n ${SIMTGPU_ACCEL:-} ]]; then
		echo "run-qemu: accelerator $accel: $accel_reason" >&2
	else
		echo "run-qemu: accelerator $accel: $accel_reason (SIMTGPU_ACCEL=kvm|tcg overrides)" >&2
	fi
}

# boot_limit: the seconds a guest may stay silent under $accel.
boot_limit() {
	if [[ -n $boot_timeout ]]; then
		echo "$boot_timeout"
	elif [[ $accel == kvm ]]; then
		echo 60
	else
		echo 300
	fi
}

# watch_boot PID LOG: stops QEMU (PID) when LOG is still empty after
# boot_limit seconds, and leaves $tmp/boot-timeout behind.
watch_boot() {
	local pid=$1 log=$2 waited=0 limit
	limit=$(boot_limit)
	while ((waited < limit)); do
		sleep 1
		kill -0 "$pid" 2>/dev/null || return 0
		[[ ! -s $log ]] || return 0
		waited=$((waited + 1))
	done
	touch "$tmp/boot-timeout"
	{
		echo "run-qemu: the guest printed nothing in $limit s under ${accel^^} ($accel_reason); stopping it."
		if [[ $accel == kvm && -z ${SIMTGPU_ACCEL:-} ]]; then
			echo "run-qemu: KVM looks unable to run guests on this host; TCG is used from now on until the host reboots (SIMTGPU_ACCEL=kvm forces KVM)."
		else
			echo "run-qemu: set SIMTGPU_ACCEL=tcg or kvm to choose the accelerator, or SIMTGPU_BOOT_TIMEOUT=SECONDS to wait longer."
		fi
	} >&2
	kill "$pid" 2>/dev/null
}

# After a boot watchdog stop under a probed KVM, TCG for the rest of this boot.
forget_kvm_after_boot_timeout() {
	[[ -f $tmp/boot-timeout && $accel == kvm && -z ${SIMTGPU_ACCEL:-} ]] || return 1
	"$top/scripts/choose-accel.sh" --forget-kvm \
		"a guest booted under KVM printed nothing in $(boot_limit) s"
}

accel_args() {
	args+=(-accel "$accel")
	cmdline+=" simtgpu_accel=$accel"
}

if ((${#command[@]} == 0)); then
	# Interactive: serial console and QEMU monitor multiplexed on stdio, as
	# -nographic does, with a copy of the console for the boot watchdog.
	choose_accel
	accel_args
	args+=(-display none -pidfile "$tmp/qemu.pid"
		-chardev "stdio,id=console,mux=on,logfile=$tmp/console.log"
		-serial chardev:console -mon chardev=console)
	(
		for _ in 1 2 3 4 5; do [[ -s $tmp/qemu.pid ]] && break; sleep 1; done
		[[ -s $tmp/qemu.pid ]] && watch_boot "$(cat "$tmp/qemu.pid")" "$tmp/console.log"
	) &
	watcher=$!
	status=0
	if [[ -n $timeout_s ]]; then
		timeout --foreground "$timeout_s" "$qemu" "${args[@]}" -append "$cmdline" || status=$?
	else
		"$qemu" "${args[@]}" -append "$cmdline" || status=$?
	fi
	kill "$watcher" 2>/dev/null || true
	if forget_kvm_after_boot_timeout; then
		echo "run-qemu: run it again to boot under TCG." >&2
	fi
	exit "$status"
fi

# Command mode: the command line travels base64-encoded on the kernel
# command line; init prints "SIMTGPU-EXIT: N" when it has finished.
quoted=$(printf '%q ' "${command[@]}")
cmdline="quiet $cmdline simtgpu_cmd=$(printf '%s' "$quoted" | base64 -w0)"
timeout_s=${timeout_s:-600}
args+=(-display none -serial stdio -monitor none)
base_args=("${args[@]}")
base_cmdline=$cmdline

# boot_and_run: one boot; sets $qemu_status and fills $tmp/console.log.
boot_and_run() {
	args=("${base_args[@]}")
	cmdline=$base_cmdline
	accel_args
	rm -f "$tmp/boot-timeout" "$tmp/console.log" "$tmp/console"
	: >"$tmp/console.log"
	mkfifo "$tmp/console"
	timeout -k 5 "$timeout_s" "$qemu" "${args[@]}" -append "$cmdline" \
		</dev/null >"$tmp/console" &
	local pid=$!
	watch_boot "$pid" "$tmp/console.log" &
	local watcher=$!
	sed -u 's/\r$//' <"$tmp/console" | tee "$tmp/console.log"
	qemu_status=0
	wait "$pid" || qemu_status=$?
	kill "$watcher" 2>/dev/null || true
	wait "$watcher" 2>/dev/null || true
}

choose_accel
boot_and_run
if forget_kvm_after_boot_timeout; then
	echo "run-qemu: retrying under TCG" >&2
	accel_reason="KVM printed nothing in $(boot_limit) s"
	accel=tcg
	boot_and_run
fi
if [[ -f $tmp/boot-timeout ]]; then
	exit 124
fi
if ((qemu_status == 124 || qemu_status == 137)); then
	echo "run-qemu: the guest did not finish within $timeout_s s under ${accel^^} and was killed" >&2
	exit 124
fi
exit_line=$(grep -a '^SIMTGPU-EXIT: [0-9]*$' "$tmp/console.log" | tail -n 1)
if [[ -z $exit_line ]]; then
	echo "run-qemu: the guest stopped without reporting the command's status (QEMU exited $qemu_status)" >&2
	exit 125
fi
exit "${exit_line#SIMTGPU-EXIT: }"
