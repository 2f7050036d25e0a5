/* The C API under misuse, from plain C: destroyed, doubly destroyed and garbage handles, handles
 * of the wrong kind and NULL pointers all return TSR_ERROR_INVALID_ARGUMENT with a message naming
 * the handle, never a crash or a double free; checked mode refuses host memory where device memory
 * is required. Runs the built-in Add to show the API still works after every misuse. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin_nn.h"
#include "tessera/tessera_nn.h"

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              tsrGetLastErrorMessage());                                                       \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

/* The call returned TSR_ERROR_INVALID_ARGUMENT and the message contains `needle`. */
#define CHECK_INVALID(call, needle)                          \
  do {                                                       \
    CHECK((call) == TSR_ERROR_INVALID_ARGUMENT);             \
    CHECK(strstr(tsrGetLastErrorMessage(), needle) != NULL); \
  } while (0)

enum { kCount = 1031 }; /* odd size: tails everywhere */

/* z = x + y through the two-stage API on `stream`; checks every element against a double sum. */
static int RunAdd(tsrStream stream, uint32_t seed) {
  float hx[kCount], hy[kCount], hz[kCount];
  void *x = NULL, *y = NULL, *z = NULL, *ws = NULL;
  int64_t shape[1] = {kCount};
  uint64_t wsSize = 0;
  tsrOpExecutor* exec = NULL;
  tsrTensor *tx, *ty, *tz;
  for (int i = 0; i < kCount; ++i) {
    seed = seed * 1664525u + 1013904223u;
    hx[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
    seed = seed * 1664525u + 1013904223u;
    hy[i] = (float)(seed >> 8) / 4194304.0f - 2.0f;
  }
  CHECK(tsrMalloc(&x, sizeof(hx)) == TSR_SUCCESS && tsrMalloc(&y, sizeof(hy)) == TSR_SUCCESS &&
        tsrMalloc(&z, sizeof(hz)) == TSR_SUCCESS);
  CHECK(tsrMemcpy(x, sizeof(hx), hx, sizeof(hx), TSR_MEMCPY_HOST_TO_DEVICE) == TSR_SUCCESS);
  CHECK(tsrMemcpy(y, sizeof(hy), hy, sizeof(hy), TSR_MEMCPY_HOST_TO_DEVICE) == TSR_SUCCESS);
  tx = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, x);
  ty = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, y);
  tz = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, z);
  CHECK(tx && ty && tz);
  CHECK(tsrAddGetWorkspaceSize(tx, ty, tz, &wsSize, &exec) == TSR_SUCCESS);
  if (wsSize > 0) CHECK(tsrMalloc(&ws, wsSize) == TSR_SUCCESS);
  CHECK(tsrAdd(ws, wsSize, exec, stream) == TSR_SUCCESS);
  CHECK(tsrSynchronizeStream(stream) == TSR_SUCCESS);
  CHECK(tsrMemcpy(hz, sizeof(hz), z, sizeof(hz), TSR_MEMCPY_DEVICE_TO_HOST) == TSR_SUCCESS);
  for (int i = 0; i < kCount; ++i)
    CHECK(hz[i] == (float)((double)hx[i] + (double)hy[i]));
  CHECK(tsrDestroyTensor(tx) == TSR_SUCCESS && tsrDestroyTensor(ty) == TSR_SUCCESS &&
        tsrDestroyTensor(tz) == TSR_SUCCESS);
  if (ws) CHECK(tsrFree(ws) == TSR_SUCCESS);
  CHECK(tsrFree(x) == TSR_SUCCESS && tsrFree(y) == TSR_SUCCESS && tsrFree(z) == TSR_SUCCESS);
  return 0;
}

int main(void) {
  tsrStream stream = NULL, dead_stream = NULL;
  tsrEvent event = NULL, dead_event = NULL;
  tsrOpExecutor* exec = NULL;
  tsrWorkspacePool* pool = NULL;
  void *dev = NULL, *ws = NULL;
  int64_t shape[1] = {kCount};
  int64_t dims[1];
  uint64_t rank = 0, wsSize = 0;
  tsrDataType dtype;
  float ms = 0.0f;
  float host[kCount];
  /* Garbage: an address that was never a handle (a stack object), and one past a real handle. */
  char garbage[256];
  memset(garbage, 0x5a, sizeof(garbage));

  CHECK(tsrCreateStream(&stream) == TSR_SUCCESS);
  CHECK(RunAdd(stream, 1u) == 0);

  /* Destroyed stream: every use and a second destroy are errors naming the stream. */
  CHECK(tsrCreateStream(&dead_stream) == TSR_SUCCESS);
  CHECK(tsrDestroyStream(dead_stream) == TSR_SUCCESS);
  CHECK_INVALID(tsrDestroyStream(dead_stream), "tsrDestroyStream: stream 0x");
  CHECK(strstr(tsrGetLastErrorMessage(), "is not a live stream") != NULL);
  CHECK_INVALID(tsrSynchronizeStream(dead_stream), "tsrSynchronizeStream: stream");
  CHECK_INVALID(tsrQueryStream(dead_stream), "is not a live stream");
  CHECK_INVALID(tsrResetStreamError(dead_stream), "is not a live stream");
  CHECK_INVALID(tsrMemsetAsync(garbage, 4, 0, 4, dead_stream), "tsrMemsetAsync: stream");
  CHECK_INVALID(tsrSynchronizeStream((tsrStream)garbage), "is not a live stream");

  /* Events. */
  CHECK(tsrCreateEvent(&event) == TSR_SUCCESS && tsrCreateEvent(&dead_event) == TSR_SUCCESS);
  CHECK(tsrDestroyEvent(dead_event) == TSR_SUCCESS);
  CHECK_INVALID(tsrDestroyEvent(dead_event), "tsrDestroyEvent: event 0x");
  CHECK_INVALID(tsrRecordEvent(dead_event, stream), "is not a live event");
  CHECK_INVALID(tsrRecordEvent(event, dead_stream), "is not a live stream");
  CHECK_INVALID(tsrSynchronizeEvent((tsrEvent)garbage), "is not a live event");
  CHECK_INVALID(tsrStreamWaitEvent(stream, dead_event), "tsrStreamWaitEvent: event");
  CHECK_INVALID(tsrEventElapsedTime(&ms, event, dead_event), "tsrEventElapsedTime: end");
  CHECK_INVALID(tsrEventElapsedTime(NULL, event, event), "ms is NULL");
  CHECK_INVALID(tsrDestroyEvent(NULL), "event is NULL");
  /* A handle of another kind is named as such. */
  CHECK_INVALID(tsrSynchronizeStream((tsrStream)event), "is an event, not a stream");

  /* Tensors. */
  CHECK(tsrMalloc(&dev, sizeof(host)) == TSR_SUCCESS);
  {
    tsrTensor* t = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, dev);
    tsrTensor* other = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, dev);
    CHECK(t != NULL && other != NULL);
    CHECK(tsrDestroyTensor(t) == TSR_SUCCESS);
    CHECK_INVALID(tsrDestroyTensor(t), "tsrDestroyTensor: tensor 0x");
    CHECK_INVALID(tsrGetTensorShape(t, dims, 1, &rank), "is not a live tensor");
    CHECK_INVALID(tsrGetTensorDataType(t, &dtype), "is not a live tensor");
    CHECK_INVALID(tsrGetTensorShape(other, dims, 1, NULL), "rank is NULL");
    CHECK_INVALID(tsrGetTensorDataType(other, NULL), "dtype is NULL");
    CHECK_INVALID(tsrGetTensorAddress(other, NULL), "deviceAddr is NULL");
    CHECK_INVALID(tsrDestroyTensor(NULL), "tensor is NULL");
    CHECK_INVALID(tsrDestroyTensor((const tsrTensor*)garbage), "is not a live tensor");
    /* A destroyed tensor passed to an op. */
    CHECK_INVALID(tsrAddGetWorkspaceSize(t, other, other, &wsSize, &exec), "Add: input 0 0x");
    CHECK_INVALID(tsrAddGetWorkspaceSize(other, other, (tsrTensor*)garbage, &wsSize, &exec),
                  "Add: output 0");
    CHECK(tsrDestroyTensor(other) == TSR_SUCCESS);
  }

  /* Executors: a used single-use executor is gone; destroying it, or a repeatable one twice, is
   * an error, not a double free; a NULL address for a non-empty tensor is refused. */
  {
    tsrTensor* t = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, dev);
    CHECK(t != NULL);
    CHECK(tsrAddGetWorkspaceSize(t, t, t, &wsSize, &exec) == TSR_SUCCESS);
    if (wsSize > 0) CHECK(tsrMalloc(&ws, wsSize) == TSR_SUCCESS);
    CHECK(tsrAdd(ws, wsSize, exec, stream) == TSR_SUCCESS);
    CHECK_INVALID(tsrAdd(ws, wsSize, exec, stream), "tsrOpExecuteAs: executor 0x");
    CHECK_INVALID(tsrDestroyExecutor(exec), "is not a live executor");
    CHECK_INVALID(tsrSetExecutorRepeatable(exec), "is not a live executor");
    CHECK_INVALID(tsrOpExecute(ws, wsSize, (tsrOpExecutor*)garbage, stream), "not a live executor");
    CHECK_INVALID(tsrOpExecute(ws, wsSize, NULL, stream), "executor is NULL");

    CHECK(tsrAddGetWorkspaceSize(t, t, t, &wsSize, &exec) == TSR_SUCCESS);
    CHECK(tsrSetExecutorRepeatable(exec) == TSR_SUCCESS);
    CHECK_INVALID(tsrSetExecutorTensorAddress(exec, 0, NULL), "address of tensor 0 is null");
    CHECK_INVALID(tsrSetExecutorTensorAddress(exec, 3, dev), "out of range");
    CHECK_INVALID(tsrSetExecutorTensorAddress(NULL, 0, dev), "executor is NULL");
    CHECK_INVALID(tsrAdd(ws, wsSize, exec, dead_stream), "is not a live stream");
    CHECK(tsrAdd(ws, wsSize, exec, stream) == TSR_SUCCESS);
    CHECK(tsrDestroyExecutor(exec) == TSR_SUCCESS);
    CHECK_INVALID(tsrDestroyExecutor(exec), "tsrDestroyExecutor: executor 0x");
    CHECK_INVALID(tsrSetExecutorTensorAddress(exec, 0, dev), "is not a live executor");
    CHECK(tsrSynchronizeStream(stream) == TSR_SUCCESS);
    CHECK(tsrDestroyTensor(t) == TSR_SUCCESS);
  }

  /* Workspace pools. */
  CHECK(tsrCreateWorkspacePool(&pool) == TSR_SUCCESS);
  CHECK(tsrDestroyWorkspacePool(pool) == TSR_SUCCESS);
  CHECK_INVALID(tsrDestroyWorkspacePool(pool), "is not a live workspace pool");
  CHECK_INVALID(tsrWorkspacePoolGet(pool, 64, &ws), "is not a live workspace pool");

  /* Checked mode: host memory is refused where device memory is required. */
  CHECK(tsrSetCheckedMode(1) == TSR_SUCCESS);
  {
    float* hostz = (float*)malloc(sizeof(host));
    tsrTensor* t = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, dev);
    tsrTensor* h = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, hostz);
    CHECK(hostz != NULL && t != NULL && h != NULL);
    CHECK_INVALID(tsrAddGetWorkspaceSize(t, t, h, &wsSize, &exec), "do not fit the device");
    CHECK(tsrAddGetWorkspaceSize(t, t, t, &wsSize, &exec) == TSR_SUCCESS);
    CHECK(tsrSetExecutorRepeatable(exec) == TSR_SUCCESS);
    CHECK_INVALID(tsrSetExecutorTensorAddress(exec, 2, hostz), "bytes of device memory");
    if (wsSize > 0) {
      /* A host workspace. */
      CHECK_INVALID(tsrAdd(hostz, wsSize, exec, stream), "bytes of device memory");
    }
    CHECK(tsrAdd(ws, wsSize, exec, stream) == TSR_SUCCESS);
    CHECK(tsrSynchronizeStream(stream) == TSR_SUCCESS);
    CHECK(tsrDestroyExecutor(exec) == TSR_SUCCESS);
    CHECK(tsrDestroyTensor(t) == TSR_SUCCESS && tsrDestroyTensor(h) == TSR_SUCCESS);
    free(hostz);
  }
  CHECK(tsrSetCheckedMode(0) == TSR_SUCCESS);

  /* After all of that the API still computes correct results. */
  CHECK(RunAdd(stream, 99u) == 0);
  if (ws) CHECK(tsrFree(ws) == TSR_SUCCESS);
  CHECK(tsrFree(dev) == TSR_SUCCESS);
  CHECK(tsrDestroyEvent(event) == TSR_SUCCESS);
  CHECK(tsrDestroyStream(stream) == TSR_SUCCESS);
  printf("c_api_misuse: all checks passed\n");
  return 0;
}
