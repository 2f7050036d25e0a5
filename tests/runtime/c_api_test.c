/* The C API from plain C: device memory round trip, streams, events, tensors and errors. */
#include <stdio.h>
#include <string.h>

#include "tessera/tessera_nn.h"

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              tsrGetLastErrorMessage());                                                       \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

int main(void) {
  float host[1000], back[1000];
  void* dev = NULL;
  tsrStream stream = NULL;
  tsrEvent start = NULL, end = NULL;
  float ms = -1.0f;
  int64_t shape[2] = {10, 100};
  int64_t dims[8];
  uint64_t rank = 0;
  tsrDataType dtype;
  void* addr = NULL;
  tsrTensor* t;
  for (int i = 0; i < 1000; ++i)
    host[i] = (float)i * 0.25f - 7.0f;

  CHECK(tsrMalloc(&dev, sizeof(host)) == TSR_SUCCESS);
  CHECK(tsrCreateStream(&stream) == TSR_SUCCESS);
  CHECK(tsrCreateEvent(&start) == TSR_SUCCESS && tsrCreateEvent(&end) == TSR_SUCCESS);
  CHECK(tsrRecordEvent(start, stream) == TSR_SUCCESS);
  CHECK(tsrMemcpyAsync(dev, sizeof(host), host, sizeof(host), TSR_MEMCPY_HOST_TO_DEVICE, stream) ==
        TSR_SUCCESS);
  CHECK(tsrMemsetAsync(dev, sizeof(host), 0, 16, stream) == TSR_SUCCESS);
  CHECK(tsrRecordEvent(end, stream) == TSR_SUCCESS);
  CHECK(tsrSynchronizeStream(stream) == TSR_SUCCESS);
  CHECK(tsrEventElapsedTime(&ms, start, end) == TSR_SUCCESS && ms >= 0.0f);
  CHECK(tsrMemcpy(back, sizeof(back), dev, sizeof(back), TSR_MEMCPY_DEVICE_TO_HOST) == TSR_SUCCESS);
  for (int i = 0; i < 4; ++i)
    CHECK(back[i] == 0.0f);
  for (int i = 4; i < 1000; ++i)
    CHECK(back[i] == host[i]);

  t = tsrCreateTensor(shape, 2, NULL, TSR_FLOAT, TSR_FORMAT_ND, dev);
  CHECK(t != NULL);
  CHECK(tsrGetTensorShape(t, dims, 8, &rank) == TSR_SUCCESS && rank == 2 && dims[1] == 100);
  CHECK(tsrGetTensorDataType(t, &dtype) == TSR_SUCCESS && dtype == TSR_FLOAT);
  CHECK(tsrGetTensorAddress(t, &addr) == TSR_SUCCESS && addr == dev);
  CHECK(tsrDestroyTensor(t) == TSR_SUCCESS);

  /* Errors carry a message naming what was wrong. */
  CHECK(tsrMemcpy(back, 8, dev, 16, TSR_MEMCPY_DEVICE_TO_HOST) == TSR_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tsrGetLastErrorMessage(), "exceeds dst_max") != NULL);
  CHECK(tsrCreateTensor(shape, 9, NULL, TSR_FLOAT, TSR_FORMAT_ND, dev) == NULL);
  CHECK(strstr(tsrGetLastErrorMessage(), "rank 9 exceeds the maximum 8") != NULL);
  CHECK(tsrCreateTensor(shape, 2, NULL, (tsrDataType)5, TSR_FORMAT_ND, dev) == NULL);
  CHECK(strstr(tsrGetLastErrorMessage(), "dtype code 5") != NULL);
  CHECK(tsrCreateTensor(shape, 2, NULL, TSR_FLOAT, TSR_FORMAT_ND, NULL) == NULL);
  CHECK(tsrSetProfile("tpu") == TSR_ERROR_NOT_FOUND);
  CHECK(tsrMalloc(NULL, 16) == TSR_ERROR_INVALID_ARGUMENT);
  CHECK(tsrFree(host) == TSR_ERROR_INVALID_ARGUMENT);

  CHECK(tsrDestroyEvent(start) == TSR_SUCCESS && tsrDestroyEvent(end) == TSR_SUCCESS);
  CHECK(tsrDestroyStream(stream) == TSR_SUCCESS);
  CHECK(tsrFree(dev) == TSR_SUCCESS);
  printf("C API test: 1 passed, 0 failed\n");
  return 0;
}
