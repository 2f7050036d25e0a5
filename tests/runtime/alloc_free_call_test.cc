// A repeated two-stage call on a parameter-cache hit allocates nothing: this program replaces the
// C allocator's entry points (every operator new ends in them) with counting forwarders to glibc's
// and counts, over many calls of stage 1 + stage 2 + synchronize, the allocations made by any
// thread. A count, not a time. Built without sanitizers only (they own malloc).
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "builtin_nn.h"  // the built-in package's generated op API
#include "tessera/tessera_nn.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TESSERA_COUNTING_MALLOC 0
#else
#define TESSERA_COUNTING_MALLOC 1
#endif

namespace {
std::atomic<bool> g_counting{false};
std::atomic<uint64_t> g_allocations{0};

void Count() {
  if (g_counting.load(std::memory_order_relaxed))
    g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#if TESSERA_COUNTING_MALLOC
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);

void* malloc(size_t size) {
  Count();
  return __libc_malloc(size);
}
void* calloc(size_t n, size_t size) {
  Count();
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t size) {
  Count();
  return __libc_realloc(p, size);
}
void* memalign(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  Count();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return 12;  // ENOMEM
  *out = p;
  return 0;
}
}
#endif

namespace {

struct DevTensor {
  void* dev = nullptr;
  tsrTensor* t = nullptr;
  DevTensor(int64_t n, tsrDataType dtype) {
    EXPECT_EQ(tsrMalloc(&dev, static_cast<size_t>(n) * 4), TSR_SUCCESS);
    t = tsrCreateTensor(&n, 1, nullptr, dtype, TSR_FORMAT_ND, dev);
  }
  ~DevTensor() {
    tsrDestroyTensor(t);
    tsrFree(dev);
  }
};

// Runs `call` `warm` times, then counts the allocations of `counted` more.
template <class Call>
uint64_t AllocationsPerCalls(int warm, int counted, Call call) {
  for (int i = 0; i < warm; ++i) {
    if (!call()) return UINT64_MAX;
  }
  g_allocations.store(0);
  g_counting.store(true);
  for (int i = 0; i < counted; ++i) {
    if (!call()) break;
  }
  g_counting.store(false);
  return g_allocations.load();
}

TEST(AllocFreeCallTest, CountingReallyCounts) {
  if (!TESSERA_COUNTING_MALLOC) GTEST_SKIP() << "sanitizers own malloc";
  static int* volatile sink = nullptr;  // escapes, so the allocation cannot be elided
  const uint64_t n = AllocationsPerCalls(0, 10, [] {
    sink = new int[25];
    delete[] sink;
    return true;
  });
  EXPECT_EQ(n, 10u);
}

// The whole call - stage 1 on a cache hit, stage 2 with its kernel, synchronize - allocates
// nothing, for a one-block launch that runs on the calling thread (1024, 4097 elements) and for a
// launch whose blocks run on the worker threads (65543 elements: two blocks), on the default
// stream and on a created one.
class AddCallAllocTest : public ::testing::TestWithParam<std::tuple<int64_t, bool>> {};

TEST_P(AddCallAllocTest, CacheHitCallAllocatesNothing) {
  if (!TESSERA_COUNTING_MALLOC) GTEST_SKIP() << "sanitizers own malloc";
  const auto [n, own_stream] = GetParam();
  const size_t bytes = static_cast<size_t>(n) * 4;
  DevTensor a(n, TSR_FLOAT), b(n, TSR_FLOAT), c(n, TSR_FLOAT);
  std::mt19937 rng(static_cast<uint32_t>(n));
  std::vector<float> ha(static_cast<size_t>(n)), hb(static_cast<size_t>(n));
  for (size_t i = 0; i < ha.size(); ++i) {
    ha[i] = static_cast<float>(rng() % 1000) * 0.5f;
    hb[i] = static_cast<float>(rng() % 1000) * 0.25f;
  }
  ASSERT_EQ(tsrMemcpy(a.dev, bytes, ha.data(), bytes, TSR_MEMCPY_HOST_TO_DEVICE), TSR_SUCCESS);
  ASSERT_EQ(tsrMemcpy(b.dev, bytes, hb.data(), bytes, TSR_MEMCPY_HOST_TO_DEVICE), TSR_SUCCESS);
  tsrStream stream = nullptr;
  if (own_stream) {
    ASSERT_EQ(tsrCreateStream(&stream), TSR_SUCCESS);
  }
  const auto call = [&] {
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    return tsrAddGetWorkspaceSize(a.t, b.t, c.t, &ws, &exec) == TSR_SUCCESS &&
           tsrAdd(nullptr, 0, exec, stream) == TSR_SUCCESS &&
           tsrSynchronizeStream(stream) == TSR_SUCCESS;
  };
  // Warm-up: more calls than the handle quarantine holds, so executors' memory comes back. A
  // worker thread that runs its first block late (the scheduler may hand every block to the other
  // worker for thousands of calls) makes its per-thread caches then, once, a few allocations in
  // all. So: some window of 1000 calls in ten must be clean, and the ten together must allocate
  // fewer times than there are windows - an allocation per call would be 1000 in each.
  ASSERT_NE(AllocationsPerCalls(3000, 0, call), UINT64_MAX) << tsrGetLastErrorMessage();
  uint64_t total = 0;
  bool clean = false;
  for (int window = 0; window < 10 && !clean; ++window) {
    const uint64_t n = AllocationsPerCalls(0, 1000, call);
    total += n;
    clean = n == 0;
  }
  EXPECT_TRUE(clean) << "every window of 1000 calls allocated; " << total << " allocations in all; "
                     << tsrGetLastErrorMessage();
  EXPECT_LT(total, 10u);
  std::vector<float> hc(static_cast<size_t>(n));
  ASSERT_EQ(tsrMemcpy(hc.data(), bytes, c.dev, bytes, TSR_MEMCPY_DEVICE_TO_HOST), TSR_SUCCESS);
  for (size_t i = 0; i < hc.size(); ++i)
    ASSERT_EQ(hc[i], ha[i] + hb[i]) << i;
  if (own_stream) {
    EXPECT_EQ(tsrDestroyStream(stream), TSR_SUCCESS);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, AddCallAllocTest,
                         ::testing::Combine(::testing::Values(int64_t{1024}, int64_t{4097},
                                                              (int64_t{1} << 16) + 7),
                                            ::testing::Bool()));

TEST(AllocFreeCallTest, NewScalarValuesHitWithoutAllocating) {
  if (!TESSERA_COUNTING_MALLOC) GTEST_SKIP() << "sanitizers own malloc";
  DevTensor x(1024, TSR_FLOAT), y(1024, TSR_FLOAT);
  ASSERT_EQ(tsrMemset(x.dev, 4096, 0, 4096), TSR_SUCCESS);
  float value = 0.0f;
  const auto call = [&] {
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    value += 1.0f;
    return tsrAddsGetWorkspaceSize(x.t, value, y.t, &ws, &exec) == TSR_SUCCESS &&
           tsrAdds(nullptr, 0, exec, nullptr) == TSR_SUCCESS &&
           tsrSynchronizeStream(nullptr) == TSR_SUCCESS;
  };
  EXPECT_EQ(AllocationsPerCalls(3000, 1000, call), 0u) << tsrGetLastErrorMessage();
  float last = 0;
  ASSERT_EQ(tsrMemcpy(&last, 4, y.dev, 4, TSR_MEMCPY_DEVICE_TO_HOST), TSR_SUCCESS);
  EXPECT_EQ(last, value);
}

}  // namespace
