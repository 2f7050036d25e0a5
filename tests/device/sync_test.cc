// SyncAll, cross-core flags and deadlock detection.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "tessera/device/block.h"
#include "tessera/device/launch.h"
#include "test_util.h"

namespace tessera::device {
namespace {

using testing::Contains;

// Each round every block writes its slot, syncs, then checks its neighbour's slot of that round:
// a barrier that lets one block run ahead is caught.
void BarrierRounds(int* slots, int* errors, int rounds) {
  const uint32_t idx = GetBlockIdx();
  const uint32_t n = GetBlockNum();
  for (int r = 0; r < rounds; ++r) {
    slots[r * n + idx] = r * 1000 + static_cast<int>(idx);
    SyncAll();
    const uint32_t peer = (idx + 1) % n;
    if (slots[r * n + peer] != r * 1000 + static_cast<int>(peer)) ++errors[idx];
  }
}

TEST(SyncAllTest, FortyEightBlocksOnTheEmulatedProfile) {
  testing::ProfileScope scope("ascend910b");
  const int rounds = 20;
  std::vector<int> slots(48 * rounds, -1), errors(48, 0);
  auto s = Stream::Create();
  ASSERT_TRUE(Launch(LaunchConfig{48, KernelType::kAiv, "barrier_rounds"}, BarrierRounds, *s,
                     slots.data(), errors.data(), rounds)
                  .ok());
  ASSERT_TRUE(s->Synchronize().ok());
  for (int e : errors)
    EXPECT_EQ(e, 0);
}

TEST(SyncAllTest, NativeProfileAllCores) {
  testing::ProfileScope scope("native");
  const uint32_t n = CurrentArch().aiv_cores;
  std::vector<int> slots(n * 50, -1), errors(n, 0);
  ASSERT_TRUE(Launch(BarrierRounds, n, Stream(), slots.data(), errors.data(), 50).ok());
  ASSERT_TRUE(Stream().Synchronize().ok());
  for (int e : errors)
    EXPECT_EQ(e, 0);
}

TEST(SyncAllTest, MoreBlocksThanCoresIsAnError) {
  testing::ProfileScope scope("ascend910b");
  std::vector<int> slots(49, 0), errors(49, 0);
  auto s = Stream::Create();
  ASSERT_TRUE(Launch(LaunchConfig{49, KernelType::kAiv, "too_wide"}, BarrierRounds, *s,
                     slots.data(), errors.data(), 1)
                  .ok());
  Status err = s->Synchronize();
  EXPECT_EQ(err.code(), StatusCode::kKernelError);
  EXPECT_TRUE(Contains(err, "SyncAll needs all 49 blocks resident")) << err.ToString();
  EXPECT_TRUE(Contains(err, "launch with blockDim <= 48"));
}

void FailWhileOthersWait(int bad) {
  if (GetBlockIdx() == static_cast<uint32_t>(bad)) FailBlock(StatusCode::kKernelError, "bad input");
  SyncAll();
}

TEST(SyncAllTest, FailureReleasesBlocksWaitingAtTheBarrier) {
  testing::ProfileScope scope("ascend910b");
  auto s = Stream::Create();
  ASSERT_TRUE(
      Launch(LaunchConfig{48, KernelType::kAiv, "fail_at_barrier"}, FailWhileOthersWait, *s, 47)
          .ok());
  Status err = s->Synchronize();
  EXPECT_TRUE(Contains(err, "block 47 (AIV): bad input")) << err.ToString();
}

// Mode 0: a producer/consumer chain over every core, several rounds.
void AllCoresFlags(int* counter_log, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    counter_log[GetBlockIdx() * rounds + r] = r;
    CrossCoreSetFlag(CrossCoreMode::kAllCores, 3);
    CrossCoreWaitFlag(CrossCoreMode::kAllCores, 3);
    for (uint32_t b = 0; b < GetBlockNum(); ++b) {
      if (counter_log[b * rounds + r] != r) FailBlock(StatusCode::kInternal, "flag released early");
    }
  }
}

TEST(CrossCoreFlagTest, AllCoresMode) {
  testing::ProfileScope scope("ascend910b");
  std::vector<int> log(48 * 10, -1);
  auto s = Stream::Create();
  ASSERT_TRUE(
      Launch(LaunchConfig{48, KernelType::kAiv, "flags0"}, AllCoresFlags, *s, log.data(), 10).ok());
  EXPECT_TRUE(s->Synchronize().ok());
}

// Mode 2 ping-pong and mode 1 between the two vector cores of a group.
void CubeVectorPingPong(int* data, int rounds) {
  const bool cube = GetCoreType() == CoreType::kAic;
  const uint32_t group = cube ? GetBlockIdx() : GetBlockIdx() / GetSubBlockNum();
  int* mine = data + group * 3;  // [cube value, vec0 value, vec1 value]
  for (int r = 1; r <= rounds; ++r) {
    if (cube) {
      mine[0] = r;
      CrossCoreSetFlag(CrossCoreMode::kGroupCubeVector, 1);
      CrossCoreWaitFlag(CrossCoreMode::kGroupCubeVector, 2);
      if (mine[1] != 10 * r || mine[2] != 10 * r + 1)
        FailBlock(StatusCode::kInternal, "stale vector value");
    } else {
      CrossCoreWaitFlag(CrossCoreMode::kGroupCubeVector, 1);
      if (mine[0] != r) FailBlock(StatusCode::kInternal, "stale cube value");
      mine[1 + GetSubBlockIdx()] = 10 * r + static_cast<int>(GetSubBlockIdx());
      CrossCoreSetFlag(CrossCoreMode::kGroupVector, 4);
      CrossCoreWaitFlag(CrossCoreMode::kGroupVector, 4);  // both vector cores wrote
      if (mine[1] != 10 * r || mine[2] != 10 * r + 1)
        FailBlock(StatusCode::kInternal, "mode 1 early");
      CrossCoreSetFlag(CrossCoreMode::kGroupCubeVector, 2);
    }
  }
}

TEST(CrossCoreFlagTest, CubeVectorAndGroupVectorModes) {
  for (const char* profile : {"native", "ascend910b"}) {
    testing::ProfileScope scope(profile);
    const uint32_t groups = CurrentArch().aic_cores;
    std::vector<int> data(groups * 3, 0);
    auto s = Stream::Create();
    ASSERT_TRUE(Launch(LaunchConfig{groups, KernelType::kMix, "pingpong"}, CubeVectorPingPong, *s,
                       data.data(), 25)
                    .ok());
    Status st = s->Synchronize();
    EXPECT_TRUE(st.ok()) << profile << ": " << st.ToString();
  }
}

void BadFlag(int mode, int id) {
  CrossCoreSetFlag(static_cast<CrossCoreMode>(mode), static_cast<uint32_t>(id));
}

TEST(CrossCoreFlagTest, InvalidUseIsReported) {
  auto s = Stream::Create();
  ASSERT_TRUE(Launch(LaunchConfig{2, KernelType::kAiv, "bad_flag"}, BadFlag, *s, 0, 16).ok());
  EXPECT_TRUE(Contains(s->Synchronize(), "flag id 16 is out of range; expected 0..15"));
  s->ResetError();
  ASSERT_TRUE(Launch(LaunchConfig{2, KernelType::kAiv, "bad_flag"}, BadFlag, *s, 2, 0).ok());
  EXPECT_TRUE(Contains(s->Synchronize(), "(mode 2) needs a MIX launch"));
  s->ResetError();
}

void WaitForever(int waiter) {
  if (GetBlockIdx() == static_cast<uint32_t>(waiter) || waiter < 0) {
    CrossCoreWaitFlag(CrossCoreMode::kAllCores, 5);
  }
}

TEST(DeadlockTest, SingleBlockWaitingOnItself) {
  auto s = Stream::Create();
  ASSERT_TRUE(Launch(LaunchConfig{1, KernelType::kAiv, "lonely"}, WaitForever, *s, 0).ok());
  Status err = s->Synchronize();
  EXPECT_TRUE(Contains(err, "kernel 'lonely' deadlocked")) << err.ToString();
  EXPECT_TRUE(Contains(err, "block 0 (AIV) in CrossCoreWaitFlag(mode 0) flag 5"));
}

TEST(DeadlockTest, ManyBlocksWaitingOnAFlagNobodySets) {
  testing::ProfileScope scope("ascend910b");
  auto s = Stream::Create();
  ASSERT_TRUE(Launch(LaunchConfig{16, KernelType::kAiv, "stuck"}, WaitForever, *s, -1).ok());
  Status err = s->Synchronize();
  EXPECT_TRUE(Contains(err, "kernel 'stuck' deadlocked")) << err.ToString();
}

}  // namespace
}  // namespace tessera::device

namespace tessera::device {
namespace {

void SetThenWait() {
  CrossCoreSetFlag(CrossCoreMode::kAllCores, 0);
  CrossCoreWaitFlag(CrossCoreMode::kAllCores, 0);
}

// A mode-0 flag is a barrier of every core of the launch, which must all be resident at once.
TEST(CrossCoreFlagTest, ModeZeroSetNeedsAllBlocksResident) {
  testing::ProfileScope scope("ascend910b");
  auto s = Stream::Create();
  ASSERT_TRUE(Launch(LaunchConfig{49, KernelType::kAiv, "wide_wait"}, SetThenWait, *s).ok());
  Status err = s->Synchronize();
  EXPECT_TRUE(Contains(err, "CrossCoreSetFlag(mode 0) needs all 49 blocks resident"))
      << err.ToString();
  s->ResetError();
  ASSERT_TRUE(Launch(LaunchConfig{48, KernelType::kAiv, "fits"}, SetThenWait, *s).ok());
  EXPECT_TRUE(s->Synchronize().ok());
}

}  // namespace
}  // namespace tessera::device
