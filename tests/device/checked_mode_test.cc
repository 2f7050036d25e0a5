// Checked mode: launch-argument validation, guard pages, canaries, quarantine, UB poisoning.
#include <gtest/gtest.h>

#include <vector>

#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "test_util.h"

namespace tessera::device {
namespace {

using testing::Contains;

void Scale(const float* in, float* out, int n) {
  for (int i = static_cast<int>(GetBlockIdx()); i < n; i += static_cast<int>(GetBlockNum())) {
    out[i] = 2.0f * in[i];
  }
}

TEST(CheckedModeTest, NonDevicePointerArgumentIsRejected) {
  testing::CheckedScope checked(true);
  auto* dev = testing::DeviceAlloc<float>(16);
  std::vector<float> host(16, 1.0f);
  Status st =
      Launch(LaunchConfig{2, KernelType::kAiv, "scale"}, Scale, Stream(), dev, host.data(), 16);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(st, "kernel 'scale': argument 1 (pointer")) << st.ToString();
  EXPECT_TRUE(Contains(st, "is not a live device allocation"));
  // Null pointers (absent optional inputs) and interior pointers are fine.
  EXPECT_TRUE(Launch(LaunchConfig{2, KernelType::kAiv, "scale"}, Scale, Stream(), dev + 4,
                     static_cast<float*>(nullptr), 0)
                  .ok());
  EXPECT_TRUE(Stream().Synchronize().ok());
  ASSERT_TRUE(Free(dev).ok());
  // A freed allocation is not live any more.
  Status after_free =
      Launch(LaunchConfig{1, KernelType::kAiv, "scale"}, Scale, Stream(), dev, dev, 0);
  EXPECT_TRUE(Contains(after_free, "argument 0")) << after_free.ToString();
}

TEST(CheckedModeTest, FastModeDoesNotInspectPointers) {
  testing::CheckedScope fast(false);
  std::vector<float> in(8, 3.0f), out(8, 0.0f);
  ASSERT_TRUE(Launch(Scale, 2, Stream(), in.data(), out.data(), 8).ok());
  ASSERT_TRUE(Stream().Synchronize().ok());
  EXPECT_EQ(out[7], 6.0f);
}

void WritePastEnd(float* p, int n, int past) {
  if (GetBlockIdx() == 1) p[n + past] = 1.0f;
}

TEST(CheckedModeDeathTest, GuardPageOverrunNamesAllocationAndBlock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        SetCheckedMode(true);
        auto* p = static_cast<float*>(*Malloc(1024 * sizeof(float)));  // ends exactly at the guard
        (void)Launch(LaunchConfig{4, KernelType::kAiv, "overrun"}, WritePastEnd, Stream(), p, 1024,
                     0);
        (void)Stream().Synchronize();
      },
      "kernel 'overrun' block 1 \\(AIV\\) accessed address 0x[0-9a-f]+, 0 bytes past the end of "
      "allocation #[0-9]+ \\(4096 bytes");
}

void ReadAfterFree(float* p, float* out) {
  *out = p[3];
}

TEST(CheckedModeDeathTest, UseAfterFreeFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        SetCheckedMode(true);
        auto* p = static_cast<float*>(*Malloc(64));
        float sink = 0;
        (void)Free(p);
        SetCheckedMode(false);  // let the launch through; the fault handler still knows p
        (void)Launch(LaunchConfig{1, KernelType::kAiv, "stale"}, ReadAfterFree, Stream(), p, &sink);
        (void)Stream().Synchronize();
      },
      "kernel 'stale' block 0 \\(AIV\\) .*after it was freed \\(use after free\\)");
}

TEST(CheckedModeTest, SmallOverrunInsideAlignmentSlackIsCaughtByCanary) {
  testing::CheckedScope checked(true);
  auto* p = testing::DeviceAlloc<float>(5);  // 20 bytes; 12 bytes of slack before the guard page
  auto s = Stream::Create();
  ASSERT_TRUE(
      Launch(LaunchConfig{2, KernelType::kAiv, "slack_writer"}, WritePastEnd, *s, p, 5, 1).ok());
  Status err = s->Synchronize();
  EXPECT_EQ(err.code(), StatusCode::kKernelError);
  EXPECT_TRUE(Contains(err, "kernel 'slack_writer' argument 0: bytes past the end of allocation #"))
      << err.ToString();
  EXPECT_TRUE(Contains(err, "(20 bytes at"));
  EXPECT_TRUE(Contains(err, "first at offset 24"));
  s->ResetError();
  Status freed = Free(p);  // Free re-checks and still releases the memory
  EXPECT_TRUE(Contains(freed, "bytes past the end"));
  EXPECT_FALSE(IsDeviceAddress(p));
}

TEST(CheckedModeTest, DoubleFreeIsNamed) {
  testing::CheckedScope checked(true);
  auto* p = testing::DeviceAlloc<int>(10);
  ASSERT_TRUE(Free(p).ok());
  Status again = Free(p);
  EXPECT_TRUE(Contains(again, "was already freed (double free)")) << again.ToString();
}

TEST(CheckedModeTest, CopiesMustStayInsideTheAllocation) {
  testing::CheckedScope checked(true);
  auto* p = testing::DeviceAlloc<unsigned char>(100);
  std::vector<unsigned char> host(200, 1);
  Status st = Memcpy(p + 50, 150, host.data(), 60, MemcpyKind::kHostToDevice);
  EXPECT_TRUE(Contains(st, "destination range of 60 bytes at offset 50 exceeds allocation #"))
      << st.ToString();
  st = Memcpy(host.data(), 200, host.data() + 100, 10, MemcpyKind::kDeviceToHost);
  EXPECT_TRUE(Contains(st, "source 0x")) << st.ToString();
  EXPECT_TRUE(Contains(Memset(p + 90, 20, 0, 20), "exceeds allocation"));
  EXPECT_TRUE(Memcpy(p + 50, 50, host.data(), 50, MemcpyKind::kHostToDevice).ok());
  ASSERT_TRUE(Free(p).ok());
}

void ReadUb(unsigned char* out) {
  const BlockContext* ctx = CurrentBlock();
  out[0] = static_cast<unsigned char>(ctx->ub[0]);
  out[1] = static_cast<unsigned char>(ctx->ub[ctx->ub_bytes - 1]);
}

TEST(CheckedModeTest, UnifiedBufferStartsPoisoned) {
  testing::CheckedScope checked(true);
  auto* out = testing::DeviceAlloc<unsigned char>(2);
  ASSERT_TRUE(Launch(ReadUb, 1, Stream(), out).ok());
  ASSERT_TRUE(Stream().Synchronize().ok());
  unsigned char host[2] = {};
  ASSERT_TRUE(Memcpy(host, 2, out, 2, MemcpyKind::kDeviceToHost).ok());
  EXPECT_EQ(host[0], 0xCD);
  EXPECT_EQ(host[1], 0xCD);
  ASSERT_TRUE(Free(out).ok());
}

}  // namespace
}  // namespace tessera::device

namespace tessera::device {
namespace {

// The quarantine is bounded by count too, so the fault handler's table never fills up and
// overruns keep their names after many small alloc/free cycles.
TEST(CheckedModeDeathTest, GuardReportSurvivesManyFrees) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        SetCheckedMode(true);
        for (int i = 0; i < 9000; ++i)
          (void)Free(*Malloc(64));
        auto* p = static_cast<float*>(*Malloc(256 * sizeof(float)));
        (void)Launch(LaunchConfig{2, KernelType::kAiv, "late_overrun"}, WritePastEnd, Stream(), p,
                     256, 8);
        (void)Stream().Synchronize();
      },
      "kernel 'late_overrun' block 1 \\(AIV\\) accessed address 0x[0-9a-f]+, 32 bytes past the end "
      "of "
      "allocation #[0-9]+ \\(1024 bytes");
}

}  // namespace
}  // namespace tessera::device
