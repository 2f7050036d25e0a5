/* Runs Add on 4097 random floats through the installed runtime and built-in package, found with
 * no environment variable, and checks every element against a scalar sum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera/tessera_nn.h>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    tsrStatus s_ = (call);                                                               \
    if (s_ != TSR_SUCCESS) {                                                             \
      fprintf(stderr, "%s failed (%d): %s\n", #call, (int)s_, tsrGetLastErrorMessage()); \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

enum { kCount = 4097 };

int main(void) {
  static float x[kCount], y[kCount], z[kCount];
  uint32_t state = 12345u;
  for (int i = 0; i < kCount; ++i) {
    state = state * 1664525u + 1013904223u;
    x[i] = (float)(state >> 8) / 16777216.0f - 0.5f;
    state = state * 1664525u + 1013904223u;
    y[i] = (float)(state >> 8) / 8388608.0f - 1.0f;
  }
  void *dx, *dy, *dz;
  CHECK(tsrMalloc(&dx, sizeof x));
  CHECK(tsrMalloc(&dy, sizeof y));
  CHECK(tsrMalloc(&dz, sizeof z));
  CHECK(tsrMemcpy(dx, sizeof x, x, sizeof x, TSR_MEMCPY_HOST_TO_DEVICE));
  CHECK(tsrMemcpy(dy, sizeof y, y, sizeof y, TSR_MEMCPY_HOST_TO_DEVICE));
  const int64_t shape[1] = {kCount};
  const tsrTensor* in[2] = {tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, dx),
                            tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, dy)};
  const tsrTensor* out[1] = {tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, dz)};
  if (in[0] == NULL || in[1] == NULL || out[0] == NULL) {
    fprintf(stderr, "tsrCreateTensor: %s\n", tsrGetLastErrorMessage());
    return 1;
  }
  tsrStream stream;
  CHECK(tsrCreateStream(&stream));
  uint64_t workspaceSize = 0;
  tsrOpExecutor* executor = NULL;
  CHECK(tsrOpGetWorkspaceSize("Add", in, 2, out, 1, NULL, 0, &workspaceSize, &executor));
  void* workspace = NULL;
  if (workspaceSize > 0) CHECK(tsrMalloc(&workspace, workspaceSize));
  CHECK(tsrOpExecute(workspace, workspaceSize, executor, stream));
  CHECK(tsrSynchronizeStream(stream));
  CHECK(tsrMemcpy(z, sizeof z, dz, sizeof z, TSR_MEMCPY_DEVICE_TO_HOST));
  int wrong = 0;
  for (int i = 0; i < kCount; ++i)
    wrong += z[i] != x[i] + y[i];
  if (wrong != 0) {
    fprintf(stderr, "installed Add: %d of %d elements differ from x + y\n", wrong, kCount);
    return 1;
  }
  if (workspace != NULL) CHECK(tsrFree(workspace));
  for (int i = 0; i < 2; ++i)
    CHECK(tsrDestroyTensor(in[i]));
  CHECK(tsrDestroyTensor(out[0]));
  CHECK(tsrDestroyStream(stream));
  CHECK(tsrFree(dx));
  CHECK(tsrFree(dy));
  CHECK(tsrFree(dz));
  printf("installed Add: %d elements match\n", kCount);
  return 0;
}
