/* tessera C API: device memory, streams, events and tensor handles, usable from C and C++.
 *
 * Every call returns a tsrStatus; on failure tsrGetLastErrorMessage() gives the message of the last
 * failed call on this thread (it names the argument and what was expected). No C++ exception
 * crosses this API. Handles are opaque; each create has a destroy. Every handle passed in is
 * checked against the live handles first: a destroyed, doubly destroyed, garbage or wrong-kind
 * handle returns TSR_ERROR_INVALID_ARGUMENT naming the call and the handle ("tsrSynchronizeStream:
 * stream 0x... is not a live stream"), never a crash or a double free; NULL pointers are errors
 * unless documented (NULL stream = the default stream). The operator functions of the two-stage API
 * (tsrXxxGetWorkspaceSize / tsrXxx) are declared by the operator packages.
 */
#ifndef TESSERA_TESSERA_NN_H_
#define TESSERA_TESSERA_NN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values equal tessera::StatusCode. */
typedef enum tsrStatus {
  TSR_SUCCESS = 0,
  TSR_ERROR_INVALID_ARGUMENT = 1,
  TSR_ERROR_NOT_FOUND = 2,
  TSR_ERROR_ALREADY_EXISTS = 3,
  TSR_ERROR_OUT_OF_MEMORY = 4,
  TSR_ERROR_OUT_OF_RANGE = 5,
  TSR_ERROR_FAILED_PRECONDITION = 6,
  TSR_ERROR_UNIMPLEMENTED = 7,
  TSR_ERROR_KERNEL = 8,
  TSR_ERROR_NOT_READY = 9,
  TSR_ERROR_INTERNAL = 10
} tsrStatus;

/* Values equal CANN's aclDataType codes. */
typedef enum tsrDataType {
  TSR_FLOAT = 0,
  TSR_FLOAT16 = 1,
  TSR_INT8 = 2,
  TSR_INT32 = 3,
  TSR_UINT8 = 4,
  TSR_INT16 = 6,
  TSR_INT64 = 9,
  TSR_BOOL = 12,
  TSR_BF16 = 27
} tsrDataType;

typedef enum tsrFormat { TSR_FORMAT_ND = 2 } tsrFormat;

typedef enum tsrMemcpyKind {
  TSR_MEMCPY_HOST_TO_HOST = 0,
  TSR_MEMCPY_HOST_TO_DEVICE = 1,
  TSR_MEMCPY_DEVICE_TO_HOST = 2,
  TSR_MEMCPY_DEVICE_TO_DEVICE = 3,
  TSR_MEMCPY_DEFAULT = 4
} tsrMemcpyKind;

/* NULL is the default stream. */
typedef struct tsrStreamHandle* tsrStream;
typedef struct tsrEventHandle* tsrEvent;
typedef struct tsrTensor tsrTensor;

/* Message of the last failed call on this thread ("" when none). Valid until the next call. */
const char* tsrGetLastErrorMessage(void);

/* Device. */
tsrStatus tsrSetProfile(const char* name);
tsrStatus tsrSetCheckedMode(int enabled);
tsrStatus tsrSynchronizeDevice(void);

/* Memory. */
tsrStatus tsrMalloc(void** devPtr, size_t size);
tsrStatus tsrFree(void* devPtr);
/* @returns TSR_ERROR_INVALID_ARGUMENT when count > destMax. */
tsrStatus tsrMemcpy(void* dst, size_t destMax, const void* src, size_t count, tsrMemcpyKind kind);
tsrStatus tsrMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                         tsrMemcpyKind kind, tsrStream stream);
tsrStatus tsrMemset(void* dst, size_t destMax, int value, size_t count);
tsrStatus tsrMemsetAsync(void* dst, size_t destMax, int value, size_t count, tsrStream stream);

/* Streams. A stream's sticky kernel error is returned by tsrSynchronizeStream until reset. */
tsrStatus tsrCreateStream(tsrStream* stream);
/* Waits for the stream's work, then releases the handle. */
tsrStatus tsrDestroyStream(tsrStream stream);
tsrStatus tsrSynchronizeStream(tsrStream stream);
tsrStatus tsrQueryStream(tsrStream stream);
tsrStatus tsrResetStreamError(tsrStream stream);

/* Events. */
tsrStatus tsrCreateEvent(tsrEvent* event);
tsrStatus tsrDestroyEvent(tsrEvent event);
tsrStatus tsrRecordEvent(tsrEvent event, tsrStream stream);
tsrStatus tsrStreamWaitEvent(tsrStream stream, tsrEvent event);
tsrStatus tsrSynchronizeEvent(tsrEvent event);
tsrStatus tsrEventElapsedTime(float* ms, tsrEvent start, tsrEvent end);

/* Tensors: a view of device memory. `strides` may be NULL (contiguous); `rank` <= 8.
 * @returns NULL on invalid arguments (see tsrGetLastErrorMessage). The tensor does not own
 * deviceAddr. */
tsrTensor* tsrCreateTensor(const int64_t* shape, uint64_t rank, const int64_t* strides,
                           tsrDataType dtype, tsrFormat format, void* deviceAddr);
tsrStatus tsrDestroyTensor(const tsrTensor* tensor);
/* Fills up to `capacity` dims; *rank receives the tensor's rank. */
tsrStatus tsrGetTensorShape(const tsrTensor* tensor, int64_t* dims, uint64_t capacity,
                            uint64_t* rank);
tsrStatus tsrGetTensorDataType(const tsrTensor* tensor, tsrDataType* dtype);
tsrStatus tsrGetTensorAddress(const tsrTensor* tensor, void** deviceAddr);

/* ---- Two-stage operator calls ----
 * Stage 1 (GetWorkspaceSize) checks the call against the op's definition, runs its tiling (or
 * reuses a cached plan) and returns an executor and the workspace it needs; stage 2 launches it on
 * a stream with a caller-provided workspace. Executors are single use (released by the stage-2
 * call) unless made repeatable, in which case the caller destroys them. */
typedef struct tsrOpExecutor tsrOpExecutor;

typedef enum tsrAttrType {
  TSR_ATTR_INT = 0,
  TSR_ATTR_FLOAT = 1,
  TSR_ATTR_BOOL = 2,
  TSR_ATTR_STRING = 3,
  TSR_ATTR_INT_LIST = 4,
  TSR_ATTR_FLOAT_LIST = 5
} tsrAttrType;

/* One attribute: set the member that matches `type` (lists: pointer and count). */
typedef struct tsrAttr {
  const char* name;
  tsrAttrType type;
  int64_t intValue;
  float floatValue;
  int boolValue;
  const char* stringValue;
  const int64_t* intList;
  const float* floatList;
  uint64_t listCount;
} tsrAttr;

/* Any op of any package, by name. inputs[i] may be NULL for an absent optional input. */
tsrStatus tsrOpGetWorkspaceSize(const char* opType, const tsrTensor* const* inputs,
                                uint64_t numInputs, const tsrTensor* const* outputs,
                                uint64_t numOutputs, const tsrAttr* attrs, uint64_t numAttrs,
                                uint64_t* workspaceSize, tsrOpExecutor** executor);
/* The same, but only from the package in directory packageDir: no other package can shadow it and
 * no environment variable is needed to find it. Generated op APIs (<pkg>_nn.h, and builtin_nn.h
 * with tsrAdd, tsrRmsNorm, ...) call this with their own package's directory. */
tsrStatus tsrOpGetWorkspaceSizeInPackage(const char* packageDir, const char* opType,
                                         const tsrTensor* const* inputs, uint64_t numInputs,
                                         const tsrTensor* const* outputs, uint64_t numOutputs,
                                         const tsrAttr* attrs, uint64_t numAttrs,
                                         uint64_t* workspaceSize, tsrOpExecutor** executor);
/* @returns TSR_ERROR_INVALID_ARGUMENT when workspaceSize is below the required size (the message
 * names both). A single-use executor is released by this call, whatever it returns. */
tsrStatus tsrOpExecute(void* workspace, uint64_t workspaceSize, tsrOpExecutor* executor,
                       tsrStream stream);
/* As tsrOpExecute, for an executor that must have been made for op `opType` (the generated typed
 * stage-2 calls, tsrAdd and the like, use it). An executor of another op is
 * TSR_ERROR_INVALID_ARGUMENT naming both ops; it is not run and not released. */
tsrStatus tsrOpExecuteAs(const char* opType, void* workspace, uint64_t workspaceSize,
                         tsrOpExecutor* executor, tsrStream stream);
tsrStatus tsrSetExecutorRepeatable(tsrOpExecutor* executor);
/* Repeatable executors: point tensor `index` (inputs then outputs) at new device memory. */
tsrStatus tsrSetExecutorTensorAddress(tsrOpExecutor* executor, uint64_t index, void* deviceAddr);
tsrStatus tsrDestroyExecutor(tsrOpExecutor* executor);

/* A workspace reused across calls, grown when a call needs more (frees wait for queued work).
 * Not thread-safe: one pool per stream or thread. */
typedef struct tsrWorkspacePool tsrWorkspacePool;
tsrStatus tsrCreateWorkspacePool(tsrWorkspacePool** pool);
/* *workspace receives a buffer of at least `size` bytes (NULL for 0), valid until the next Get. */
tsrStatus tsrWorkspacePoolGet(tsrWorkspacePool* pool, uint64_t size, void** workspace);
tsrStatus tsrDestroyWorkspacePool(tsrWorkspacePool* pool);

typedef struct tsrRuntimeStats {
  uint64_t cacheHits;
  uint64_t cacheMisses;
  uint64_t cacheSize;
  uint64_t tilingCalls;
  uint64_t packageLookups;
} tsrRuntimeStats;
tsrStatus tsrGetRuntimeStats(tsrRuntimeStats* stats);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_TESSERA_NN_H_ */
