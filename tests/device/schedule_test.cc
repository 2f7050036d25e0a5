// TESSERA_SCHEDULE and TESSERA_BLOCKS (run by ctest under each setting): blocks start in the
// requested order, so a kernel whose result depends on the order of its blocks shows it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "tessera/device/block.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"

namespace tessera::device {
namespace {

constexpr uint32_t kBlocks = 8;

// Order-dependent on purpose: each block records when it started, and the last one to run wins
// `last`.
void RecordOrder(uint32_t* started, uint32_t* count, uint32_t* last) {
  const uint32_t k = std::atomic_ref<uint32_t>(*count).fetch_add(1);
  started[k] = GetBlockIdx();
  *last = GetBlockIdx();
}

struct Observed {
  std::vector<uint32_t> order;
  uint32_t last = 0;
};

Observed RunOnce() {
  auto started = Malloc(kBlocks * sizeof(uint32_t));
  auto state = Malloc(2 * sizeof(uint32_t));
  EXPECT_TRUE(started.ok() && state.ok());
  auto* s = static_cast<uint32_t*>(*state);
  auto* order = static_cast<uint32_t*>(*started);
  s[0] = s[1] = 0;
  auto stream = Stream::Create();
  EXPECT_TRUE(stream.ok());
  EXPECT_TRUE(Launch(LaunchConfig{kBlocks, KernelType::kAiv, "record_order"}, RecordOrder, *stream,
                     order, s, s + 1)
                  .ok());
  EXPECT_TRUE(stream->Synchronize().ok());
  Observed run{std::vector<uint32_t>(order, order + s[0]), s[1]};
  EXPECT_TRUE(Free(*started).ok());
  EXPECT_TRUE(Free(*state).ok());
  return run;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

TEST(ScheduleTest, BlocksStartInTheRequestedOrder) {
  const std::string schedule = Env("TESSERA_SCHEDULE");
  if (schedule.empty() || !Env("TESSERA_BLOCKS").empty()) GTEST_SKIP() << "no TESSERA_SCHEDULE";
  std::vector<uint32_t> expected(kBlocks);
  std::iota(expected.begin(), expected.end(), 0u);
  const Observed first = RunOnce();
  if (schedule == "reverse") {
    std::reverse(expected.begin(), expected.end());
  } else if (schedule != "sequential") {
    // shuffle:SEED: a permutation, the same on every run, not the identity for this seed.
    std::vector<uint32_t> sorted = first.order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, expected);
    EXPECT_NE(first.order, expected);
    expected = first.order;
  }
  EXPECT_EQ(first.order, expected);
  // The order-dependent result follows the order: sequential, reverse and shuffle disagree.
  EXPECT_EQ(first.last, expected.back());
  EXPECT_EQ(RunOnce().order, expected);
}

TEST(ScheduleTest, OnlyTheChosenBlocksRun) {
  if (Env("TESSERA_BLOCKS") != "3,5") GTEST_SKIP() << "TESSERA_BLOCKS is not 3,5";
  std::vector<uint32_t> order = RunOnce().order;
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<uint32_t>{3, 5}));
}

}  // namespace
}  // namespace tessera::device
