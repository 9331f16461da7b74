// Checks for the CUDA runtime test programs: each failed check prints where
// and why; main() returns non-zero if any failed and prints "<name>: PASS".
#pragma once

#include <cstdio>

static int check_failures = 0;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                \
            ++check_failures;                                                          \
        }                                                                              \
    } while (0)

#define CHECK_EQ_ERR(call, expect)                                                     \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != (expect)) {                                                          \
            std::printf("FAIL %s:%d: %s gave %s (%s), expected %s\n", __FILE__, __LINE__, \
                        #call, cudaGetErrorName(e_), cudaGetErrorString(e_), #expect); \
            ++check_failures;                                                          \
        }                                                                              \
    } while (0)

#define CHECK_OK(call) CHECK_EQ_ERR(call, cudaSuccess)

static inline int finish(const char *name) {
    std::printf("%s: %s\n", name, check_failures ? "FAIL" : "PASS");
    return check_failures ? 1 : 0;
}
