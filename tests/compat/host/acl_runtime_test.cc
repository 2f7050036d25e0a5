// The acl runtime (acl/acl.h) as a CANN application uses it, and its error paths: CANN's codes,
// a message for each failure in aclGetRecentErrMsg, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"

namespace {

std::string RecentError() {
  const char* m = aclGetRecentErrMsg();
  return m == nullptr ? "" : m;
}

class AclRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS); }
  void TearDown() override { EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS); }
};

TEST(AclInitTest, RepeatInitAndFinalizeAreCannsCodes) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_NE(RecentError().find("already initialized"), std::string::npos);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  EXPECT_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
  EXPECT_NE(RecentError().find("/nonexistent/acl.json"), std::string::npos);
}

TEST(AclInitTest, RecentErrorIsClearedWhenFetched) {
  EXPECT_EQ(aclrtSetDevice(3), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_NE(RecentError().find("device id 3"), std::string::npos);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
}

TEST(AclInitTest, LastErrorIsPerThreadAndClearedByGet) {
  (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);  // earlier tests' failures
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetDevice(5), ACL_ERROR_RT_INVALID_DEVICEID);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);  // a success keeps the last failure
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
  aclError other_thread = ACL_ERROR_INVALID_PARAM;
  std::thread([&] { other_thread = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL); }).join();
  EXPECT_EQ(other_thread, ACL_SUCCESS);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetLastError(static_cast<aclrtLastErrLevel>(3)), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("not ACL_RT_THREAD_LEVEL"), std::string::npos);
  (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

TEST(AclInitTest, BadDeviceIds) {
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtResetDevice(7), ACL_ERROR_RT_INVALID_DEVICEID);
  aclrtContext ctx = nullptr;
  EXPECT_EQ(aclrtCreateContext(&ctx, 2), ACL_ERROR_RT_INVALID_DEVICEID);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(AclInitTest, NoCurrentContextIsContextNull) {
  // A fresh thread has no context until it sets a device, as in CANN.
  std::thread([] {
    void* p = nullptr;
    EXPECT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_NE(RecentError().find("aclrtSetDevice"), std::string::npos);
    aclrtStream s = nullptr;
    EXPECT_EQ(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    int32_t dev = -1;
    EXPECT_EQ(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_EQ(aclrtResetDevice(0), ACL_ERROR_RT_PARAM_INVALID);
  }).join();
}

TEST_F(AclRuntimeTest, MemcpyRoundTripOfRandomBytesAtAwkwardSizes) {
  std::mt19937 rng(12);
  for (size_t n : {1u, 7u, 31u, 4097u, 1000003u}) {
    std::vector<uint8_t> in(n), out(n, 0);
    for (auto& b : in)
      b = static_cast<uint8_t>(rng());
    void* a = nullptr;
    void* b = nullptr;
    ASSERT_EQ(aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&b, n, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(a, n, in.data(), n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(out.data(), n, b, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(in, out) << n;
    ASSERT_EQ(aclrtMemset(b, n, 0x5a, n), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(out.data(), n, b, n, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
    EXPECT_EQ(out, std::vector<uint8_t>(n, 0x5a)) << n;
    EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
  }
}

TEST_F(AclRuntimeTest, AsyncCopiesOnAStreamWithEvents) {
  const size_t n = 4097 * sizeof(float);
  std::vector<float> in(4097), out(4097, 0.0f);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-10, 10);
  for (auto& v : in)
    v = dist(rng);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&end), ACL_SUCCESS);
  void* d = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(start, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(d, n, 0, n, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(d, n, in.data(), n, ACL_MEMCPY_HOST_TO_DEVICE, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(end, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamWaitEvent(nullptr, end), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  float ms = -1;
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 0.0f);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(out.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(in, out);
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
}

TEST_F(AclRuntimeTest, NullPointersAreInvalidParam) {
  void* p = nullptr;
  EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("devPtr is NULL"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&p, 16, static_cast<aclrtMemMallocPolicy>(99)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM);
  char host[8] = {};
  EXPECT_EQ(aclrtMemcpy(nullptr, 8, host, 8, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(host, 8, nullptr, 8, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtRecordEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(AclRuntimeTest, DoubleFreesAreRuntimeParamInvalid) {
  void* d = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(d), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(RecentError().find("aclrtFree"), std::string::npos);
  void* h = nullptr;
  ASSERT_EQ(aclrtMallocHost(&h, 100), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(h), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(h), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(RecentError().find("aclrtMallocHost"), std::string::npos);
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(RecentError().find("not a live stream"), std::string::npos);
  aclrtEvent e = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(e), ACL_ERROR_RT_PARAM_INVALID);
}

TEST_F(AclRuntimeTest, WrongMemcpyKindNamesWhereThePointersLive) {
  void* d = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  char host[64] = {};
  EXPECT_EQ(aclrtMemcpy(host, 64, d, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
  const std::string m = RecentError();
  EXPECT_NE(m.find("ACL_MEMCPY_HOST_TO_DEVICE"), std::string::npos) << m;
  EXPECT_NE(m.find("dst"), std::string::npos) << m;
  EXPECT_EQ(aclrtMemcpy(d, 64, host, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemcpy(host, 64, host + 32, 32, ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemcpy(d, 64, host, 64, static_cast<aclrtMemcpyKind>(9)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(d, 32, host, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("exceeds destMax"), std::string::npos);
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
}

TEST_F(AclRuntimeTest, ContextsAreCurrentPerThread) {
  aclrtContext def = nullptr, mine = nullptr, got = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&def), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateContext(&mine, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtGetCurrentContext(&got), ACL_SUCCESS);
  EXPECT_EQ(got, mine);
  std::thread([mine] {
    ASSERT_EQ(aclrtSetCurrentContext(mine), ACL_SUCCESS);
    int32_t dev = -1;
    EXPECT_EQ(aclrtGetDevice(&dev), ACL_SUCCESS);
    EXPECT_EQ(dev, 0);
  }).join();
  EXPECT_EQ(aclrtDestroyContext(def), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(RecentError().find("default context"), std::string::npos);
  EXPECT_EQ(aclrtDestroyContext(mine), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(mine), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtSetCurrentContext(mine), ACL_ERROR_RT_PARAM_INVALID);
  ASSERT_EQ(aclrtSetCurrentContext(def), ACL_SUCCESS);
  aclrtRunMode mode = ACL_DEVICE;
  EXPECT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
  EXPECT_EQ(mode, ACL_HOST);
}

TEST(AclFloat16Test, RoundTripsAndRoundsToNearestEven) {
  std::mt19937 rng(5);
  for (int i = 0; i < 100000; ++i) {
    const uint16_t bits = static_cast<uint16_t>(rng());
    const float f = aclFloat16ToFloat(bits);
    if (std::isnan(f)) continue;
    EXPECT_EQ(aclFloatToFloat16(f), bits) << bits;
  }
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3c00);
  EXPECT_EQ(aclFloatToFloat16(65520.0f), 0x7c00);            // rounds to infinity
  EXPECT_EQ(aclFloatToFloat16(1.0f + 1.0f / 2048), 0x3c00);  // tie -> even
  EXPECT_EQ(aclFloatToFloat16(1.0f + 3.0f / 2048), 0x3c02);  // tie -> even (up)
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0u);
}

}  // namespace
