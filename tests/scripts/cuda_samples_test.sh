#!/usr/bin/env bash
# Test of scripts/cuda-samples.sh on a made-up checkout of cuda-samples (the
# real one is never needed by `make test`): one sample of each outcome, each
# in its own category, and the table and the count they must give. The
# samples run on the in-process simulator.
#   cuda_samples_test.sh BUILD_DIR
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: cuda_samples_test.sh BUILD_DIR}
tree=$(mktemp -d /tmp/cuda-samples-test.XXXXXX)
trap 'rm -rf "$tree"' EXIT
. "$top/tests/scripts/checks.sh"

sample() { # CATEGORY NAME SOURCE
	mkdir -p "$tree/Samples/$1/$2"
	cat >"$tree/Samples/$1/$2/$2.cu"
}
mkdir -p "$tree/Common"
echo '#define SAMPLE_HELPER 1' >"$tree/Common/helper_sample.h"
sample 0_Introduction adds <<'CU'
#include <cstdio>
#include <helper_sample.h>
__global__ void add(int *v) { v[threadIdx.x] += int(threadIdx.x); }
int main() {
	int *v, h[64];
	cudaMallocManaged(&v, sizeof(h));
	for (int i = 0; i < 64; ++i) v[i] = SAMPLE_HELPER;
	add<<<1, 64>>>(v);
	cudaDeviceSynchronize();
	for (int i = 0; i < 64; ++i) if (v[i] != i + 1) return 1;
	printf("Test passed\n");
	return 0;
}
CU
sample 2_Concepts_and_Techniques fails <<'CU'
#include <cstdio>
int main() { printf("Result = FAIL\n"); return 1; }
CU
sample 3_CUDA_Features waives <<'CU'
#include <cstdio>
int main() { printf("Waiving: no such feature\n"); return 2; }
CU
sample 6_Performance slow <<'CU'
#include <unistd.h>
int main() { sleep(60); return 0; }
CU
sample 6_Performance broken <<'CU'
int main() { return undeclared_name; }
CU
sample 0_Introduction simpleGL <<'CU'
#include <GL/freeglut.h>
int main() { return 0; }
CU

out=$(CUDA_SAMPLES_TIMEOUT=5 "$top/scripts/cuda-samples.sh" "$tree" "$build/bin/simtcc" 2>&1)
status=$?
echo "$out" | sed 's/^/     | /'
row() { grep -Eq "^$1 +$2 +$3" <<<"$out"; }
check "a sample that checks its result passes, with its time" row adds passed '[0-9]+ s$'
check "exit 1 fails, with the sample's last line" row fails FAILED '[0-9]+ s, run \(exit 1\): Result = FAIL'
check "exit 2 is waived" row waives waived '[0-9]+ s, run \(exit 2\): Waiving'
check "a sample past CUDA_SAMPLES_TIMEOUT fails, saying so" row slow FAILED '[0-9]+ s, run \(timed out: CUDA_SAMPLES_TIMEOUT=5\)'
check "a sample that does not build fails, naming the error" row broken FAILED 'build: .*undeclared_name'
check "a graphics sample is left out, with why" row simpleGL skipped 'graphics API'
check "the count" grep -q '^1 passed, 3 failed, 1 waived (1 left out' <<<"$out"
check "failures make the exit status 1" test "$status" -eq 1
logs=$(sed -n 's|.*logs in \(/tmp/cuda-samples-run\.[^)]*\)).*|\1|p' <<<"$out")
[ -n "$logs" ] && rm -rf "$logs"

out=$("$top/scripts/cuda-samples.sh" /nonexistent "$build/bin/simtcc" 2>&1)
status=$?
check "a directory that is no checkout is refused" test "$status" -eq 2
check "... saying why" grep -q 'is not a cuda-samples checkout' <<<"$out"
((failures == 0))
