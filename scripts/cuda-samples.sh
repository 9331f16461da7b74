#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds every eligible sample of a user's checkout of NVIDIA's cuda-samples
# unmodified with simtcc and runs it: a table, then "N passed, N failed".
#   scripts/cuda-samples.sh SAMPLES_DIR [SIMTCC] [NAME-REGEX]
# Eligible (issue 16, docs/compatibility.md): Samples/0_Introduction,
# 2_Concepts_and_Techniques, 3_CUDA_Features, 6_Performance, minus samples
# that need graphics, a second GPU, MPI/IPC, NVRTC or module loading, CUDA
# libraries, tensor cores, dynamic parallelism or cuda::memcpy_async.
set -u
samples_dir=${1:?usage: scripts/cuda-samples.sh SAMPLES_DIR [SIMTCC] [NAME-REGEX]}
here=$(cd "$(dirname "$0")/.." && pwd)
simtcc=${2:-$here/build/bin/simtcc}
only=${3:-.}
run_timeout=${CUDA_SAMPLES_TIMEOUT:-300}
[ -d "$samples_dir/Samples" ] && [ -d "$samples_dir/Common" ] ||
    { echo "error: $samples_dir is not a cuda-samples checkout (no Samples/ and Common/)" >&2; exit 2; }
[ -x "$simtcc" ] || { echo "error: no simtcc at $simtcc: run 'make build' or pass SIMTCC" >&2; exit 2; }

# Left out, with the reason (one list: docs/compatibility.md copies it).
excluded_reason() {
    case $1 in
    *_nvrtc | *Drv | matrixMulDynlinkJIT | vectorAddMMAP | simpleDrvRuntime | ptxjit) echo "NVRTC / driver-API module loading" ;;
    *GL | *GL* | simpleCUDA2GL | *EGL* | *D3D* | *Vulkan* | *vulkan* | *NvSci* | bindlessTexture | particles | boxFilter | imageDenoising | \
        FunctionPointers | convolutionTexture | postProcessGL | recursiveGaussian | smokeParticles | volumeRender | \
        volumeFiltering | SobelFilter | bilateralFilter | simpleGL | Mandelbrot | marchingCubes | nbody | oceanFFT | \
        fluidsGL | randomFog | simpleTexture3D | simpleCubemapTexture | simpleLayeredTexture) echo "graphics API (OpenGL/EGL/Vulkan)" ;;
    simpleMultiGPU | simpleP2P | simpleMultiCopy | threadMigration | streamOrderedAllocationP2P | *MultiGPU* | *P2P* | \
        conjugateGradientMultiDeviceCG | topologyQuery) echo "a second GPU" ;;
    simpleMPI | simpleIPC | streamOrderedAllocationIPC | *IPC*) echo "MPI / IPC" ;;
    *TensorCore* | *Tf32* | *WMMA* | *wmma* | immaTensorCoreGemm | dmmaTensorCoreGemm | tf32TensorCoreGemm) echo "tensor cores (warp matrix)" ;;
    cdp* | *cdp*) echo "dynamic parallelism" ;;
    globalToShmemAsyncCopy | *memcpy_async* | simpleAWBarrier | *Pipeline* | *pipeline* | \
        cudaTensorCoreGemm | tf32TensorCoreGemm) echo "cuda::memcpy_async / cuda::barrier pipelines" ;;
    MC_* | radixSortThrust | segmentationTreeThrust | *cuBLAS* | *cuFFT* | *cuRAND* | *NPP* | *nvJPEG* | \
        conjugateGradient* | simpleCUBLAS* | simpleCUFFT* | batchCUBLAS | matrixMulCUBLAS | UnifiedMemoryStreams) echo "a CUDA library (cuRAND/cuBLAS/cuFFT/Thrust/NPP)" ;;
    *) ;;
    esac
}

pass=0 fail=0 skipped=0
work=$(mktemp -d /tmp/cuda-samples-run.XXXXXX)
printf '%-36s %-8s %s\n' SAMPLE RESULT DETAIL
for category in 0_Introduction 2_Concepts_and_Techniques 3_CUDA_Features 6_Performance; do
    for dir in "$samples_dir/Samples/$category"/*/; do
        name=$(basename "$dir")
        [[ $name =~ $only ]] || continue
        reason=$(excluded_reason "$name")
        if [ -n "$reason" ]; then
            printf '%-36s %-8s %s\n' "$name" skipped "$reason"
            skipped=$((skipped + 1))
            continue
        fi
        mapfile -t sources < <(find "$dir" -maxdepth 1 \( -name '*.cu' -o -name '*.cpp' -o -name '*.c' \) | sort)
        if [ ${#sources[@]} -eq 0 ]; then continue; fi
        log=$work/$name.log
        flags=(-std=c++17 -O2 -I "$samples_dir/Common" -I "$dir" -lineinfo --extended-lambda)
        # Host OpenMP (cudaOpenMP) only where a sample uses it: it needs libomp.
        if grep -q 'omp.h' "${sources[@]}"; then flags+=(-Xcompiler -fopenmp); fi
        if ! "$simtcc" "${flags[@]}" "${sources[@]}" -o "$work/$name" >"$log" 2>&1; then
            printf '%-36s %-8s %s\n' "$name" FAILED "build: $(grep -m1 -E 'error' "$log" | cut -c1-150)"
            fail=$((fail + 1))
            continue
        fi
        if (cd "$dir" && timeout "$run_timeout" "$work/$name") >"$log.run" 2>&1; then
            printf '%-36s %-8s\n' "$name" passed
            pass=$((pass + 1))
        else
            rc=$?
            printf '%-36s %-8s %s\n' "$name" FAILED "run (exit $rc): $(tail -n1 "$log.run" | cut -c1-120)"
            fail=$((fail + 1))
        fi
    done
done
echo "$pass passed, $fail failed ($skipped left out; logs in $work)"
[ "$fail" -eq 0 ]
