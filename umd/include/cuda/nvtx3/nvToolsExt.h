/* SPDX-License-Identifier: MIT */
/* NVTX (NVIDIA Tools Extension) version 3, header-only as NVIDIA's nvtx3 is:
 * markers, ranges, domains, categories and registered strings, so code that
 * annotates itself for a profiler builds unchanged. No profiler attaches to
 * simtgpu (NVIDIA's injection library, NVTX_INJECTION64_PATH, is not
 * loaded), so every call does what NVTX does without a tool: nothing, and
 * push/pop return NVTX_NO_PUSH_POP_TRACKING, range starts id 0 and handles
 * are null. Ranges do not reach SIMTGPU_TRACE: docs/compatibility.md,
 * "NVTX". */
#ifndef NVTX3_NVTOOLSEXT_H_
#define NVTX3_NVTOOLSEXT_H_
#ifndef NVTOOLSEXT_H_
#define NVTOOLSEXT_H_
#endif

#include <stddef.h>
#include <stdint.h>

#define NVTX_VERSION 3

#define NVTX_SUCCESS 0
#define NVTX_FAIL 1
#define NVTX_ERR_INIT_LOAD_PROPERTY 2
#define NVTX_ERR_INIT_ACCESS_LIBRARY 3
#define NVTX_ERR_INIT_LOAD_LIBRARY 4
#define NVTX_ERR_INIT_MISSING_LIBRARY_ENTRY_POINT 5
#define NVTX_ERR_INIT_FAILED_LIBRARY_ENTRY_POINT 6
#define NVTX_ERR_NO_INJECTION_LIBRARY_AVAILABLE 7

/* What push and pop return when no tool tracks their nesting. */
#define NVTX_NO_PUSH_POP_TRACKING ((int)-2)

#ifndef NVTX_INLINE_STATIC
#ifdef __cplusplus
#define NVTX_INLINE_STATIC inline static
#else
#define NVTX_INLINE_STATIC static inline
#endif
#endif
#define NVTX_DECLSPEC
#define NVTX_API

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nvtxColorType_t { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 } nvtxColorType_t;

typedef enum nvtxMessageType_t {
    NVTX_MESSAGE_UNKNOWN = 0,
    NVTX_MESSAGE_TYPE_ASCII = 1,
    NVTX_MESSAGE_TYPE_UNICODE = 2,
    NVTX_MESSAGE_TYPE_REGISTERED = 3
} nvtxMessageType_t;

typedef enum nvtxPayloadType_t {
    NVTX_PAYLOAD_UNKNOWN = 0,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
    NVTX_PAYLOAD_TYPE_INT64 = 2,
    NVTX_PAYLOAD_TYPE_DOUBLE = 3,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
    NVTX_PAYLOAD_TYPE_INT32 = 5,
    NVTX_PAYLOAD_TYPE_FLOAT = 6
} nvtxPayloadType_t;

typedef enum nvtxInitializationMode_t {
    NVTX_INITIALIZATION_MODE_UNKNOWN = 0,
    NVTX_INITIALIZATION_MODE_FRESH = 1,
    NVTX_INITIALIZATION_MODE_SHARED = 2
} nvtxInitializationMode_t;

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxDomainRegistration_st *nvtxDomainHandle_t;
typedef struct nvtxStringRegistration_st *nvtxStringHandle_t;
typedef struct nvtxResourceHandle *nvtxResourceHandle_t;

typedef union nvtxMessageValue_t {
    const char *ascii;
    const wchar_t *unicode;
    nvtxStringHandle_t registered;
} nvtxMessageValue_t;

typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union payload_t {
        uint64_t ullValue;
        int64_t llValue;
        double dValue;
        uint32_t uiValue;
        int32_t iValue;
        float fValue;
    } payload;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxEventAttributes_v2;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;

#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxEventAttributes_t)))

typedef struct nvtxInitializationAttributes_v2 {
    uint16_t version;
    uint16_t size;
    uint32_t mode;
    void (*fnptr)(void);
} nvtxInitializationAttributes_t;

typedef struct nvtxResourceAttributes_v0 {
    uint16_t version;
    uint16_t size;
    int32_t identifierType;
    union identifier_t {
        const void *pValue;
        uint64_t ullValue;
    } identifier;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxResourceAttributes_t;

#define NVTX_RESOURCE_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxResourceAttributes_t)))

/* Each function's arguments are left unread: without a tool, NVTX calls
 * cost nothing and record nothing. */
NVTX_INLINE_STATIC int nvtxInitialize(const nvtxInitializationAttributes_t *initAttrib) {
    (void)initAttrib;
    return NVTX_SUCCESS;
}

NVTX_INLINE_STATIC void nvtxMarkEx(const nvtxEventAttributes_t *eventAttrib) {
    (void)eventAttrib;
}
NVTX_INLINE_STATIC void nvtxMarkA(const char *message) {
    (void)message;
}
NVTX_INLINE_STATIC void nvtxMarkW(const wchar_t *message) {
    (void)message;
}

NVTX_INLINE_STATIC nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *eventAttrib) {
    (void)eventAttrib;
    return 0;
}
NVTX_INLINE_STATIC nvtxRangeId_t nvtxRangeStartA(const char *message) {
    (void)message;
    return 0;
}
NVTX_INLINE_STATIC nvtxRangeId_t nvtxRangeStartW(const wchar_t *message) {
    (void)message;
    return 0;
}
NVTX_INLINE_STATIC void nvtxRangeEnd(nvtxRangeId_t id) {
    (void)id;
}

NVTX_INLINE_STATIC int nvtxRangePushEx(const nvtxEventAttributes_t *eventAttrib) {
    (void)eventAttrib;
    return NVTX_NO_PUSH_POP_TRACKING;
}
NVTX_INLINE_STATIC int nvtxRangePushA(const char *message) {
    (void)message;
    return NVTX_NO_PUSH_POP_TRACKING;
}
NVTX_INLINE_STATIC int nvtxRangePushW(const wchar_t *message) {
    (void)message;
    return NVTX_NO_PUSH_POP_TRACKING;
}
NVTX_INLINE_STATIC int nvtxRangePop(void) {
    return NVTX_NO_PUSH_POP_TRACKING;
}

NVTX_INLINE_STATIC void nvtxNameCategoryA(uint32_t category, const char *name) {
    (void)category, (void)name;
}
NVTX_INLINE_STATIC void nvtxNameCategoryW(uint32_t category, const wchar_t *name) {
    (void)category, (void)name;
}
NVTX_INLINE_STATIC void nvtxNameOsThreadA(uint32_t threadId, const char *name) {
    (void)threadId, (void)name;
}
NVTX_INLINE_STATIC void nvtxNameOsThreadW(uint32_t threadId, const wchar_t *name) {
    (void)threadId, (void)name;
}

NVTX_INLINE_STATIC nvtxDomainHandle_t nvtxDomainCreateA(const char *name) {
    (void)name;
    return (nvtxDomainHandle_t)0;
}
NVTX_INLINE_STATIC nvtxDomainHandle_t nvtxDomainCreateW(const wchar_t *name) {
    (void)name;
    return (nvtxDomainHandle_t)0;
}
NVTX_INLINE_STATIC void nvtxDomainDestroy(nvtxDomainHandle_t domain) {
    (void)domain;
}
NVTX_INLINE_STATIC void nvtxDomainMarkEx(nvtxDomainHandle_t domain,
                                         const nvtxEventAttributes_t *eventAttrib) {
    (void)domain, (void)eventAttrib;
}
NVTX_INLINE_STATIC nvtxRangeId_t nvtxDomainRangeStartEx(nvtxDomainHandle_t domain,
                                                        const nvtxEventAttributes_t *eventAttrib) {
    (void)domain, (void)eventAttrib;
    return 0;
}
NVTX_INLINE_STATIC void nvtxDomainRangeEnd(nvtxDomainHandle_t domain, nvtxRangeId_t id) {
    (void)domain, (void)id;
}
NVTX_INLINE_STATIC int nvtxDomainRangePushEx(nvtxDomainHandle_t domain,
                                             const nvtxEventAttributes_t *eventAttrib) {
    (void)domain, (void)eventAttrib;
    return NVTX_NO_PUSH_POP_TRACKING;
}
NVTX_INLINE_STATIC int nvtxDomainRangePop(nvtxDomainHandle_t domain) {
    (void)domain;
    return NVTX_NO_PUSH_POP_TRACKING;
}
NVTX_INLINE_STATIC nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t domain,
                                                                const char *string) {
    (void)domain, (void)string;
    return (nvtxStringHandle_t)0;
}
NVTX_INLINE_STATIC nvtxStringHandle_t nvtxDomainRegisterStringW(nvtxDomainHandle_t domain,
                                                                const wchar_t *string) {
    (void)domain, (void)string;
    return (nvtxStringHandle_t)0;
}
NVTX_INLINE_STATIC void nvtxDomainNameCategoryA(nvtxDomainHandle_t domain, uint32_t category,
                                                const char *name) {
    (void)domain, (void)category, (void)name;
}
NVTX_INLINE_STATIC void nvtxDomainNameCategoryW(nvtxDomainHandle_t domain, uint32_t category,
                                                const wchar_t *name) {
    (void)domain, (void)category, (void)name;
}
NVTX_INLINE_STATIC nvtxResourceHandle_t
nvtxDomainResourceCreate(nvtxDomainHandle_t domain, nvtxResourceAttributes_t *attribs) {
    (void)domain, (void)attribs;
    return (nvtxResourceHandle_t)0;
}
NVTX_INLINE_STATIC void nvtxDomainResourceDestroy(nvtxResourceHandle_t resource) {
    (void)resource;
}

#ifdef __cplusplus
}
#endif

#endif
