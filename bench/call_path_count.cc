// The instructions of a cache-hit two-stage call, for callgrind (a count that machine load does not
// change). Runs `warm` calls, then `n` calls of the chosen path inside a function that callgrind's
// --toggle-collect counts alone:
//
//   valgrind --tool=callgrind --toggle-collect='*Counted*' --callgrind-out-file=OUT (one line)
//     build/bench/tessera_call_path_count stage1|call|adds|fresh 1000
//
// and divide the total Ir by n. stage1 is tsrAddGetWorkspaceSize + tsrDestroyExecutor on a cache
// hit; call is tsrAddGetWorkspaceSize + tsrAdd + tsrSynchronizeStream of 1024 floats; adds is
// tsrAddsGetWorkspaceSize with a new scalar each call + tsrDestroyExecutor; fresh is stage1 on
// three tensor handles created before and destroyed after each call.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "builtin_nn.h"  // the built-in package's generated op API
#include "tessera/tessera_nn.h"

namespace {

struct AddTensors {
  void* dev[3] = {};
  tsrTensor* t[3] = {};
  bool ok = true;
  AddTensors() {
    const int64_t shape[1] = {1024};
    for (int i = 0; i < 3; ++i) {
      ok = ok && tsrMalloc(&dev[i], 4096) == TSR_SUCCESS &&
           tsrMemset(dev[i], 4096, i, 4096) == TSR_SUCCESS;
      t[i] = tsrCreateTensor(shape, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, dev[i]);
      ok = ok && t[i] != nullptr;
    }
  }
  ~AddTensors() {
    for (int i = 0; i < 3; ++i) {
      tsrDestroyTensor(t[i]);
      tsrFree(dev[i]);
    }
  }
};

__attribute__((noinline)) bool Stage1Loop(const AddTensors& a, long n) {
  for (long i = 0; i < n; ++i) {
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    if (tsrAddGetWorkspaceSize(a.t[0], a.t[1], a.t[2], &ws, &exec) != TSR_SUCCESS ||
        tsrDestroyExecutor(exec) != TSR_SUCCESS) {
      return false;
    }
  }
  return true;
}

__attribute__((noinline)) bool CallLoop(const AddTensors& a, long n) {
  for (long i = 0; i < n; ++i) {
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    if (tsrAddGetWorkspaceSize(a.t[0], a.t[1], a.t[2], &ws, &exec) != TSR_SUCCESS ||
        tsrAdd(nullptr, 0, exec, nullptr) != TSR_SUCCESS ||
        tsrSynchronizeStream(nullptr) != TSR_SUCCESS) {
      return false;
    }
  }
  return true;
}

// Stage 1 of Adds with a new scalar each call (a run-time value: every call is a hit).
__attribute__((noinline)) bool AddsLoop(const AddTensors& a, long n) {
  static double value = 0.5;
  for (long i = 0; i < n; ++i) {
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    value += 1.0;
    if (tsrAddsGetWorkspaceSize(a.t[0], value, a.t[1], &ws, &exec) != TSR_SUCCESS ||
        tsrDestroyExecutor(exec) != TSR_SUCCESS) {
      return false;
    }
  }
  return true;
}

// Stage 1 on tensor handles made for the call and destroyed after it (as aclnn callers do): a hit
// found by the tensors' descriptions.
__attribute__((noinline)) bool FreshLoop(const AddTensors& a, long n) {
  const int64_t shape[1] = {1024};
  for (long i = 0; i < n; ++i) {
    tsrTensor* t[3];
    for (int k = 0; k < 3; ++k)
      t[k] = tsrCreateTensor(shape, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, a.dev[k]);
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    const bool ok = tsrAddGetWorkspaceSize(t[0], t[1], t[2], &ws, &exec) == TSR_SUCCESS &&
                    tsrDestroyExecutor(exec) == TSR_SUCCESS;
    for (int k = 0; k < 3; ++k)
      tsrDestroyTensor(t[k]);
    if (!ok) return false;
  }
  return true;
}

enum class Mode { kStage1, kCall, kAdds, kFresh };

bool Loop(const AddTensors& a, Mode mode, long n) {
  switch (mode) {
    case Mode::kStage1:
      return Stage1Loop(a, n);
    case Mode::kCall:
      return CallLoop(a, n);
    case Mode::kAdds:
      return AddsLoop(a, n);
    default:
      return FreshLoop(a, n);
  }
}

// The counted calls: callgrind's --toggle-collect names this function.
__attribute__((noinline)) bool Counted(const AddTensors& a, Mode mode, long n) {
  return Loop(a, mode, n);
}

}  // namespace

int main(int argc, char** argv) {
  const char* name = argc == 3 ? argv[1] : "";
  const Mode mode = std::strcmp(name, "stage1") == 0 ? Mode::kStage1
                    : std::strcmp(name, "call") == 0 ? Mode::kCall
                    : std::strcmp(name, "adds") == 0 ? Mode::kAdds
                                                     : Mode::kFresh;
  const long n = argc == 3 ? std::strtol(argv[2], nullptr, 10) : 0;
  if ((mode == Mode::kFresh && std::strcmp(name, "fresh") != 0) || n <= 0) {
    std::fprintf(stderr, "usage: %s stage1|call|adds|fresh CALLS\n", argv[0]);
    return 2;
  }
  AddTensors a;
  if (!a.ok) {
    std::fprintf(stderr, "setup failed: %s\n", tsrGetLastErrorMessage());
    return 1;
  }
  // Warm-up: the cache entry, the per-thread memos and pools, and more executors than the handle
  // quarantine holds, so the counted calls are steady-state hits.
  const bool ok = Loop(a, mode, 3000) && Counted(a, mode, n);
  if (!ok) {
    std::fprintf(stderr, "call failed: %s\n", tsrGetLastErrorMessage());
    return 1;
  }
  std::printf("%s: %ld calls\n", argv[1], n);
  return 0;
}
