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
#   --vram SIZE     VRAM, a power of two, e.g. 256M (default 256M)
#   --sms N         streaming multiprocessors (default: the simulator's)
#   --device-opts S more simtgpu properties, e.g. warp-size=16,warp-scheduler=gto
#   --mem SIZE      guest memory (default 1G)
#   --smp N         guest CPUs (default 1)
#   --share DIR     host directory shared over virtio-9p and mounted at the same
#                   path in the guest (default: the repository root); 'none'
#                   shares nothing
#   --timeout SEC   kill a guest still running after SEC seconds (default:
#                   none for the shell, 600 for a command)
#   --no-kmod       do not load simtgpu.ko at boot
#   --append ARGS   more kernel command line
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$top/build
sim=
vram=256M
sms=
device_opts=
mem=1G
smp=1
share=$top
timeout_s=
append=
nomod=

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

qemu=$("$top/scripts/build-qemu.sh" | tail -n 1)
initramfs=$("$top/scripts/build-initramfs.sh" "$build_dir" | tail -n 1)
kver=$(cat "$(dirname "$initramfs")/initramfs.kernel")
kernel=/boot/vmlinuz-$kver
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
# KVM when this host offers it (much faster), TCG otherwise.
if [[ -r /dev/kvm && -w /dev/kvm ]]; then
	args+=(-accel kvm -accel tcg)
fi
if [[ $share != none ]]; then
	share=$(cd "$share" && pwd)
	args+=(-fsdev "local,id=share0,path=$share,security_model=none"
		-device virtio-9p-pci,fsdev=share0,mount_tag=simtgpu-share)
	cmdline+=" simtgpu_share=$share"
fi
[[ -z $nomod ]] || cmdline+=" simtgpu_nomod=1"

if ((${#command[@]} == 0)); then
	# Interactive: serial console and QEMU monitor multiplexed on stdio.
	args+=(-nographic)
	if [[ -n $timeout_s ]]; then
		exec timeout --foreground "$timeout_s" "$qemu" "${args[@]}" -append "$cmdline"
	fi
	exec "$qemu" "${args[@]}" -append "$cmdline"
fi

# Command mode: the command line travels base64-encoded on the kernel
# command line; init prints "SIMTGPU-EXIT: N" when it has finished.
quoted=$(printf '%q ' "${command[@]}")
cmdline="quiet $cmdline simtgpu_cmd=$(printf '%s' "$quoted" | base64 -w0)"
timeout_s=${timeout_s:-600}
args+=(-display none -serial stdio -monitor none)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
timeout -k 5 "$timeout_s" "$qemu" "${args[@]}" -append "$cmdline" </dev/null |
	tr -d '\r' | tee "$log"
status=("${PIPESTATUS[@]}")
set -e
if ((status[0] == 124 || status[0] == 137)); then
	echo "run-qemu: the guest did not finish within $timeout_s s and was killed" >&2
	exit 124
fi
exit_line=$(grep -a '^SIMTGPU-EXIT: [0-9]*$' "$log" | tail -n 1)
if [[ -z $exit_line ]]; then
	echo "run-qemu: the guest stopped without reporting the command's status (QEMU exited ${status[0]})" >&2
	exit 125
fi
exit "${exit_line#SIMTGPU-EXIT: }"
