#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds every eligible sample of a user's checkout of NVIDIA's cuda-samples
# unmodified with simtcc and runs it: a table, then "N passed, N failed, N waived"
# (a sample that exits 2, EXIT_WAIVED, found the device lacks a feature it needs).
#   scripts/cuda-samples.sh [--guest] SAMPLES_DIR [SIMTCC] [NAME-REGEX]
# Eligible (issue 16, docs/compatibility.md): Samples/0_Introduction,
# 2_Concepts_and_Techniques, 3_CUDA_Features, 6_Performance, minus samples
# that need graphics, a second GPU, MPI/IPC, NVRTC or module loading, CUDA
# libraries, tensor cores, dynamic parallelism or cuda::memcpy_async.
# Without --guest each sample runs here, on the transport the runtime picks
# (the in-process simulator). With --guest the samples are built here as
# before, into BUILD/cuda-samples-guest/ (BUILD: the build tree of SIMTCC,
# which the guest reaches through the repository's share), next to a copy of
# each sample's directory and of Common/; then the QEMU guest boots once
# (scripts/run-qemu.sh: kmd/simtgpu.ko loaded, SIMTGPU_TRANSPORT=drm) and
# runs them one after the other in their copied directories; their rows come
# after those of the samples left out or failing to build.
# CUDA_SAMPLES_TIMEOUT: seconds per sample (default 300), in the guest too.
# In-process the simulator runs its SMs on every host core (SIMTGPU_SIM_THREADS,
# same results on any count); the guest's device keeps its own setting.
set -u
guest=
if [ "${1:-}" = --guest ]; then
    guest=1
    shift
fi
samples_dir=${1:?usage: scripts/cuda-samples.sh [--guest] SAMPLES_DIR [SIMTCC] [NAME-REGEX]}
here=$(cd "$(dirname "$0")/.." && pwd)
simtcc=${2:-$here/build/bin/simtcc}
only=${3:-.}
run_timeout=${CUDA_SAMPLES_TIMEOUT:-300}
export SIMTGPU_SIM_THREADS=${SIMTGPU_SIM_THREADS:-$(nproc)}
[ -d "$samples_dir/Samples" ] && [ -d "$samples_dir/Common" ] ||
    { echo "error: $samples_dir is not a cuda-samples checkout (no Samples/ and Common/)" >&2; exit 2; }
[ -x "$simtcc" ] || { echo "error: no simtcc at $simtcc: run 'make build' or pass SIMTCC" >&2; exit 2; }
[[ $run_timeout =~ ^[1-9][0-9]*$ ]] ||
    { echo "error: CUDA_SAMPLES_TIMEOUT=$run_timeout is not a positive number of seconds" >&2; exit 2; }
categories="0_Introduction 2_Concepts_and_Techniques 3_CUDA_Features 6_Performance"

# Left out, with the reason (one list: docs/compatibility.md copies it).
excluded_reason() {
    case $1 in
    *_nvrtc | *Drv | matrixMulDynlinkJIT | vectorAddMMAP | simpleDrvRuntime | ptxjit) echo "NVRTC / driver-API module loading" ;;
    *GL | *GL* | simpleCUDA2GL | *EGL* | *D3D* | *Vulkan* | *vulkan* | *NvSci* | bindlessTexture | particles | boxFilter | imageDenoising | \
        FunctionPointers | convolutionTexture | postProcessGL | recursiveGaussian | smokeParticles | volumeRender | \
        volumeFiltering | SobelFilter | bilateralFilter | simpleGL | Mandelbrot | marchingCubes | nbody | oceanFFT | \
        fluidsGL | randomFog | simpleTexture3D | simpleCubemapTexture | simpleLayeredTexture) echo "graphics API (OpenGL/EGL/Vulkan)" ;;
    simpleMultiGPU | simpleP2P | simpleMultiCopy | threadMigration | streamOrderedAllocationP2P | *MultiGPU* | *MGPU* | *P2P* | \
        conjugateGradientMultiDeviceCG | topologyQuery) echo "a second GPU" ;;
    simpleMPI | simpleIPC | streamOrderedAllocationIPC | *IPC*) echo "MPI / IPC" ;;
    *TensorCore* | *Tf32* | *WMMA* | *wmma* | immaTensorCoreGemm | dmmaTensorCoreGemm | tf32TensorCoreGemm) echo "tensor cores (warp matrix)" ;;
    cdp* | *cdp*) echo "dynamic parallelism" ;;
    globalToShmemAsyncCopy | *memcpy_async* | simpleAWBarrier | *Pipeline* | *pipeline* | \
        cudaTensorCoreGemm | tf32TensorCoreGemm) echo "cuda::memcpy_async / cuda::barrier pipelines" ;;
    conjugateGradient*) echo "cuSPARSE (not there yet)" ;;
    cuSolver*) echo "cuSOLVER (not there)" ;;
    *NPP* | *nvJPEG*) echo "NPP / nvJPEG (not there)" ;;
    simpleCUBLASXT) echo "cublasXt (multi-GPU BLAS)" ;;
    simpleCUBLAS_LU) echo "cuBLAS batched LU (cublasDgetrfBatched: not there yet)" ;;
    simpleCUFFT_callback) echo "cuFFT callbacks (cufftXtSetCallback)" ;;
    MersenneTwisterGP11213) echo "cuRAND's MTGP32 generator (not there)" ;;
    *) ;;
    esac
}

pass=0 fail=0 waived=0 skipped=0
# One row of the table and its count. RESULT: passed, waived (the samples'
# EXIT_WAIVED, 2: the sample found the device lacks a feature it needs, as it
# would on a real GPU without it), or FAILED.
report() {
    printf '%-36s %-8s %s\n' "$1" "$2" "${3:-}"
    case $2 in
    passed) pass=$((pass + 1)) ;;
    waived) waived=$((waived + 1)) ;;
    *) fail=$((fail + 1)) ;;
    esac
}
if [ -n "$guest" ]; then
    build_dir=$(cd "$(dirname "$simtcc")/.." && pwd)
    [ -f "$build_dir/lib/libsimtgpu-sim.so" ] ||
        { echo "error: --guest: no $build_dir/lib/libsimtgpu-sim.so: build the simtgpu_sim target" >&2; exit 2; }
    [ -f "$here/kmd/simtgpu.ko" ] || { echo "error: --guest: no kmd/simtgpu.ko: run 'make kmd'" >&2; exit 2; }
    case $build_dir/ in
    "$here"/*) ;;
    *) echo "error: --guest: the build tree $build_dir is outside $here, which is all the guest sees" >&2; exit 2 ;;
    esac
    # Programs, logs and the samples' directories where the guest finds them.
    work=$build_dir/cuda-samples-guest
    rm -rf "$work" && mkdir -p "$work/tree/Samples" || exit 2
    cp -r "$samples_dir/Common" "$work/tree/Common" || exit 2
    for category in $categories; do
        mkdir -p "$work/tree/Samples/$category"
        for dir in "$samples_dir/Samples/$category"/*/; do
            name=$(basename "$dir")
            [[ $name =~ $only ]] || continue
            if [ -n "$(excluded_reason "$name")" ]; then # a row all the same
                mkdir -p "$work/tree/Samples/$category/$name"
                continue
            fi
            cp -r "$dir" "$work/tree/Samples/$category/$name" || exit 2
        done
    done
    samples_dir=$work/tree
    guest_names=() guest_dirs=()
else
    work=$(mktemp -d /tmp/cuda-samples-run.XXXXXX)
fi
printf '%-36s %-8s %s\n' SAMPLE RESULT DETAIL
for category in $categories; do
    for dir in "$samples_dir/Samples/$category"/*/; do
        name=$(basename "$dir")
        [[ $name =~ $only ]] || continue
        reason=$(excluded_reason "$name")
        if [ -n "$reason" ]; then
            printf '%-36s %-8s %s\n' "$name" skipped "$reason"
            skipped=$((skipped + 1))
            continue
        fi
        # Sources beside the sample's README, or in src/ with headers in inc/
        # (the MC_* samples' layout).
        src_dirs=("$dir")
        [ -d "$dir/src" ] && src_dirs+=("$dir/src")
        mapfile -t sources < <(find "${src_dirs[@]}" -maxdepth 1 \( -name '*.cu' -o -name '*.cpp' -o -name '*.c' \) | sort)
        if [ ${#sources[@]} -eq 0 ]; then continue; fi
        log=$work/$name.log
        flags=(-std=c++17 -O2 -I "$samples_dir/Common" -I "$dir" -lineinfo --extended-lambda)
        [ -d "$dir/inc" ] && flags+=(-I "$dir/inc")
        # Host OpenMP (cudaOpenMP) only where a sample uses it: it needs libomp.
        if grep -q 'omp.h' "${sources[@]}"; then flags+=(-Xcompiler -fopenmp); fi
        # Our CUDA libraries (libs/), as the samples' Makefiles link them.
        if grep -q '<curand.h>' "${sources[@]}"; then flags+=(-lcurand); fi
        if grep -qE '<cublas(_v2)?.h>' "${sources[@]}"; then flags+=(-lcublas); fi
        if grep -q '<cufft.h>' "${sources[@]}"; then flags+=(-lcufft); fi
        if ! "$simtcc" "${flags[@]}" "${sources[@]}" -o "$work/$name" >"$log" 2>&1; then
            report "$name" FAILED "build: $(grep -m1 -E 'error' "$log" | cut -c1-150)"
            continue
        fi
        if [ -n "$guest" ]; then
            guest_names+=("$name")
            guest_dirs+=("${dir%/}")
            continue
        fi
        started=$SECONDS
        (cd "$dir" && timeout "$run_timeout" "$work/$name") >"$log.run" 2>&1
        rc=$?
        took="$((SECONDS - started)) s"
        last=$(tail -n1 "$log.run" | cut -c1-120)
        case $rc in
        0) report "$name" passed "$took" ;;
        2) report "$name" waived "$took, run (exit 2): $last" ;;
        124) report "$name" FAILED "$took, run (timed out: CUDA_SAMPLES_TIMEOUT=$run_timeout): $last" ;;
        *) report "$name" FAILED "$took, run (exit $rc): $last" ;;
        esac
    done
done
if [ -n "$guest" ] && [ ${#guest_names[@]} -gt 0 ]; then
    # One boot runs every built sample; each prints one result line.
    script=$work/guest-run.sh
    {
        echo '#!/bin/sh'
        echo '# Written by scripts/cuda-samples.sh --guest: runs the built samples on the kernel driver.'
        echo "grep -q '^simtgpu ' /proc/modules || modprobe simtgpu || { echo 'cuda-samples: cannot load simtgpu.ko'; exit 1; }"
        echo 'run() {'
        echo '    started=$(date +%s)'
        echo '    (cd "$2" && SIMTGPU_TRANSPORT=drm timeout '"$run_timeout"' "$3") >"$3.log.run" 2>&1'
        echo '    rc=$?'
        echo '    took="$(( $(date +%s) - started )) s"'
        echo '    if [ $rc -eq 0 ]; then echo "cuda-samples-result: $1 passed $took"'
        echo '    elif [ $rc -eq 2 ]; then echo "cuda-samples-result: $1 waived $took, run (exit 2): $(tail -n1 "$3.log.run" | cut -c1-120)"'
        echo '    elif [ $rc -eq 124 ] || [ $rc -eq 143 ]; then echo "cuda-samples-result: $1 FAILED $took, run (timeout, exit $rc): $(tail -n1 "$3.log.run" | cut -c1-100)"'
        echo '    else echo "cuda-samples-result: $1 FAILED $took, run (exit $rc): $(tail -n1 "$3.log.run" | cut -c1-120)"; fi'
        echo '}'
        for i in "${!guest_names[@]}"; do
            printf 'run %q %q %q\n' "${guest_names[$i]}" "${guest_dirs[$i]}" "$work/${guest_names[$i]}"
        done
    } >"$script"
    # The samples' time plus a boot, and a margin per sample for loading it.
    guest_timeout=$(( ${#guest_names[@]} * (run_timeout + 30) + 300 ))
    "$here/scripts/run-qemu.sh" --build "$build_dir" --timeout "$guest_timeout" -- sh "$script" \
        >"$work/guest.log" 2>&1
    for name in "${guest_names[@]}"; do
        line=$(grep -a "^cuda-samples-result: $name " "$work/guest.log" | tail -n1 | tr -d '\r')
        line=${line#cuda-samples-result: $name }
        case $line in
        passed*) report "$name" passed "(guest) ${line#passed }" ;;
        waived*) report "$name" waived "(guest) ${line#waived }" ;;
        FAILED*) report "$name" FAILED "(guest) ${line#FAILED }" ;;
        *) report "$name" FAILED "(guest) not run: the guest ended first ($work/guest.log)" ;;
        esac
    done
fi
echo "$pass passed, $fail failed, $waived waived ($skipped left out; logs in $work)"
[ "$fail" -eq 0 ]
