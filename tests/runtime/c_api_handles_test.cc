// The C API's handle checks from C++: racing destroys of one handle free it exactly once, random
// garbage addresses are never dereferenced, and every error names the API and the handle.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "builtin_nn.h"
#include "tessera/tessera_nn.h"

namespace {

std::string LastError() {
  return tsrGetLastErrorMessage();
}

TEST(CApiHandles, RacingDestroysFreeEachHandleOnce) {
  const unsigned threads = 8;
  for (int round = 0; round < 50; ++round) {
    tsrStream stream = nullptr;
    tsrEvent event = nullptr;
    ASSERT_EQ(tsrCreateStream(&stream), TSR_SUCCESS);
    ASSERT_EQ(tsrCreateEvent(&event), TSR_SUCCESS);
    const int64_t shape[1] = {7};
    void* dev = nullptr;
    ASSERT_EQ(tsrMalloc(&dev, 64), TSR_SUCCESS);
    tsrTensor* tensor = tsrCreateTensor(shape, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, dev);
    ASSERT_NE(tensor, nullptr);
    std::atomic<int> ok{0}, invalid{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const tsrStatus s = t % 3 == 0   ? tsrDestroyStream(stream)
                            : t % 3 == 1 ? tsrDestroyEvent(event)
                                         : tsrDestroyTensor(tensor);
        (s == TSR_SUCCESS ? ok : invalid)++;
        if (s != TSR_SUCCESS) {
          EXPECT_NE(LastError().find("is not a live"), std::string::npos);
        }
      });
    }
    for (auto& th : pool)
      th.join();
    EXPECT_EQ(ok.load(), 3);  // one destroy per handle succeeded
    EXPECT_EQ(invalid.load(), static_cast<int>(threads) - 3);
    ASSERT_EQ(tsrFree(dev), TSR_SUCCESS);
  }
}

// A thread remembers the tensors it found live; a tensor destroyed since (on any thread) is
// reported again, and a new tensor at a destroyed one's address is a new live handle.
TEST(CApiHandles, TensorDestroyedOnAnotherThreadIsReportedByAThreadThatUsedIt) {
  std::mt19937 rng(5);
  const int64_t n = 1 + static_cast<int64_t>(rng() % 4097);
  const int64_t shape[1] = {n};
  void* dev[3] = {};
  tsrTensor* t[3] = {};
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(tsrMalloc(&dev[i], static_cast<size_t>(n) * 4), TSR_SUCCESS);
    t[i] = tsrCreateTensor(shape, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, dev[i]);
    ASSERT_NE(t[i], nullptr);
  }
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  for (int i = 0; i < 2; ++i) {  // the second call checks the remembered tensors
    ASSERT_EQ(tsrAddGetWorkspaceSize(t[0], t[1], t[2], &ws, &exec), TSR_SUCCESS) << LastError();
    ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
  }
  std::thread([&] { EXPECT_EQ(tsrDestroyTensor(t[1]), TSR_SUCCESS); }).join();
  EXPECT_EQ(tsrAddGetWorkspaceSize(t[0], t[1], t[2], &ws, &exec), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("is not a live tensor"), std::string::npos) << LastError();
  EXPECT_EQ(exec, nullptr);
  t[1] = tsrCreateTensor(shape, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, dev[1]);
  ASSERT_NE(t[1], nullptr);
  ASSERT_EQ(tsrAddGetWorkspaceSize(t[0], t[1], t[2], &ws, &exec), TSR_SUCCESS) << LastError();
  ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(tsrDestroyTensor(t[i]), TSR_SUCCESS);
    EXPECT_EQ(tsrFree(dev[i]), TSR_SUCCESS);
  }
}

TEST(CApiHandles, RandomGarbageIsRejectedWithoutBeingRead) {
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < 2000; ++i) {
    // Addresses that map nothing, or the middle of real objects: none is dereferenced.
    const uintptr_t raw = (rng() & 0x0000'7fff'ffff'fff0ull) | 0x10;
    auto* stream = reinterpret_cast<tsrStream>(raw);
    auto* event = reinterpret_cast<tsrEvent>(raw);
    auto* tensor = reinterpret_cast<const tsrTensor*>(raw);
    auto* exec = reinterpret_cast<tsrOpExecutor*>(raw);
    ASSERT_EQ(tsrSynchronizeStream(stream), TSR_ERROR_INVALID_ARGUMENT);
    ASSERT_NE(LastError().find("tsrSynchronizeStream: stream 0x"), std::string::npos)
        << LastError();
    ASSERT_EQ(tsrDestroyStream(stream), TSR_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(tsrRecordEvent(event, nullptr), TSR_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(tsrDestroyTensor(tensor), TSR_ERROR_INVALID_ARGUMENT);
    uint64_t rank = 0;
    ASSERT_EQ(tsrGetTensorShape(tensor, nullptr, 0, &rank), TSR_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(tsrOpExecute(nullptr, 0, exec, nullptr), TSR_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(tsrDestroyExecutor(exec), TSR_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(tsrSetExecutorTensorAddress(exec, 0, nullptr), TSR_ERROR_INVALID_ARGUMENT);
    ASSERT_NE(LastError().find("tsrSetExecutorTensorAddress: executor 0x"), std::string::npos);
  }
}

TEST(CApiHandles, NullOutputPointersAreErrors) {
  EXPECT_EQ(tsrCreateStream(nullptr), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsrCreateEvent(nullptr), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsrCreateWorkspacePool(nullptr), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsrGetRuntimeStats(nullptr), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsrOpGetWorkspaceSize(nullptr, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, nullptr),
            TSR_ERROR_INVALID_ARGUMENT);
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  EXPECT_EQ(tsrAddGetWorkspaceSize(nullptr, nullptr, nullptr, &ws, &exec),
            TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsrSetProfile(nullptr), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsrMemcpy(nullptr, 4, nullptr, 4, TSR_MEMCPY_HOST_TO_DEVICE),
            TSR_ERROR_INVALID_ARGUMENT);
}

}  // namespace
