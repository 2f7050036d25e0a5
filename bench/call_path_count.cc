// The instructions of a cache-hit two-stage call, for callgrind (a count that machine load does not
// change). Runs `warm` calls, then `n` calls of the chosen path inside a function that callgrind's
// --toggle-collect counts alone:
//
//   valgrind --tool=callgrind --toggle-collect='*Counted*' --callgrind-out-file=OUT (one line)
//     build/bench/tessera_call_path_count stage1|call 1000
//
// and divide the total Ir by n. stage1 is tsrAddGetWorkspaceSize + tsrDestroyExecutor on a cache
// hit; call is tsrAddGetWorkspaceSize + tsrAdd + tsrSynchronizeStream of 1024 floats.
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

// The counted calls: callgrind's --toggle-collect names this function.
__attribute__((noinline)) bool Counted(const AddTensors& a, bool stage1, long n) {
  return stage1 ? Stage1Loop(a, n) : CallLoop(a, n);
}

}  // namespace

int main(int argc, char** argv) {
  const bool stage1 = argc == 3 && std::strcmp(argv[1], "stage1") == 0;
  const bool call = argc == 3 && std::strcmp(argv[1], "call") == 0;
  const long n = argc == 3 ? std::strtol(argv[2], nullptr, 10) : 0;
  if ((!stage1 && !call) || n <= 0) {
    std::fprintf(stderr, "usage: %s stage1|call CALLS\n", argv[0]);
    return 2;
  }
  AddTensors a;
  if (!a.ok) {
    std::fprintf(stderr, "setup failed: %s\n", tsrGetLastErrorMessage());
    return 1;
  }
  // Warm-up: the cache entry, the per-thread memos and pools, and more executors than the handle
  // quarantine holds, so the counted calls are steady-state hits.
  const bool ok = (stage1 ? Stage1Loop(a, 3000) : CallLoop(a, 3000)) && Counted(a, stage1, n);
  if (!ok) {
    std::fprintf(stderr, "call failed: %s\n", tsrGetLastErrorMessage());
    return 1;
  }
  std::printf("%s: %ld calls\n", argv[1], n);
  return 0;
}
