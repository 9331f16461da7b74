# shellcheck shell=bash
# The directory for simtgpu's host caches (the QEMU build, the KVM probe's
# answer), outside the repository: $SIMTGPU_CACHE, else /var/cache/simtgpu
# where writable, else ~/.cache/simtgpu. Sourced by scripts/*.sh.
simtgpu_cache_dir() {
	if [[ -n "${SIMTGPU_CACHE:-}" ]]; then
		echo "$SIMTGPU_CACHE"
	elif [[ -w /var/cache ]] || [[ -w /var/cache/simtgpu ]]; then
		echo /var/cache/simtgpu
	else
		echo "${XDG_CACHE_HOME:-$HOME/.cache}/simtgpu"
	fi
}
