/* Calls first_package's Axpy from C through the package's generated API (first_package_nn.h):
 * y = alpha * x1 + x2 on random float32 and bfloat16 data, checked against a scalar loop. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "first_package_nn.h"

#define N 4097

static uint16_t ToBf16(float f) { /* round to nearest even */
  uint32_t u;
  memcpy(&u, &f, sizeof(u));
  return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
static float FromBf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof(f));
  return f;
}

/* Runs Axpy on n elements of `dtype` (TSR_FLOAT or TSR_BF16) held as floats in x1, x2; the
 * result goes to y. Returns 0 on success. */
static int Axpy(tsrDataType dtype, const float* x1, const float* x2, double alpha, float* y,
                int64_t n) {
  const size_t elem = dtype == TSR_FLOAT ? 4 : 2;
  const size_t bytes = (size_t)n * elem;
  unsigned char host[3][N * 4];
  void* dev[3] = {NULL, NULL, NULL};
  tsrTensor* t[3] = {NULL, NULL, NULL};
  uint64_t ws_size = 0;
  tsrOpExecutor* exec = NULL;
  void* ws = NULL;
  int rc = 1;
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == TSR_FLOAT) {
      memcpy(host[0] + 4 * i, &x1[i], 4);
      memcpy(host[1] + 4 * i, &x2[i], 4);
    } else {
      const uint16_t a = ToBf16(x1[i]), b = ToBf16(x2[i]);
      memcpy(host[0] + 2 * i, &a, 2);
      memcpy(host[1] + 2 * i, &b, 2);
    }
  }
  for (int k = 0; k < 3; ++k) {
    if (tsrMalloc(&dev[k], bytes) != TSR_SUCCESS) goto done;
    t[k] = tsrCreateTensor(&n, 1, NULL, dtype, TSR_FORMAT_ND, dev[k]);
    if (t[k] == NULL) goto done;
  }
  for (int k = 0; k < 2; ++k) {
    if (tsrMemcpy(dev[k], bytes, host[k], bytes, TSR_MEMCPY_HOST_TO_DEVICE) != TSR_SUCCESS)
      goto done;
  }
  /* Stage 1: inputs, attributes, outputs, then the workspace size and executor. */
  if (tsr_first_package_AxpyGetWorkspaceSize(t[0], t[1], alpha, t[2], &ws_size, &exec) !=
      TSR_SUCCESS)
    goto done;
  if (ws_size > 0 && tsrMalloc(&ws, ws_size) != TSR_SUCCESS) goto done;
  /* Stage 2: enqueue on the default stream, then wait. */
  if (tsr_first_package_Axpy(ws, ws_size, exec, NULL) != TSR_SUCCESS) goto done;
  if (tsrSynchronizeStream(NULL) != TSR_SUCCESS) goto done;
  if (tsrMemcpy(host[2], bytes, dev[2], bytes, TSR_MEMCPY_DEVICE_TO_HOST) != TSR_SUCCESS) goto done;
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    if (dtype == TSR_FLOAT) {
      memcpy(&y[i], host[2] + 4 * i, 4);
    } else {
      memcpy(&h, host[2] + 2 * i, 2);
      y[i] = FromBf16(h);
    }
  }
  rc = 0;
done:
  if (rc != 0) fprintf(stderr, "Axpy failed: %s\n", tsrGetLastErrorMessage());
  for (int k = 0; k < 3; ++k) {
    if (t[k] != NULL) tsrDestroyTensor(t[k]);
    if (dev[k] != NULL) tsrFree(dev[k]);
  }
  if (ws != NULL) tsrFree(ws);
  return rc;
}

int main(void) {
  static float x1[N], x2[N], y[N];
  const double alpha = 0.75;
  uint32_t seed = 12345u;
  int failures = 0;
  for (int i = 0; i < N; ++i) { /* random values in [-4, 4) */
    seed = seed * 1664525u + 1013904223u;
    x1[i] = (float)(seed >> 8) / (float)(1u << 24) * 8.0f - 4.0f;
    seed = seed * 1664525u + 1013904223u;
    x2[i] = (float)(seed >> 8) / (float)(1u << 24) * 8.0f - 4.0f;
  }
  for (int d = 0; d < 2; ++d) {
    const tsrDataType dtype = d == 0 ? TSR_FLOAT : TSR_BF16;
    const char* name = d == 0 ? "float32" : "bfloat16";
    /* bfloat16 inputs are rounded before the op sees them, and so is its result. */
    const double tolerance = d == 0 ? 1e-6 : 1.0 / 256;
    double max_error = 0.0;
    if (Axpy(dtype, x1, x2, alpha, y, N) != 0) return 1;
    for (int i = 0; i < N; ++i) {
      const float a = d == 0 ? x1[i] : FromBf16(ToBf16(x1[i]));
      const float b = d == 0 ? x2[i] : FromBf16(ToBf16(x2[i]));
      const double want = alpha * a + b;
      const double error = fabs(y[i] - want) / fmax(1.0, fabs(want));
      if (error > max_error) max_error = error;
    }
    printf("Axpy %s, %d elements, alpha %.2f: max relative error %.3g (%s)\n", name, N, alpha,
           max_error, max_error <= tolerance ? "ok" : "WRONG");
    failures += max_error <= tolerance ? 0 : 1;
  }
  return failures == 0 ? 0 : 1;
}
