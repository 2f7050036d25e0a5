// The C API's per-thread memo of calls (c_api_ops.cc) in front of the parameter cache: a repeated
// call is a hit, and anything that changes the plan - a shape, a dtype, an attribute's kind, the
// device profile, a cleared cache - is a miss that prepares the right plan. Executor handles (their
// own arena) are checked as strictly as other handles.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "builtin_nn.h"  // the built-in package's generated op API
#include "tessera/runtime/op_runtime.h"
#include "tessera/tessera_nn.h"

namespace {

std::string LastError() {
  return tsrGetLastErrorMessage();
}

uint64_t Misses() {
  tsrRuntimeStats s{};
  EXPECT_EQ(tsrGetRuntimeStats(&s), TSR_SUCCESS);
  return s.cacheMisses;
}

uint64_t Hits() {
  tsrRuntimeStats s{};
  EXPECT_EQ(tsrGetRuntimeStats(&s), TSR_SUCCESS);
  return s.cacheHits;
}

// A device tensor of `n` elements of 4 bytes, filled from `values` when given.
struct Dev {
  void* mem = nullptr;
  tsrTensor* t = nullptr;
  Dev(int64_t n, tsrDataType dtype, const void* values = nullptr) {
    const size_t bytes = static_cast<size_t>(n) * 4;
    EXPECT_EQ(tsrMalloc(&mem, bytes), TSR_SUCCESS);
    if (values != nullptr) {
      EXPECT_EQ(tsrMemcpy(mem, bytes, values, bytes, TSR_MEMCPY_HOST_TO_DEVICE), TSR_SUCCESS);
    }
    t = tsrCreateTensor(&n, 1, nullptr, dtype, TSR_FORMAT_ND, mem);
    EXPECT_NE(t, nullptr);
  }
  ~Dev() {
    tsrDestroyTensor(t);
    tsrFree(mem);
  }
  template <class T>
  std::vector<T> Read(int64_t n) const {
    std::vector<T> out(static_cast<size_t>(n));
    const size_t bytes = out.size() * sizeof(T);
    EXPECT_EQ(tsrMemcpy(out.data(), bytes, mem, bytes, TSR_MEMCPY_DEVICE_TO_HOST), TSR_SUCCESS);
    return out;
  }
};

// y = a + b through both stages; false (with the error in the log) on failure.
bool RunAdd(const tsrTensor* a, const tsrTensor* b, tsrTensor* y) {
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  return tsrAddGetWorkspaceSize(a, b, y, &ws, &exec) == TSR_SUCCESS &&
         tsrAdd(nullptr, 0, exec, nullptr) == TSR_SUCCESS &&
         tsrSynchronizeStream(nullptr) == TSR_SUCCESS;
}

template <class T>
std::vector<T> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(static_cast<size_t>(n));
  for (T& x : v)
    x = static_cast<T>(static_cast<int>(rng() % 2001) - 1000) / T(4);
  return v;
}

// Sizes change between calls on the same and on new handles: each new shape misses once, then
// hits, and every result is the sum (including after returning to an earlier shape).
TEST(CallMemo, ShapeChangesMissAndResultsStayRight) {
  const int64_t sizes[] = {31, 7, 4097, 31, 1, 7};
  int k = 0;
  for (const int64_t n : sizes) {
    const auto ha = Random<float>(n, 11u + k), hb = Random<float>(n, 97u + k);
    ++k;
    Dev a(n, TSR_FLOAT, ha.data()), b(n, TSR_FLOAT, hb.data()), y(n, TSR_FLOAT);
    for (int rep = 0; rep < 3; ++rep) {
      const uint64_t misses = Misses(), hits = Hits();
      ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
      if (rep > 0) {
        EXPECT_EQ(Misses(), misses) << "n=" << n << " rep " << rep;
        EXPECT_EQ(Hits(), hits + 1);
      }
      const auto out = y.Read<float>(n);
      for (size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(out[i], ha[i] + hb[i]) << "n=" << n << " i=" << i;
    }
  }
}

// A new shape never seen by the cache: exactly one miss, even right after a hit of another shape
// on this thread.
TEST(CallMemo, NewShapeIsAMiss) {
  const int64_t n = 1000 + static_cast<int64_t>(std::random_device{}() % 50000);
  Dev a(31, TSR_FLOAT), b(31, TSR_FLOAT), y(31, TSR_FLOAT);
  ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
  ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
  const auto ha = Random<float>(n, 3), hb = Random<float>(n, 4);
  Dev a2(n, TSR_FLOAT, ha.data()), b2(n, TSR_FLOAT, hb.data()), y2(n, TSR_FLOAT);
  const uint64_t misses = Misses();
  ASSERT_TRUE(RunAdd(a2.t, b2.t, y2.t)) << LastError();
  EXPECT_GE(Misses(), misses + 1);
  const auto out = y2.Read<float>(n);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], ha[i] + hb[i]) << i;
}

// The same shape in another dtype is another plan: int32 sums are exact, float sums too.
TEST(CallMemo, DtypeChangeMisses) {
  const int64_t n = 4097;
  std::mt19937 rng(8);
  std::vector<int32_t> ia(n), ib(n);
  for (int64_t i = 0; i < n; ++i) {
    ia[i] = static_cast<int32_t>(rng() % 200001) - 100000;
    ib[i] = static_cast<int32_t>(rng() % 200001) - 100000;
  }
  const auto fa = Random<float>(n, 1), fb = Random<float>(n, 2);
  Dev a(n, TSR_FLOAT, fa.data()), b(n, TSR_FLOAT, fb.data()), y(n, TSR_FLOAT);
  Dev ai(n, TSR_INT32, ia.data()), bi(n, TSR_INT32, ib.data()), yi(n, TSR_INT32);
  for (int rep = 0; rep < 3; ++rep) {
    ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
    ASSERT_TRUE(RunAdd(ai.t, bi.t, yi.t)) << LastError();
    const auto f = y.Read<float>(n);
    const auto i32 = yi.Read<int32_t>(n);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(f[i], fa[i] + fb[i]) << i;
      ASSERT_EQ(i32[i], ia[i] + ib[i]) << i;
    }
  }
  // Mixed dtypes are refused on every call, never taken from a remembered plan.
  for (int rep = 0; rep < 2; ++rep) {
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    EXPECT_NE(tsrAddGetWorkspaceSize(a.t, bi.t, y.t, &ws, &exec), TSR_SUCCESS);
    EXPECT_EQ(exec, nullptr);
  }
}

// A run-time attribute's value changes hit; its kind is part of the call, so passing it as an int
// after floats is refused instead of reusing the float call's entry.
TEST(CallMemo, AttributeKindChangeIsNotAHit) {
  const int64_t n = 33;
  const auto hx = Random<float>(n, 5);
  Dev x(n, TSR_FLOAT, hx.data()), y(n, TSR_FLOAT);
  const tsrTensor* in[1] = {x.t};
  const tsrTensor* out[1] = {y.t};
  for (int rep = 0; rep < 3; ++rep) {
    tsrAttr attr{};
    attr.name = "value";
    attr.type = TSR_ATTR_FLOAT;
    attr.floatValue = 0.5f + static_cast<float>(rep);
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    ASSERT_EQ(tsrOpGetWorkspaceSize("Adds", in, 1, out, 1, &attr, 1, &ws, &exec), TSR_SUCCESS)
        << LastError();
    ASSERT_EQ(tsrOpExecute(nullptr, 0, exec, nullptr), TSR_SUCCESS) << LastError();
    ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS);
    const auto r = y.Read<float>(n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(r[i], hx[i] + attr.floatValue) << i;
  }
  tsrAttr as_int{};
  as_int.name = "value";
  as_int.type = TSR_ATTR_INT;
  as_int.intValue = 3;
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  EXPECT_EQ(tsrOpGetWorkspaceSize("Adds", in, 1, out, 1, &as_int, 1, &ws, &exec),
            TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("value"), std::string::npos) << LastError();
  EXPECT_EQ(exec, nullptr);
  // An attribute the op does not have: refused on the call after the hits too.
  tsrAttr two[2] = {};
  two[0].name = "value";
  two[0].type = TSR_ATTR_FLOAT;
  two[0].floatValue = 1.0f;
  two[1].name = "no_such_attr";
  two[1].type = TSR_ATTR_FLOAT;
  EXPECT_NE(tsrOpGetWorkspaceSize("Adds", in, 1, out, 1, two, 2, &ws, &exec), TSR_SUCCESS);
  EXPECT_EQ(exec, nullptr);
}

// A cleared cache and a changed device profile both make the next call prepare again.
TEST(CallMemo, ClearedCacheAndProfileChangeMiss) {
  const int64_t n = 129;
  const auto ha = Random<float>(n, 21), hb = Random<float>(n, 22);
  Dev a(n, TSR_FLOAT, ha.data()), b(n, TSR_FLOAT, hb.data()), y(n, TSR_FLOAT);
  ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
  ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
  tessera::runtime::ClearParamCache();
  uint64_t misses = Misses();
  ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
  EXPECT_EQ(Misses(), misses + 1);
  ASSERT_EQ(tsrSetProfile("ascend910b"), TSR_SUCCESS) << LastError();
  misses = Misses();
  ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
  EXPECT_EQ(Misses(), misses + 1);
  // Back on native: the memo misses (another activation of the profile) and the shared cache
  // still holds native's plan.
  ASSERT_EQ(tsrSetProfile("native"), TSR_SUCCESS) << LastError();
  misses = Misses();
  const uint64_t hits = Hits();
  ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
  EXPECT_EQ(Misses(), misses);
  EXPECT_EQ(Hits(), hits + 1);
  const auto out = y.Read<float>(n);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], ha[i] + hb[i]) << i;
}

// Another thread switches the profile back and forth while this one repeats a call. Whenever no
// switch overlapped a stage 1 and its execution, the plan must be the current profile's: neither
// the shared cache, the per-thread plan memo nor the call memo may keep a plan under the other
// profile (it would fail every repeat with "prepared for device profile ..."). Results are checked
// at the end.
TEST(CallMemo, SetProfileOnAnotherThreadNeverLeavesAStalePlan) {
  const int64_t n = 37;
  const auto ha = Random<float>(n, 41), hb = Random<float>(n, 42);
  Dev a(n, TSR_FLOAT, ha.data()), b(n, TSR_FLOAT, hb.data()), y(n, TSR_FLOAT);
  std::atomic<uint64_t> switches{0};  // odd while a switch is under way
  std::atomic<bool> stop{false};
  std::thread switcher([&] {
    const char* names[2] = {"ascend910b", "native"};
    for (int i = 0; !stop.load(); ++i) {
      switches.fetch_add(1);
      (void)tsrSetProfile(names[i % 2]);  // refused while a launch is in flight: fine
      switches.fetch_add(1);
      std::this_thread::yield();
    }
  });
  int stale = 0;
  std::string stale_error;
  for (int i = 0; i < 4000 && stale == 0; ++i) {
    const uint64_t before = switches.load();
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    if (tsrAddGetWorkspaceSize(a.t, b.t, y.t, &ws, &exec) != TSR_SUCCESS) continue;
    const tsrStatus st = tsrAdd(nullptr, 0, exec, nullptr);
    const std::string error = st == TSR_SUCCESS ? "" : LastError();
    (void)tsrSynchronizeStream(nullptr);
    if (st != TSR_SUCCESS && before % 2 == 0 && switches.load() == before) {
      ++stale;
      stale_error = error;
    }
  }
  stop = true;
  switcher.join();
  EXPECT_EQ(stale, 0) << stale_error;
  ASSERT_EQ(tsrSetProfile("native"), TSR_SUCCESS) << LastError();
  ASSERT_TRUE(RunAdd(a.t, b.t, y.t)) << LastError();
  const auto out = y.Read<float>(n);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], ha[i] + hb[i]) << i;
}

// Tensors destroyed and new ones of another shape made on the same memory, after enough other
// handles that the handle addresses come round again: a repeat of the call by its handles must
// not take the old shape's plan.
TEST(CallMemo, NewTensorsAtOldHandleAddressesGetTheirOwnPlan) {
  const int64_t n1 = 64, n2 = 3001;
  const auto ha = Random<float>(n2, 51), hb = Random<float>(n2, 52);
  Dev a(n2, TSR_FLOAT, ha.data()), b(n2, TSR_FLOAT, hb.data()), y(n2, TSR_FLOAT);
  void* mems[3] = {a.mem, b.mem, y.mem};
  tsrTensor* t[3];
  for (int k = 0; k < 3; ++k)
    t[k] = tsrCreateTensor(&n1, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, mems[k]);
  for (int r = 0; r < 3; ++r)
    ASSERT_TRUE(RunAdd(t[0], t[1], t[2])) << LastError();
  const tsrTensor* old[3] = {t[0], t[1], t[2]};
  std::vector<tsrTensor*> others;
  for (int i = 0; i < 1100; ++i) {
    const int64_t one = 1;
    others.push_back(tsrCreateTensor(&one, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, a.mem));
  }
  for (tsrTensor* x : t)
    ASSERT_EQ(tsrDestroyTensor(x), TSR_SUCCESS);
  for (tsrTensor* x : others)
    ASSERT_EQ(tsrDestroyTensor(x), TSR_SUCCESS);
  others.clear();
  int reused = 0;
  for (int k = 0; k < 3; ++k) {
    for (int tries = 0; tries < 4000; ++tries) {
      t[k] = tsrCreateTensor(&n2, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, mems[k]);
      if (t[k] == old[k]) break;
      others.push_back(t[k]);
    }
    reused += t[k] == old[k];
  }
  ASSERT_TRUE(RunAdd(t[0], t[1], t[2])) << LastError();
  const auto out = y.Read<float>(n2);
  for (int64_t i = 0; i < n2; ++i)
    ASSERT_EQ(out[i], ha[i] + hb[i]) << i << " (" << reused << " of 3 handles reused)";
  for (tsrTensor* x : others)
    tsrDestroyTensor(x);
  for (tsrTensor* x : t)
    tsrDestroyTensor(x);
}

// A repeat of a call whose output count is absurd fails on the full path's check (no read past
// the caller's arrays).
TEST(CallMemo, AbsurdOutputCountOnARepeatIsRefused) {
  Dev a(16, TSR_FLOAT), y(16, TSR_FLOAT);
  const tsrTensor* in[1] = {a.t};
  const tsrTensor* out[1] = {y.t};
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  for (uint64_t outputs : {uint64_t{1}, UINT64_MAX, uint64_t{1} << 63}) {
    const tsrStatus st = tsrOpGetWorkspaceSize("Relu", in, 1, out, outputs, nullptr, 0, &ws, &exec);
    if (outputs == 1) {
      ASSERT_EQ(st, TSR_SUCCESS) << LastError();
      ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
    } else {
      EXPECT_EQ(st, TSR_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(LastError().find("outputs"), std::string::npos) << LastError();
    }
  }
}

// Executor handles: a run single-use executor, a destroyed one and one destroyed a thousand
// executors ago are all reported as not live; a tensor passed as an executor and an executor
// passed as a tensor name the kinds.
TEST(CallMemo, ExecutorReuseIsReported) {
  const int64_t n = 16;
  Dev a(n, TSR_FLOAT), b(n, TSR_FLOAT), y(n, TSR_FLOAT);
  uint64_t ws = 0;
  tsrOpExecutor* run = nullptr;
  ASSERT_EQ(tsrAddGetWorkspaceSize(a.t, b.t, y.t, &ws, &run), TSR_SUCCESS) << LastError();
  ASSERT_EQ(tsrAdd(nullptr, 0, run, nullptr), TSR_SUCCESS) << LastError();
  EXPECT_EQ(tsrAdd(nullptr, 0, run, nullptr), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("is not a live executor"), std::string::npos) << LastError();
  tsrOpExecutor* destroyed = nullptr;
  ASSERT_EQ(tsrAddGetWorkspaceSize(a.t, b.t, y.t, &ws, &destroyed), TSR_SUCCESS) << LastError();
  ASSERT_EQ(tsrDestroyExecutor(destroyed), TSR_SUCCESS);
  EXPECT_EQ(tsrDestroyExecutor(destroyed), TSR_ERROR_INVALID_ARGUMENT);
  for (int i = 0; i < 1000; ++i) {
    tsrOpExecutor* other = nullptr;
    ASSERT_EQ(tsrAddGetWorkspaceSize(a.t, b.t, y.t, &ws, &other), TSR_SUCCESS) << LastError();
    ASSERT_NE(other, destroyed) << "a destroyed executor's handle was reused after " << i;
    ASSERT_EQ(tsrDestroyExecutor(other), TSR_SUCCESS);
  }
  EXPECT_EQ(tsrAdd(nullptr, 0, destroyed, nullptr), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("is not a live executor"), std::string::npos) << LastError();
  tsrOpExecutor* live = nullptr;
  ASSERT_EQ(tsrAddGetWorkspaceSize(a.t, b.t, y.t, &ws, &live), TSR_SUCCESS) << LastError();
  EXPECT_EQ(tsrDestroyTensor(reinterpret_cast<const tsrTensor*>(live)), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("is an executor, not a tensor"), std::string::npos) << LastError();
  EXPECT_EQ(tsrDestroyExecutor(reinterpret_cast<tsrOpExecutor*>(a.t)), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("is a tensor, not an executor"), std::string::npos) << LastError();
  EXPECT_EQ(tsrDestroyExecutor(live), TSR_SUCCESS);
}

// Threads with their own memos, sharing input tensors, each over its own sizes; one thread also
// destroys and recreates its tensors every call (no handle matches, descriptions do).
TEST(CallMemo, ConcurrentThreadsGetTheirOwnResults) {
  const int64_t n = 1031;
  const auto ha = Random<float>(n, 31), hb = Random<float>(n, 32);
  Dev a(n, TSR_FLOAT, ha.data()), b(n, TSR_FLOAT, hb.data());
  std::vector<std::thread> threads;
  std::vector<std::string> failures(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const int64_t len = t == 0 ? n : 1 + 97 * t;
      for (int i = 0; i < 200 && failures[t].empty(); ++i) {
        Dev y(len, TSR_FLOAT);
        const int64_t shape[1] = {len};
        tsrTensor* x1 = tsrCreateTensor(shape, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, a.mem);
        tsrTensor* x2 = tsrCreateTensor(shape, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, b.mem);
        uint64_t ws = 0;
        tsrOpExecutor* exec = nullptr;
        tsrStream stream = nullptr;
        if (tsrCreateStream(&stream) != TSR_SUCCESS ||
            tsrAddGetWorkspaceSize(x1, x2, y.t, &ws, &exec) != TSR_SUCCESS ||
            tsrAdd(nullptr, 0, exec, stream) != TSR_SUCCESS ||
            tsrSynchronizeStream(stream) != TSR_SUCCESS) {
          failures[t] = LastError();
        }
        tsrDestroyStream(stream);
        tsrDestroyTensor(x1);
        tsrDestroyTensor(x2);
        const auto out = y.Read<float>(len);
        for (int64_t k = 0; k < len && failures[t].empty(); ++k) {
          if (out[k] != ha[k] + hb[k]) failures[t] = "wrong sum at " + std::to_string(k);
        }
      }
    });
  }
  for (auto& th : threads)
    th.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace
