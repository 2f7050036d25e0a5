// Cross-core flags in the vendor's forms and with 2201 semantics: per-core counters, a mode-0
// wait pairing a mode-2 set, MIX/AIC launches wider than the profile's cube cores, the 15-count
// limit as a checked-mode finding, and CATLASS's reverse-flag pattern staying below it.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "cube_test_util.h"

namespace tessera::kernel {
namespace {

using device::KernelType;
using testing::Contains;
using testing::RunCube;

// AIC writes a value per round; its AIVs wait with the vendor's default-mode wait and check it.
// Then the AIVs answer (mode 2 set from both releases one AIC wait).
void HandOff(int* data, int* errors, int rounds) {
  const uint32_t group = IsAic() ? GetBlockIdx() : GetBlockIdx() / GetSubBlockNum();
  int* slot = data + group * 3;
  for (int r = 1; r <= rounds; ++r) {
    if (IsAic()) {
      slot[0] = r;
      CrossCoreSetFlag<2, PIPE_FIX>(0);
      CrossCoreWaitFlag(1);  // mode 0 wait: released by both AIVs' mode-2 sets
      if (slot[1] != r || slot[2] != r) ++errors[group];
    } else {
      CrossCoreWaitFlag(0);
      if (slot[0] != r) ++errors[group];
      slot[1 + GetSubBlockIdx()] = r;
      CrossCoreSetFlag<1, PIPE_MTE3>(2);  // both AIVs of the group
      CrossCoreWaitFlag<1, PIPE_MTE3>(2);
      CrossCoreSetFlag<2, PIPE_MTE3>(1);
    }
  }
}

TEST(CrossCoreTest, VendorFormsAndMoreGroupsThanCubeCores) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    for (const char* profile : {"native", "ascend910b"}) {
      testing::ProfileScope p(profile);
      // 2.5x the profile's cube cores: flags within a group never need the others resident.
      const uint32_t groups = device::CurrentArch().aic_cores * 5 / 2 + 1;
      std::vector<int> data(groups * 3, 0), errors(groups, 0);
      testing::DeviceBuffer<int> dd(data), de(errors);
      Status st = RunCube("handoff", KernelType::kMix, groups, HandOff, dd.get(), de.get(), 20);
      ASSERT_TRUE(st.ok()) << profile << ": " << st.ToString();
      for (int e : de.ToHost())
        EXPECT_EQ(e, 0) << profile;
    }
  }
}

// Mode 0 among the AIVs of a MIX launch (the AICs are not part of that barrier).
void VectorBarrier(int* arrived, int* errors) {
  if (IsAic()) return;
  std::atomic_ref<int>(*arrived).fetch_add(1);
  CrossCoreSetFlag<0, PIPE_MTE3>(5);
  CrossCoreWaitFlag(5);
  if (std::atomic_ref<int>(*arrived).load() != static_cast<int>(GetBlockNum() * 2))
    std::atomic_ref<int>(*errors).fetch_add(1);
}

TEST(CrossCoreTest, ModeZeroIsABarrierOfOneCoreType) {
  testing::ProfileScope p("ascend910b");
  testing::DeviceBuffer<int> arrived(1), errors(1);
  Status st =
      RunCube("vec_barrier", KernelType::kMix, 24, VectorBarrier, arrived.get(), errors.get());
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(arrived.ToHost()[0], 48);
  EXPECT_EQ(errors.ToHost()[0], 0);
}

TEST(CrossCoreTest, ModeZeroNeedsTheLaunchResident) {
  testing::ProfileScope p("ascend910b");
  testing::DeviceBuffer<int> arrived(1), errors(1);
  Status st =
      RunCube("wide_barrier", KernelType::kMix, 25, VectorBarrier, arrived.get(), errors.get());
  EXPECT_TRUE(Contains(st, "CrossCoreSetFlag(mode 0) needs all 25 blocks resident"))
      << st.ToString();
}

// The AIC sets `sets` times before its AIVs begin to wait.
void BurstThenDrain(int sets) {
  if (IsAic()) {
    for (int i = 0; i < sets; ++i)
      CrossCoreSetFlag<2, PIPE_FIX>(3);
    CrossCoreSetFlag<2, PIPE_FIX>(6);  // "all sets are out"
  } else {
    CrossCoreWaitFlag(6);
    for (int i = 0; i < sets; ++i)
      CrossCoreWaitFlag(3);
  }
}

TEST(CrossCoreTest, MoreThanFifteenPendingSetsIsAFinding) {
  {
    testing::CheckedScope scope(true);
    EXPECT_TRUE(RunCube("fifteen", KernelType::kMix, 1, BurstThenDrain, 15).ok());
    Status st = RunCube("sixteen", KernelType::kMix, 1, BurstThenDrain, 16);
    EXPECT_TRUE(Contains(st, "kernel 'sixteen' block 0 (AIC)")) << st.ToString();
    EXPECT_TRUE(Contains(st, "CrossCoreSetFlag(mode 2): flag 3 of block 0 (AIV) would count 16"))
        << st.ToString();
    EXPECT_TRUE(Contains(st, "at most 15")) << st.ToString();
  }
  testing::CheckedScope scope(false);  // fast mode does not count
  EXPECT_TRUE(RunCube("sixteen_fast", KernelType::kMix, 1, BurstThenDrain, 16).ok());
}

// CATLASS arch/cross_core_sync.hpp: after every 15 one-way sets, wait for a reverse flag.
void WithReverse(int* sum, int rounds) {
  const uint32_t group = IsAic() ? GetBlockIdx() : GetBlockIdx() / GetSubBlockNum();
  if (IsAic()) {
    for (int r = 0; r < rounds; ++r) {
      if (r > 0 && r % 15 == 0) CrossCoreWaitFlag(7);
      CrossCoreSetFlag<2, PIPE_FIX>(0);
    }
  } else {
    for (int r = 0; r < rounds; ++r) {
      CrossCoreWaitFlag(0);
      std::atomic_ref<int>(sum[group]).fetch_add(1);
      if ((r + 1) % 15 == 0 && r + 1 < rounds) CrossCoreSetFlag<2, PIPE_MTE3>(7);
    }
  }
}

TEST(CrossCoreTest, CatlassReverseFlagsStayBelowTheLimit) {
  testing::CheckedScope scope(true);
  testing::ProfileScope p("ascend910b");
  testing::DeviceBuffer<int> sum(30);
  Status st = RunCube("reverse", KernelType::kMix, 30, WithReverse, sum.get(), 50);
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (int s : sum.ToHost())
    EXPECT_EQ(s, 100);
}

void WaitNeverSet() {
  if (IsAiv()) CrossCoreWaitFlag(9);
}

TEST(CrossCoreTest, AWaitNobodyAnswersIsReportedAsADeadlock) {
  Status st = RunCube("lonely_aiv", KernelType::kMix, 2, WaitNeverSet);
  EXPECT_TRUE(Contains(st, "kernel 'lonely_aiv' deadlocked")) << st.ToString();
  EXPECT_TRUE(Contains(st, "CrossCoreWaitFlag(mode 0) flag 9")) << st.ToString();
}

}  // namespace
}  // namespace tessera::kernel
