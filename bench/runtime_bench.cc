// Two-stage call overheads on the native profile with the built-in package: stage 1 on a
// parameter-cache hit, and the full GetWorkspaceSize + launch + synchronize of a 1024-element Add.
#include <benchmark/benchmark.h>

#include <vector>

#include "builtin_nn.h"  // the built-in package's generated op API (tsrAdd, ...)
#include "tessera/tessera_nn.h"

namespace {

struct AddTensors {
  void* dev[3] = {};
  tsrTensor* t[3] = {};
  AddTensors() {
    const int64_t shape[1] = {1024};
    for (int i = 0; i < 3; ++i) {
      tsrMalloc(&dev[i], 4096);
      tsrMemset(dev[i], 4096, 0, 4096);
      t[i] = tsrCreateTensor(shape, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, dev[i]);
    }
  }
  ~AddTensors() {
    for (int i = 0; i < 3; ++i) {
      tsrDestroyTensor(t[i]);
      tsrFree(dev[i]);
    }
  }
};

void BM_GetWorkspaceSize_CacheHit(benchmark::State& state) {
  AddTensors a;
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  if (tsrAddGetWorkspaceSize(a.t[0], a.t[1], a.t[2], &ws, &exec) != TSR_SUCCESS) {
    state.SkipWithError(tsrGetLastErrorMessage());
    return;
  }
  tsrDestroyExecutor(exec);
  for (auto _ : state) {
    tsrAddGetWorkspaceSize(a.t[0], a.t[1], a.t[2], &ws, &exec);
    tsrDestroyExecutor(exec);
  }
}

void BM_TwoStageAdd1024(benchmark::State& state) {
  AddTensors a;
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  for (auto _ : state) {
    if (tsrAddGetWorkspaceSize(a.t[0], a.t[1], a.t[2], &ws, &exec) != TSR_SUCCESS ||
        tsrAdd(nullptr, 0, exec, nullptr) != TSR_SUCCESS ||
        tsrSynchronizeStream(nullptr) != TSR_SUCCESS) {
      state.SkipWithError(tsrGetLastErrorMessage());
      return;
    }
  }
}

BENCHMARK(BM_GetWorkspaceSize_CacheHit);
BENCHMARK(BM_TwoStageAdd1024)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
