#!/usr/bin/env bash
# Installs every Debian package simtgpu needs. Idempotent: when everything is
# present it only runs dpkg-query and exits.
set -euo pipefail

PACKAGES=(
	# build tools and host libraries
	build-essential cmake ninja-build pkg-config git
	libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
	libdrm-dev
	# compiler: Debian's LLVM 16 as libraries and tools
	clang-16 libclang-16-dev llvm-16-dev lld-16 liblld-16-dev
	libclang-rt-16-dev
	# opt, lit and FileCheck: the tests of simtcc's passes (compiler/test)
	llvm-16 llvm-16-tools
	# C++ formatting by the root .clang-format (scripts/check-style.sh)
	clang-format-16
	# device libm for RISC-V
	picolibc-riscv64-unknown-elf
	# differential testing of the ISA against an independent RV64 model
	qemu-user
	# guest: kernel, headers for the module, busybox
	linux-image-amd64 linux-headers-amd64 busybox-static cpio kmod
	pciutils # lspci in the guest
	# building QEMU 7.2 from Debian's source package
	dpkg-dev python3 meson libglib2.0-dev libpixman-1-dev libfdt-dev
	zlib1g-dev libslirp-dev libattr1-dev libcap-ng-dev
	# QEMU firmware at run time
	seabios qemu-system-data
	# simt-sweep: its Slurm test starts a single-node Slurm; its plots
	slurm-wlm munge python3-matplotlib
	# host OpenMP in CUDA programs (simtcc -Xcompiler -fopenmp: omp.h and libomp for clang 16)
	libomp-16-dev
	# Thrust and CUB 1.17.2 as Debian ships them, used unmodified (docs/libraries.md)
	libthrust-dev libcub-dev
	# cuRAND's Sobol direction numbers: Joe and Kuo's table as SciPy ships it
	python3-numpy python3-scipy
	# cuFFT's tests: FFTW as the reference
	libfftw3-dev
	# the reference cuBLAS is tested against: netlib BLAS with its CBLAS header (cblas.h)
	libblas-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
	exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
	SUDO=sudo
else
	SUDO=
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
