#include "tessera/device/arch_spec.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "tessera/device/launch.h"
#include "test_util.h"

namespace tessera::device {
namespace {

using testing::Contains;

TEST(ArchSpecTest, NativeUsesHardwareThreads) {
  auto native = FindProfile("native");
  ASSERT_TRUE(native.ok());
  EXPECT_EQ(native->aiv_cores, HardwareThreads());
  EXPECT_GE(native->aic_cores * native->task_ration, native->aiv_cores);
  EXPECT_EQ(native->ub_bytes, 192u << 10);
  EXPECT_EQ(native->alignment, 32u);
  EXPECT_FALSE(native->emulated);
  EXPECT_EQ(native->soc, DetectSoc());
}

TEST(ArchSpecTest, EmulatedNpuProfile) {
  auto npu = FindProfile("ascend910b");
  ASSERT_TRUE(npu.ok());
  EXPECT_EQ(npu->aic_cores, 24u);
  EXPECT_EQ(npu->aiv_cores, 48u);
  EXPECT_EQ(npu->task_ration, 2u);
  EXPECT_EQ(npu->ub_bytes, 192u << 10);
  EXPECT_EQ(npu->l1_bytes, 512u << 10);
  EXPECT_EQ(npu->l0a_bytes, 64u << 10);
  EXPECT_EQ(npu->l0b_bytes, 64u << 10);
  EXPECT_EQ(npu->l0c_bytes, 128u << 10);
  EXPECT_TRUE(npu->emulated);
}

TEST(ArchSpecTest, UnknownProfileListsKnownOnes) {
  auto bad = FindProfile("tpu");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(bad.status(), "'tpu'"));
  EXPECT_TRUE(Contains(bad.status(), "ascend910b"));
  EXPECT_EQ(SetProfile("tpu").code(), StatusCode::kNotFound);
}

TEST(ArchSpecTest, SocIsAKnownIsaLevel) {
  const std::set<std::string> known = {"x86-64",    "x86-64-v2", "x86-64-v3",
                                       "x86-64-v4", "armv8-a",   "generic"};
  EXPECT_TRUE(known.count(DetectSoc())) << DetectSoc();
}

std::atomic<bool> g_release{false};
void WaitForHost() {
  while (!g_release.load()) {
  }
}

TEST(ArchSpecTest, SetProfileSwitchesAndRefusesWhileBusy) {
  testing::ProfileScope scope("ascend910b");
  EXPECT_EQ(CurrentArch().aiv_cores, 48u);
  auto stream = Stream::Create();
  ASSERT_TRUE(stream.ok());
  g_release = false;
  ASSERT_TRUE(
      Launch(LaunchConfig{2, KernelType::kAiv, "wait_for_host"}, WaitForHost, *stream).ok());
  Status busy = SetProfile("native");
  EXPECT_EQ(busy.code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Contains(busy, "in flight"));
  g_release = true;
  ASSERT_TRUE(stream->Synchronize().ok());
  EXPECT_TRUE(SetProfile("native").ok());
  EXPECT_EQ(CurrentArch().name, "native");
}

}  // namespace
}  // namespace tessera::device
