/* acl/acl_rt.h: the acl runtime over tessera's device (one device, id 0, whose memory is host
 * memory the device runtime hands out). Contracts and return codes follow CANN:
 *   - aclrtMalloc/aclrtMemcpy/aclrtCreateStream/... need a current context on the calling thread
 *     (aclrtSetDevice or aclrtSetCurrentContext), else ACL_ERROR_RT_CONTEXT_NULL;
 *   - a device id other than 0 is ACL_ERROR_RT_INVALID_DEVICEID;
 *   - NULL out-pointers, size 0, count > destMax are ACL_ERROR_INVALID_PARAM;
 *   - freeing memory twice or memory not from aclrtMalloc, a memcpy kind that contradicts where the
 *     pointers live, a destroyed stream/event/context are ACL_ERROR_RT_PARAM_INVALID;
 *   - a kernel fault surfaces at aclrtSynchronizeStream/Device as ACL_ERROR_RT_AICORE_EXCEPTION.
 * Every failure leaves its message for aclGetRecentErrMsg. NULL is the default stream. */
#ifndef TESSERA_COMPAT_ACL_ACL_RT_H_
#define TESSERA_COMPAT_ACL_ACL_RT_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;

typedef enum aclrtRunMode { ACL_DEVICE = 0, ACL_HOST = 1 } aclrtRunMode;

/* Scope of aclrtGetLastError / aclrtPeekAtLastError: the calling thread (CANN's only level). */
typedef enum aclrtLastErrLevel { ACL_RT_THREAD_LEVEL = 0 } aclrtLastErrLevel;

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5
} aclrtMemMallocPolicy;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
  ACL_MEMCPY_DEFAULT = 4
} aclrtMemcpyKind;

/* Devices and contexts. aclrtSetDevice makes the device's default context current on this thread
 * (reference-counted per device: the last aclrtResetDevice synchronizes and releases it). */
aclError aclrtGetDeviceCount(uint32_t* count);
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtGetDevice(int32_t* deviceId);
aclError aclrtGetRunMode(aclrtRunMode* runMode);
aclError aclrtSynchronizeDevice(void);
/* The code of the most recent failed acl call on this thread (ACL_SUCCESS if none); Get clears
 * it, Peek does not. A level other than ACL_RT_THREAD_LEVEL is ACL_ERROR_INVALID_PARAM. */
aclError aclrtGetLastError(aclrtLastErrLevel level);
aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId);
aclError aclrtDestroyContext(aclrtContext context);
aclError aclrtSetCurrentContext(aclrtContext context);
aclError aclrtGetCurrentContext(aclrtContext* context);

/* Memory. `policy` is accepted for every CANN value (there are no huge pages to prefer). */
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void* devPtr);
aclError aclrtMallocHost(void** hostPtr, size_t size);
aclError aclrtFreeHost(void* hostPtr);
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind);
aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream);
aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count);
aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream);

/* Streams. */
aclError aclrtCreateStream(aclrtStream* stream);
/* Waits for the stream's work first. */
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

/* Events. */
aclError aclrtCreateEvent(aclrtEvent* event);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtSynchronizeEvent(aclrtEvent event);
aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_COMPAT_ACL_ACL_RT_H_ */
