// Printing from kernels: block order and prefixes, limits, DumpTensor values.
#include <gtest/gtest.h>

#include <string>

#include "kernel_test_util.h"
#include "tessera/device/debug.h"
#include "tessera/kernel/kernel_operator.h"

namespace {

using namespace tessera;
using tessera::kernel::testing::DeviceBuffer;

// Blocks print in reverse block order in time (one per SyncAll round); the output must still come
// out in block order.
void ReversePrinter() {
  const uint32_t n = AscendC::GetBlockNum();
  for (uint32_t round = 0; round < n; ++round) {
    if (AscendC::GetBlockIdx() == n - 1 - round) {
      AscendC::printf("hello from %u of %u\nh=%.2f\n", AscendC::GetBlockIdx(), n, half(1.5f));
      PRINTF("last %s", "line");
    }
    AscendC::SyncAll();
  }
}

struct ProfileScope {
  explicit ProfileScope(const char* name) : previous(device::CurrentArch().name) {
    EXPECT_TRUE(device::SetProfile(name).ok());
  }
  ~ProfileScope() { (void)device::SetProfile(previous); }
  std::string previous;
};

TEST(KernelPrint, BlocksPrintInBlockOrderWithPrefixes) {
  ProfileScope profile("ascend910b");
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(device::Launch(device::LaunchConfig{4, device::KernelType::kAiv, "rev_print"},
                             ReversePrinter, device::Stream())
                  .ok());
  ASSERT_TRUE(device::Stream().Synchronize().ok());
  const std::string out = ::testing::internal::GetCapturedStdout();
  std::string expected;
  for (int b = 0; b < 4; ++b) {
    const std::string p = "[rev_print block " + std::to_string(b) + " AIV] ";
    expected +=
        p + "hello from " + std::to_string(b) + " of 4\n" + p + "h=1.50\n" + p + "last line\n";
  }
  EXPECT_EQ(out, expected);
}

void Chatty(uint32_t bytes) {
  std::string text(bytes, 'x');
  tessera::device::KernelPrint(text);
}

TEST(KernelPrint, LimitsCutAndSaySo) {
  const device::PrintLimits saved = device::GetPrintLimits();
  device::SetPrintLimits({64, 1 << 20});
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(device::Launch(device::LaunchConfig{1, device::KernelType::kAiv, "chatty"}, Chatty,
                             device::Stream(), 100u)
                  .ok());
  ASSERT_TRUE(device::Stream().Synchronize().ok());
  std::string out = ::testing::internal::GetCapturedStdout();
  const std::string p = "[chatty block 0 AIV] ";
  EXPECT_EQ(out, p + std::string(64, 'x') + "\n" + p +
                     "[output cut: 36 more bytes over the per-block limit of 64 bytes "
                     "(TESSERA_PRINT_BLOCK_LIMIT)]\n");

  // Per launch: 2 blocks x 50 bytes against a launch limit of 70: 70 kept, 30 cut.
  device::SetPrintLimits({1000, 70});
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(device::Launch(device::LaunchConfig{2, device::KernelType::kAiv, "chatty"}, Chatty,
                             device::Stream(), 50u)
                  .ok());
  ASSERT_TRUE(device::Stream().Synchronize().ok());
  out = ::testing::internal::GetCapturedStdout();
  device::SetPrintLimits(saved);
  EXPECT_EQ(std::count(out.begin(), out.end(), 'x'), 70) << out;
  EXPECT_NE(
      out.find("more bytes over the per-launch limit of 70 bytes (TESSERA_PRINT_LAUNCH_LIMIT)"),
      std::string::npos)
      << out;
}

void Dumper(GM_ADDR halves, GM_ADDR ints) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 16 * sizeof(float));
  AscendC::LocalTensor<float> f = buf.Get<float>();
  for (uint32_t i = 0; i < 16; ++i)
    f.SetValue(i, 0.5f * static_cast<float>(i) - 1.0f);
  AscendC::DumpTensor(f, 7, 10);
  AscendC::GlobalTensor<half> h;
  h.SetGlobalBuffer(reinterpret_cast<half*>(halves), 4);
  AscendC::DumpTensor(h, 8, 4);
  AscendC::GlobalTensor<int32_t> n;
  n.SetGlobalBuffer(reinterpret_cast<int32_t*>(ints), 3);
  AscendC::DumpTensor(n, 9, 100);  // more than the tensor holds: its 3 elements
}

TEST(KernelPrint, DumpTensorPrintsFloatHalfInt32) {
  DeviceBuffer<half> halves(
      std::vector<half>{half(0.25f), half(-2.0f), half(65504.0f), half(3.0f)});
  DeviceBuffer<int32_t> ints(std::vector<int32_t>{-7, 0, 2147483647});
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(device::Launch(device::LaunchConfig{1, device::KernelType::kAiv, "dump"}, Dumper,
                             device::Stream(), reinterpret_cast<GM_ADDR>(halves.get()),
                             reinterpret_cast<GM_ADDR>(ints.get()))
                  .ok());
  ASSERT_TRUE(device::Stream().Synchronize().ok());
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string p = "[dump block 0 AIV] ";
  EXPECT_EQ(out, p + "DumpTensor: desc=7, dtype=float32, position=VECCALC, 10 of 16 elements\n" +
                     p + "[0] -1 -0.5 0 0.5 1 1.5 2 2.5\n" + p + "[8] 3 3.5\n" + p +
                     "DumpTensor: desc=8, dtype=float16, position=GM, 4 of 4 elements\n" + p +
                     "[0] 0.25 -2 65504 3\n" + p +
                     "DumpTensor: desc=9, dtype=int32, position=GM, 3 of 3 elements\n" + p +
                     "[0] -7 0 2147483647\n");
}

}  // namespace
