#!/usr/bin/env bash
# Prints the version of the guest kernel: the one Debian's linux-image-amd64
# depends on (not the running kernel of the build machine). The module build
# (kmd/Makefile) and the guest image (build-initramfs.sh) both ask here, so
# they cannot pick different kernels. SIMTGPU_GUEST_KERNEL overrides.
set -euo pipefail
if [[ -n ${SIMTGPU_GUEST_KERNEL:-} ]]; then
	echo "$SIMTGPU_GUEST_KERNEL"
	exit 0
fi
dep=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
	grep -o 'linux-image-[0-9][^ ,]*' | head -n 1 || true)
if [[ -n $dep ]]; then
	echo "${dep#linux-image-}"
	exit 0
fi
# No metapackage: the newest Debian kernel with modules installed.
ls -1 /lib/modules | grep -- '-amd64$' | sort -V | tail -n 1
