/* SPDX-License-Identifier: MIT */
/*
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
 * easy as 1, 2, 3", SC 2011): ten rounds of two 32 x 32 -> 64-bit products
 * over a 128-bit counter, the 64-bit key bumped by the Weyl constants
 * between rounds. The state of cuRAND's Philox generator (curand_kernel.h).
 */
#ifndef SIMTGPU_CURAND_PHILOX4X32_X_H
#define SIMTGPU_CURAND_PHILOX4X32_X_H
#define CURAND_PHILOX4X32_X__H_

#include "vector_types.h"
#include "vector_functions.h"

#ifndef QUALIFIERS
#define QUALIFIERS static __forceinline__ __device__
#endif

#define PHILOX_W32_0 (0x9E3779B9)
#define PHILOX_W32_1 (0xBB67AE85)
#define PHILOX_M4x32_0 (0xD2511F53)
#define PHILOX_M4x32_1 (0xCD9E8D57)

struct curandStatePhilox4_32_10 {
    uint4 ctr;
    uint4 output;
    uint2 key;
    unsigned int STATE;
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

QUALIFIERS unsigned int mulhilo32(unsigned int a, unsigned int b, unsigned int *hip)
{
    unsigned long long product = (unsigned long long)a * b;
    *hip = (unsigned int)(product >> 32);
    return (unsigned int)product;
}

QUALIFIERS uint4 _philox4x32round(uint4 ctr, uint2 key)
{
    unsigned int hi0, hi1;
    unsigned int lo0 = mulhilo32(PHILOX_M4x32_0, ctr.x, &hi0);
    unsigned int lo1 = mulhilo32(PHILOX_M4x32_1, ctr.z, &hi1);
    uint4 ret = {hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0};
    return ret;
}

QUALIFIERS uint2 _philox4x32bumpkey(uint2 key)
{
    key.x += PHILOX_W32_0;
    key.y += PHILOX_W32_1;
    return key;
}

QUALIFIERS uint4 curand_Philox4x32_10(uint4 c, uint2 k)
{
    c = _philox4x32round(c, k);
    for (int round = 1; round < 10; ++round) {
        k = _philox4x32bumpkey(k);
        c = _philox4x32round(c, k);
    }
    return c;
}

#endif /* SIMTGPU_CURAND_PHILOX4X32_X_H */
