#include "tessera/device/memory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "test_util.h"

namespace tessera::device {
namespace {

using testing::Contains;

std::vector<unsigned char> RandomBytes(size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  std::mt19937 rng(seed);
  for (auto& b : v)
    b = static_cast<unsigned char>(rng());
  return v;
}

class MemoryTest : public ::testing::TestWithParam<bool> {
 protected:
  testing::CheckedScope checked_{GetParam()};
};

TEST_P(MemoryTest, RoundTripsAwkwardSizes) {
  for (size_t n :
       {size_t{1}, size_t{7}, size_t{31}, size_t{4097}, size_t{1000003}, size_t{9} << 20}) {
    const auto host = RandomBytes(n, static_cast<unsigned>(n));
    auto* dev = testing::DeviceAlloc<unsigned char>(n);
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(dev) % 32, 0u);
    EXPECT_TRUE(IsDeviceAddress(dev));
    EXPECT_TRUE(IsDeviceAddress(dev + n - 1));
    ASSERT_TRUE(Memcpy(dev, n, host.data(), n, MemcpyKind::kHostToDevice).ok());
    std::vector<unsigned char> back(n + 2, 0x5A);  // sentinels after the copy
    ASSERT_TRUE(Memcpy(back.data(), n, dev, n, MemcpyKind::kDeviceToHost).ok());
    EXPECT_TRUE(std::equal(host.begin(), host.end(), back.begin())) << n;
    EXPECT_EQ(back[n], 0x5A);
    EXPECT_EQ(back[n + 1], 0x5A);
    ASSERT_TRUE(Memset(dev + n / 2, n - n / 2, 0x3C, n - n / 2).ok());
    ASSERT_TRUE(Memcpy(back.data(), n, dev, n, MemcpyKind::kDefault).ok());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(back[i], i < n / 2 ? host[i] : 0x3C) << i;
    }
    ASSERT_TRUE(Free(dev).ok());
    EXPECT_FALSE(IsDeviceAddress(dev));
  }
}

TEST_P(MemoryTest, BadArguments) {
  EXPECT_EQ(Malloc(0).status().code(), StatusCode::kInvalidArgument);
  Result<void*> huge = Malloc(size_t{1} << 60);
  EXPECT_EQ(huge.status().code(), StatusCode::kOutOfMemory);
  EXPECT_TRUE(Contains(huge.status(), std::to_string(size_t{1} << 60)));
  int on_host = 0;
  Status foreign = Free(&on_host);
  EXPECT_EQ(foreign.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(foreign, "not a live device allocation"));
  EXPECT_EQ(Free(nullptr).code(), StatusCode::kInvalidArgument);

  auto* dev = testing::DeviceAlloc<float>(64);
  EXPECT_TRUE(Contains(Free(dev + 3), "12 bytes inside allocation"));
  float host[64] = {};
  Status too_many = Memcpy(dev, 64, host, 128, MemcpyKind::kHostToDevice);
  EXPECT_TRUE(Contains(too_many, "count 128 exceeds dst_max 64"));
  EXPECT_TRUE(Contains(Memcpy(dev, 256, nullptr, 4, MemcpyKind::kHostToDevice), "src is null"));
  EXPECT_TRUE(Contains(Memcpy(dev + 1, 32, dev, 32, MemcpyKind::kDeviceToDevice), "overlap"));
  EXPECT_TRUE(Contains(Memset(dev, 8, 0, 9), "exceeds dst_max"));
  EXPECT_TRUE(Contains(Memcpy(dev, 4, host, 4, static_cast<MemcpyKind>(9)), "kind 9"));
  EXPECT_TRUE(Memcpy(dev, 0, nullptr, 0, MemcpyKind::kHostToDevice).ok());  // nothing to do
  ASSERT_TRUE(Free(dev).ok());
  Status twice = Free(dev);
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
}

TEST_P(MemoryTest, AsyncCopiesRunInStreamOrder) {
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok());
  const size_t n = size_t{6} << 20;  // large enough to be split over the workers
  const auto a = RandomBytes(n, 1);
  auto* d1 = testing::DeviceAlloc<unsigned char>(n);
  auto* d2 = testing::DeviceAlloc<unsigned char>(n);
  std::vector<unsigned char> out(n);
  ASSERT_TRUE(MemcpyAsync(d1, n, a.data(), n, MemcpyKind::kHostToDevice, *stream).ok());
  ASSERT_TRUE(MemsetAsync(d1, n, 7, 100, *stream).ok());
  ASSERT_TRUE(MemcpyAsync(d2, n, d1, n, MemcpyKind::kDeviceToDevice, *stream).ok());
  ASSERT_TRUE(MemcpyAsync(out.data(), n, d2, n, MemcpyKind::kDeviceToHost, *stream).ok());
  ASSERT_TRUE(stream->Synchronize().ok());
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], i < 100 ? 7 : a[i]) << i;
  ASSERT_TRUE(Free(d1).ok());
  ASSERT_TRUE(Free(d2).ok());
}

INSTANTIATE_TEST_SUITE_P(FastAndChecked, MemoryTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Checked" : "Fast"; });

TEST(MemoryPoolTest, ReusesFreedBlocksAndTracksUsage) {
  testing::CheckedScope fast(false);
  TrimMemoryPool();
  const MemoryStats before = GetMemoryStats();
  void* a = *Malloc(100000);
  EXPECT_EQ(GetMemoryStats().bytes_in_use, before.bytes_in_use + 100000);
  ASSERT_TRUE(Free(a).ok());
  EXPECT_GE(GetMemoryStats().bytes_cached, 100000u);
  void* b = *Malloc(99000);  // same size class
  EXPECT_EQ(a, b);
  EXPECT_EQ(GetMemoryStats().pool_hits, before.pool_hits + 1);
  ASSERT_TRUE(Free(b).ok());
  TrimMemoryPool();
  EXPECT_EQ(GetMemoryStats().bytes_cached, 0u);
  EXPECT_EQ(GetMemoryStats().live_allocations, before.live_allocations);
}

}  // namespace
}  // namespace tessera::device
