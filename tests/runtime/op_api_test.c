/* The generated typed C APIs of two packages, from plain C: the built-in package's (tsrAdds with a
 * floating-point attribute) and the example custom package's. Each is pinned to its own package:
 * the custom one is found with no search path set, and the built-in tsrAdd still runs the built-in
 * Add when the custom package (which overrides Add) is first on the search path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin_nn.h"
#include "custom_add_nn.h"

#define CHECK(cond)                                                                \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s (%s)\n", __FILE__, __LINE__, #cond, \
              tsrGetLastErrorMessage());                                           \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

int main(int argc, char** argv) {
  float x[5] = {1.5f, -2.0f, 3.25f, 0.0f, 10.0f}, out[5];
  void *dx = NULL, *dy = NULL, *ws = NULL;
  int64_t shape[1] = {5};
  uint64_t wsSize = 0;
  tsrOpExecutor* exec = NULL;
  tsrWorkspacePool* pool = NULL;
  tsrTensor *tx, *ty;
  if (argc < 2) return 2;
  CHECK(tsrMalloc(&dx, sizeof(x)) == TSR_SUCCESS && tsrMalloc(&dy, sizeof(x)) == TSR_SUCCESS);
  CHECK(tsrMemcpy(dx, sizeof(x), x, sizeof(x), TSR_MEMCPY_HOST_TO_DEVICE) == TSR_SUCCESS);
  tx = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, dx);
  ty = tsrCreateTensor(shape, 1, NULL, TSR_FLOAT, TSR_FORMAT_ND, dy);
  CHECK(tx != NULL && ty != NULL);

  /* Built-in Adds through its generated function: the attribute is a typed (double) parameter. */
  CHECK(tsrAddsGetWorkspaceSize(tx, 2.5, ty, &wsSize, &exec) == TSR_SUCCESS);
  CHECK(tsrAdds(NULL, 0, exec, NULL) == TSR_SUCCESS);
  CHECK(tsrSynchronizeStream(NULL) == TSR_SUCCESS);
  CHECK(tsrMemcpy(out, sizeof(out), dy, sizeof(out), TSR_MEMCPY_DEVICE_TO_HOST) == TSR_SUCCESS);
  for (int i = 0; i < 5; ++i)
    CHECK(out[i] == x[i] + 2.5f);

  /* The custom package's Add with no search path: its op API names its own package. It asks for a
   * workspace, which tells it apart from the built-in Add (none). */
  CHECK(getenv("TESSERA_CUSTOM_OPP_PATH") == NULL);
  CHECK(tsr_custom_add_AddGetWorkspaceSize(tx, tx, ty, &wsSize, &exec) == TSR_SUCCESS);
  CHECK(wsSize > 0);
  CHECK(tsrCreateWorkspacePool(&pool) == TSR_SUCCESS);
  CHECK(tsrWorkspacePoolGet(pool, wsSize, &ws) == TSR_SUCCESS && ws != NULL);
  CHECK(tsr_custom_add_Add(ws, wsSize, exec, NULL) == TSR_SUCCESS);
  CHECK(tsrSynchronizeStream(NULL) == TSR_SUCCESS);
  CHECK(tsrMemcpy(out, sizeof(out), dy, sizeof(out), TSR_MEMCPY_DEVICE_TO_HOST) == TSR_SUCCESS);
  for (int i = 0; i < 5; ++i)
    CHECK(out[i] == 2.0f * x[i]);

  /* The custom package first on the search path: a call by name now gets its Add, the built-in
   * op API still gets the built-in one. */
  setenv("TESSERA_CUSTOM_OPP_PATH", argv[1], 1);
  {
    const tsrTensor* ins[2] = {tx, tx};
    const tsrTensor* outs[1] = {ty};
    CHECK(tsrOpGetWorkspaceSize("Add", ins, 2, outs, 1, NULL, 0, &wsSize, &exec) == TSR_SUCCESS);
    CHECK(wsSize > 0);
    CHECK(tsrDestroyExecutor(exec) == TSR_SUCCESS);
  }
  /* A typed stage 2 refuses another op's executor and leaves it usable. */
  CHECK(tsrMulGetWorkspaceSize(tx, tx, ty, &wsSize, &exec) == TSR_SUCCESS);
  CHECK(tsrAdd(NULL, 0, exec, NULL) == TSR_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tsrGetLastErrorMessage(), "made for op 'Mul', not 'Add'") != NULL);
  CHECK(tsrMul(NULL, 0, exec, NULL) == TSR_SUCCESS);
  CHECK(tsrSynchronizeStream(NULL) == TSR_SUCCESS);
  CHECK(tsrMemcpy(out, sizeof(out), dy, sizeof(out), TSR_MEMCPY_DEVICE_TO_HOST) == TSR_SUCCESS);
  for (int i = 0; i < 5; ++i)
    CHECK(out[i] == x[i] * x[i]);
  CHECK(tsrAddGetWorkspaceSize(tx, tx, ty, &wsSize, &exec) == TSR_SUCCESS);
  CHECK(wsSize == 0);
  CHECK(tsrAdd(NULL, 0, exec, NULL) == TSR_SUCCESS);
  CHECK(tsrSynchronizeStream(NULL) == TSR_SUCCESS);
  CHECK(tsrMemcpy(out, sizeof(out), dy, sizeof(out), TSR_MEMCPY_DEVICE_TO_HOST) == TSR_SUCCESS);
  for (int i = 0; i < 5; ++i)
    CHECK(out[i] == x[i] + x[i]);

  tsrDestroyTensor(tx);
  tsrDestroyTensor(ty);
  tsrFree(dx);
  tsrFree(dy);
  CHECK(tsrDestroyWorkspacePool(pool) == TSR_SUCCESS);
  printf("op_api test: 3 passed, 0 failed\n");
  return 0;
}
