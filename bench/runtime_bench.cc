// Two-stage call overheads on the native profile with the built-in package: stage 1 on a
// parameter-cache hit and miss, and the full GetWorkspaceSize + launch + synchronize of a
// 1024-element Add.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "builtin_nn.h"  // the built-in package's generated op API (tsrAdd, ...)
#include "runtime/package/package.h"
#include "tessera/runtime/op_runtime.h"
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

// Stage 1 on a parameter-cache miss for an op the process already ran: every iteration a shape not
// seen before (ranks 1..8 of leading ones times a 32x32 grid: 8192 distinct keys), so this is the
// cost of finding the op in the packages, tiling and picking the kernel.
void BM_GetWorkspaceSize_CacheMiss(benchmark::State& state) {
  AddTensors a;
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  if (tsrAddGetWorkspaceSize(a.t[0], a.t[1], a.t[2], &ws, &exec) != TSR_SUCCESS) {
    state.SkipWithError(tsrGetLastErrorMessage());
    return;
  }
  tsrDestroyExecutor(exec);
  static int next = 0;  // across repetitions, so every call is a miss
  for (auto _ : state) {
    state.PauseTiming();
    const int n = next++ % 8192;
    int64_t shape[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    const int rank = 2 + n / 1024 % 7;
    shape[rank - 2] = 1 + n % 32;
    shape[rank - 1] = 1 + n / 32 % 32;
    tsrTensor* t[3];
    for (int i = 0; i < 3; ++i)
      t[i] = tsrCreateTensor(shape, rank, nullptr, TSR_FLOAT, TSR_FORMAT_ND, a.dev[i]);
    state.ResumeTiming();
    if (tsrAddGetWorkspaceSize(t[0], t[1], t[2], &ws, &exec) != TSR_SUCCESS) {
      state.SkipWithError(tsrGetLastErrorMessage());
      return;
    }
    state.PauseTiming();
    tsrDestroyExecutor(exec);
    for (int i = 0; i < 3; ++i)
      tsrDestroyTensor(t[i]);
    state.ResumeTiming();
  }
}

// What every miss cost before manifests were cached per process: parsing the built-in package's
// manifest and hashing its kernel library (peers for the miss above, measured in the same run).
void BM_ParseBuiltinManifest(benchmark::State& state) {
  const std::filesystem::path dir = tessera::runtime::BuiltinPackageDir();
  for (auto _ : state) {
    auto m = tessera::runtime::ParseManifestFile(dir / "manifest.json");
    if (!m.ok()) {
      state.SkipWithError(std::string(m.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(m);
  }
}

void BM_Sha256BuiltinKernelLibrary(benchmark::State& state) {
  const std::filesystem::path dir = tessera::runtime::BuiltinPackageDir();
  auto m = tessera::runtime::ParseManifestFile(dir / "manifest.json");
  if (!m.ok()) {
    state.SkipWithError(std::string(m.status().message()).c_str());
    return;
  }
  const std::string bin = m->ops.front().binaries.front().bin_path;
  for (auto _ : state)
    benchmark::DoNotOptimize(tessera::runtime::Sha256File(dir / bin));
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

// Stage 1 of Adds with a new scalar each call: the value is run-time data, so every call is a hit.
void BM_AddsGetWorkspaceSize_NewValue(benchmark::State& state) {
  AddTensors a;
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  double value = 0.5;
  for (int i = 0; i < 2; ++i) {
    if (tsrAddsGetWorkspaceSize(a.t[0], value, a.t[1], &ws, &exec) != TSR_SUCCESS) {
      state.SkipWithError(tsrGetLastErrorMessage());
      return;
    }
    tsrDestroyExecutor(exec);
  }
  tsrRuntimeStats before{}, after{};
  tsrGetRuntimeStats(&before);
  for (auto _ : state) {
    value += 1.0;
    tsrAddsGetWorkspaceSize(a.t[0], value, a.t[1], &ws, &exec);
    tsrDestroyExecutor(exec);
  }
  tsrGetRuntimeStats(&after);
  state.counters["misses"] = static_cast<double>(after.cacheMisses - before.cacheMisses);
}

BENCHMARK(BM_GetWorkspaceSize_CacheHit);
BENCHMARK(BM_AddsGetWorkspaceSize_NewValue);
BENCHMARK(BM_GetWorkspaceSize_CacheMiss)->Iterations(2000);
BENCHMARK(BM_ParseBuiltinManifest);
BENCHMARK(BM_Sha256BuiltinKernelLibrary);
BENCHMARK(BM_TwoStageAdd1024)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
