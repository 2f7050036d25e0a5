#include "tessera/runtime/param_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace tessera::runtime {
namespace {

TensorDesc Desc(DataType t, std::initializer_list<int64_t> dims,
                std::vector<int64_t> strides = {}) {
  return TensorDesc{t, *Shape::Make(dims), Format::kND, std::move(strides)};
}

TEST(CacheKeyTest, EveryFieldThatMattersChangesTheKey) {
  const TensorDesc a = Desc(DataType::kFloat32, {4, 8});
  const auto key = [&](auto&& mutate) {
    CacheKeyBuilder b("Add");
    mutate(b);
    return b.key();
  };
  std::set<std::string> keys = {
      key([&](auto& b) {
        b.Tensor(&a).Tensor(&a).Platform(2, 1, "x86-64-v4", "native").Deterministic(false);
      }),
      key([&](auto& b) {
        b.Tensor(&a).Tensor(&a).Platform(2, 1, "x86-64-v4", "native").Deterministic(true);
      }),
      key([&](auto& b) {
        b.Tensor(&a).Tensor(&a).Platform(48, 24, "x86-64-v4", "native").Deterministic(false);
      }),
      key([&](auto& b) {
        b.Tensor(&a).Tensor(&a).Platform(2, 1, "x86-64-v3", "native").Deterministic(false);
      }),
      key([&](auto& b) {
        b.Tensor(&a).Tensor(&a).Platform(2, 1, "x86-64-v4", "ascend910b").Deterministic(false);
      }),
      key([&](auto& b) {
        b.Tensor(&a).Tensor(nullptr).Platform(2, 1, "x86-64-v4", "native").Deterministic(false);
      }),
      key([&](auto& b) {
        b.Tensor(&a, 8).Tensor(&a).Platform(2, 1, "x86-64-v4", "native").Deterministic(false);
      }),
  };
  const TensorDesc f16 = Desc(DataType::kFloat16, {4, 8});
  const TensorDesc other_shape = Desc(DataType::kFloat32, {8, 4});
  const TensorDesc strided = Desc(DataType::kFloat32, {4, 8}, {16, 1});
  const TensorDesc flat = Desc(DataType::kFloat32, {32});
  for (const TensorDesc* t : {&f16, &other_shape, &strided, &flat}) {
    keys.insert(key([&](auto& b) {
      b.Tensor(t).Tensor(&a).Platform(2, 1, "x86-64-v4", "native").Deterministic(false);
    }));
  }
  keys.insert(key([&](auto& b) { b.Attr("alpha", 1.0f); }));
  keys.insert(key([&](auto& b) { b.Attr("alpha", 2.0f); }));
  keys.insert(key([&](auto& b) { b.Attr("alpha", int64_t{1}); }));
  keys.insert(key([&](auto& b) { b.Attr("beta", 1.0f); }));
  keys.insert(key([&](auto& b) { b.Attr("axes", std::vector<int64_t>{1, 2}); }));
  keys.insert(key([&](auto& b) { b.Attr("axes", std::vector<int64_t>{1}); }));
  keys.insert(key([&](auto& b) { b.Attr("mode", std::string("ab")).Attr("x", std::string("c")); }));
  keys.insert(key([&](auto& b) { b.Attr("mode", std::string("a")).Attr("x", std::string("bc")); }));
  EXPECT_EQ(keys.size(), 19u);
  EXPECT_NE(CacheKeyBuilder("Add").key(), CacheKeyBuilder("Sub").key());
  // Same description, same key: contiguous strides spelled out equal implicit ones.
  const TensorDesc explicit_strides = Desc(DataType::kFloat32, {4, 8}, {8, 1});
  EXPECT_EQ(CacheKeyBuilder("Add").Tensor(&a).key(),
            CacheKeyBuilder("Add").Tensor(&explicit_strides).key());
}

TEST(LruCacheTest, HitsMissesAndEvictionOrder) {
  LruCache<int> cache(2);
  int builds = 0;
  const auto build = [&](int v) {
    return [&builds, v]() -> Result<int> {
      ++builds;
      return v;
    };
  };
  bool hit = true;
  EXPECT_EQ(**cache.GetOrBuild("a", build(1), &hit), 1);
  EXPECT_FALSE(hit);
  EXPECT_EQ(**cache.GetOrBuild("b", build(2), &hit), 2);
  EXPECT_EQ(**cache.GetOrBuild("a", build(99), &hit), 1);  // hit: a becomes most recent
  EXPECT_TRUE(hit);
  EXPECT_EQ(**cache.GetOrBuild("c", build(3), &hit), 3);  // evicts b, the least recent
  EXPECT_EQ(**cache.GetOrBuild("a", build(99), &hit), 1);
  EXPECT_TRUE(hit);
  EXPECT_EQ(**cache.GetOrBuild("b", build(4), &hit), 4);  // rebuilt
  EXPECT_FALSE(hit);
  const CacheStats s = cache.stats();
  EXPECT_EQ(builds, 4);
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.misses, 4u);
  EXPECT_EQ(s.evictions, 2u);
  EXPECT_EQ(s.size, 2u);
}

TEST(LruCacheTest, FailedBuildsAreNotCachedAndZeroCapacityDisables) {
  LruCache<int> cache(4);
  int builds = 0;
  auto fail = [&]() -> Result<int> {
    ++builds;
    return InvalidArgument("no");
  };
  EXPECT_FALSE(cache.GetOrBuild("k", fail).ok());
  EXPECT_FALSE(cache.GetOrBuild("k", fail).ok());
  EXPECT_EQ(builds, 2);
  LruCache<int> off(0);
  auto ok = [&]() -> Result<int> {
    ++builds;
    return 5;
  };
  EXPECT_EQ(**off.GetOrBuild("k", ok), 5);
  EXPECT_EQ(**off.GetOrBuild("k", ok), 5);
  EXPECT_EQ(builds, 4);
  EXPECT_EQ(off.stats().size, 0u);
  EXPECT_EQ(off.stats().misses, 2u);
}

TEST(LruCacheTest, ConcurrentMissesBuildOnce) {
  LruCache<int> cache(100);
  std::atomic<int> builds{0};
  std::vector<std::thread> threads;
  std::atomic<int> sum{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string key = std::to_string(100 + (i + t) % 50);
        auto v = cache.GetOrBuild(key, [&]() -> Result<int> {
          builds.fetch_add(1);
          std::this_thread::sleep_for(std::chrono::microseconds(50));
          return static_cast<int>(key.size());
        });
        ASSERT_TRUE(v.ok());
        sum.fetch_add(**v);
      }
    });
  }
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(builds.load(), 50);  // each key built exactly once
  const CacheStats s = cache.stats();
  EXPECT_EQ(s.misses, 50u);
  EXPECT_EQ(s.hits + s.misses, 16000u);
}

TEST(CacheLimitTest, FromEnvironment) {
  unsetenv("TESSERA_CACHE_LIMIT");
  EXPECT_EQ(CacheLimitFromEnv(), 10000u);
  setenv("TESSERA_CACHE_LIMIT", "0", 1);
  EXPECT_EQ(CacheLimitFromEnv(), 0u);
  setenv("TESSERA_CACHE_LIMIT", "17", 1);
  EXPECT_EQ(CacheLimitFromEnv(), 17u);
  setenv("TESSERA_CACHE_LIMIT", "x", 1);
  EXPECT_EQ(CacheLimitFromEnv(), 10000u);
  unsetenv("TESSERA_CACHE_LIMIT");
}

}  // namespace
}  // namespace tessera::runtime
