#!/usr/bin/env bash
# Checks the code that upstream style tools judge, with those tools:
#   kmd/ and the uAPI header   Linux's scripts/checkpatch.pl --strict (Debian's
#                              linux-source package of the guest kernel)
#   qemu-device/               QEMU's scripts/checkpatch.pl (from the QEMU
#                              source that scripts/build-qemu.sh unpacked)
#   C++ of compiler/           clang-format-16 (Debian's, as LLVM 16) with the
#                              root .clang-format: no change to make
# Prints one line per file and "style: N passed, N failed"; exits non-zero
# when a file has an error, a warning or (Linux --strict) a check.
#
# Usage: scripts/check-style.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/cache-dir.sh
source "$top/scripts/lib/cache-dir.sh"
cache=$(simtgpu_cache_dir)

log() { echo "check-style: $*" >&2; }

# Linux's checkpatch.pl and its data files, unpacked once into the cache from
# the linux-source package whose version matches the guest kernel's series.
linux_checkpatch() {
	local dir=$cache/linux-checkpatch-6.1
	if [[ ! -x $dir/scripts/checkpatch.pl ]]; then
		local tmp
		tmp=$(mktemp -d) || return 1
		log "fetching checkpatch.pl from Debian's linux-source-6.1 (once, into $dir)"
		if ! (cd "$tmp" && apt-get download -q linux-source-6.1 >/dev/null 2>&1); then
			log "apt-get download linux-source-6.1 failed: is Debian's archive reachable?"
			rm -rf "$tmp"
			return 1
		fi
		mkdir -p "$dir/scripts"
		dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*.deb |
			tar -xO --wildcards './usr/src/linux-source-6.1.tar.xz' |
			tar -xJ -C "$tmp" --wildcards 'linux-source-6.1/scripts/checkpatch.pl' \
				'linux-source-6.1/scripts/spelling.txt' \
				'linux-source-6.1/scripts/const_structs.checkpatch'
		cp "$tmp"/linux-source-6.1/scripts/* "$dir/scripts/"
		rm -rf "$tmp"
	fi
	echo "$dir/scripts/checkpatch.pl"
}

passed=0
failed=0
check() { # NAME CHECKPATCH OPTIONS FILE...
	local name=$1 tool=$2 options=$3 out f
	shift 3
	for f in "$@"; do
		# shellcheck disable=SC2086 # options: words or none
		if out=$("$tool" --no-tree --terse $options -f "$f" 2>&1) &&
			! grep -qE ': (ERROR|WARNING|CHECK):' <<<"$out"; then
			passed=$((passed + 1))
			echo "ok   $name ${f#"$top"/}"
		else
			failed=$((failed + 1))
			echo "FAIL $name ${f#"$top"/}"
			grep -E ': (ERROR|WARNING|CHECK):' <<<"$out" | sed 's/^/    /'
		fi
	done
}

if tool=$(linux_checkpatch); then
	mapfile -t files < <(cd "$top" && git ls-files -- 'kmd/*.[ch]' ':!kmd/*_trace.h')
	check linux "$tool" --strict "${files[@]/#/$top/}"
	# Tracepoint headers lay out TRACE_EVENT's arguments as the kernel's own
	# do (drm/v3d/v3d_trace.h), one macro per line after an open '('.
	mapfile -t files < <(cd "$top" && git ls-files -- 'kmd/*_trace.h')
	check linux "$tool" "--strict --ignore OPEN_ENDED_LINE" "${files[@]/#/$top/}"
	# Userspace includes the uAPI header: it cannot use the kernel's BIT().
	check linux "$tool" "--strict --ignore BIT_MACRO" "$top/include/uapi/drm/simtgpu_drm.h"
else
	failed=$((failed + 1))
	echo "FAIL linux: no checkpatch.pl"
fi

if qemu=$("$top/scripts/build-qemu.sh" --print-path 2>/dev/null); then
	check qemu "$(dirname "$(dirname "$qemu")")/src/scripts/checkpatch.pl" "" \
		"$top"/qemu-device/*.c
else
	failed=$((failed + 1))
	echo "FAIL qemu: no up-to-date QEMU build (run scripts/build-qemu.sh)"
fi

# C++ folders that follow the root .clang-format, kept so. Not the device
# headers of compiler/include, which keep the include order of clang's CUDA
# wrapper that SortIncludes would change, nor the driver tests' inputs,
# whose lines and columns the tests check.
clang_format=clang-format-16
if command -v "$clang_format" >/dev/null; then
	mapfile -t files < <(cd "$top" && git ls-files -- 'compiler/src/*.cpp' 'compiler/src/*.h' \
		'compiler/tools/*.cpp' 'compiler/unittests/*.cpp' ':!compiler/unittests/inputs')
	for f in "${files[@]}"; do
		if out=$(cd "$top" && "$clang_format" --dry-run -Werror "$f" 2>&1); then
			passed=$((passed + 1))
			echo "ok   clang-format $f"
		else
			failed=$((failed + 1))
			echo "FAIL clang-format $f (fix: $clang_format -i $f)"
			grep -E 'error:' <<<"$out" | head -5 | sed 's/^/    /'
		fi
	done
else
	failed=$((failed + 1))
	echo "FAIL clang-format: no $clang_format (scripts/install-deps.sh installs it)"
fi

echo "style: $passed passed, $failed failed"
((failed == 0))
