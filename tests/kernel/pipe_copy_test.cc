// TPipe/TQue/TBuf and DataCopy/DataCopyPad, in fast and checked mode, on both profiles.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernel_test_util.h"
#include "tessera/kernel/kernel.h"

namespace tessera::kernel {
namespace {

using testing::Contains;
using testing::DeviceBuffer;
using testing::RunKernel;

constexpr uint32_t kTile = 1024;  // elements per tile (4 KiB of float)

// y = 3x + 1 over this block's contiguous share, through a depth-2 in/out pipeline; full tiles use
// DataCopy, the last partial tile DataCopyPad.
void Affine(float* x, float* y, int64_t n) {
  // Shares are whole 32-byte blocks (8 floats) so every block's GM start is aligned, as DataCopy
  // requires.
  const int64_t per = ((n + GetBlockNum() - 1) / GetBlockNum() + 7) / 8 * 8;
  const int64_t begin = std::min<int64_t>(n, per * GetBlockIdx());
  const int64_t end = std::min<int64_t>(n, begin + per);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer(x + begin, static_cast<uint64_t>(end - begin));
  yg.SetGlobalBuffer(y + begin, static_cast<uint64_t>(end - begin));
  TPipe pipe;
  TQue<TPosition::VECIN, 2> in;
  TQue<TPosition::VECOUT, 2> out;
  pipe.InitBuffer(in, 2, kTile * sizeof(float));
  pipe.InitBuffer(out, 2, kTile * sizeof(float));
  for (int64_t off = 0; off < end - begin; off += kTile) {
    const auto len = static_cast<uint32_t>(std::min<int64_t>(kTile, end - begin - off));
    const bool full = len % 8 == 0;  // 32-byte multiple
    LocalTensor<float> xl = in.AllocTensor<float>();
    if (full) {
      DataCopy(xl, xg[static_cast<uint64_t>(off)], len);
    } else {
      DataCopyPad(xl, xg[static_cast<uint64_t>(off)], DataCopyExtParams{1, len * 4, 0, 0, 0},
                  DataCopyPadExtParams<float>{});
    }
    in.EnQue(xl);
    LocalTensor<float> xr = in.DeQue<float>();
    LocalTensor<float> yl = out.AllocTensor<float>();
    for (uint32_t i = 0; i < len; ++i)
      yl.SetValue(i, 3.0f * xr.GetValue(i) + 1.0f);
    out.EnQue(yl);
    in.FreeTensor(xr);
    LocalTensor<float> yr = out.DeQue<float>();
    if (full) {
      DataCopy(yg[static_cast<uint64_t>(off)], yr, len);
    } else {
      DataCopyPad(yg[static_cast<uint64_t>(off)], yr, DataCopyExtParams{1, len * 4, 0, 0, 0});
    }
    out.FreeTensor(yr);
  }
}

struct PipelineCase {
  const char* profile;
  bool checked;
};

class PipelineTest : public ::testing::TestWithParam<PipelineCase> {};

TEST_P(PipelineTest, AffineMatchesScalarReference) {
  const PipelineCase c = GetParam();
  ASSERT_TRUE(device::SetProfile(c.profile).ok());
  testing::CheckedScope checked(c.checked);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-10, 10);
  for (int64_t n : {int64_t{1}, int64_t{31}, int64_t{4097}, int64_t{1000003}}) {
    std::vector<float> hx(static_cast<size_t>(n));
    for (auto& v : hx)
      v = dist(rng);
    DeviceBuffer<float> x(hx);
    DeviceBuffer<float> y(static_cast<size_t>(n), -777.0f);
    Status st = RunKernel("affine", device::CurrentArch().aiv_cores, Affine, x.get(), y.get(), n);
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<float> hy = y.ToHost();
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(hy[static_cast<size_t>(i)], 3.0f * hx[static_cast<size_t>(i)] + 1.0f)
          << n << " @" << i;
  }
  ASSERT_TRUE(device::SetProfile("native").ok());
}

INSTANTIATE_TEST_SUITE_P(
    Profiles, PipelineTest,
    ::testing::Values(PipelineCase{"native", false}, PipelineCase{"native", true},
                      PipelineCase{"ascend910b", false}, PipelineCase{"ascend910b", true}),
    [](const auto& info) {
      return std::string(info.param.profile == std::string("native") ? "Native" : "Ascend910b") +
             (info.param.checked ? "Checked" : "Fast");
    });

// A 6 x 24 sub-matrix at column 8 of a 10 x 40 float matrix, gathered into UB rows of 24 and
// scattered back into a 10 x 48 matrix at column 16 (all in 32-byte blocks of 8 floats).
void Strided(float* src, float* dst) {
  GlobalTensor<float> s, d;
  s.SetGlobalBuffer(src, 400);
  d.SetGlobalBuffer(dst, 480);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 6 * 24 * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, s[2 * 40 + 8], DataCopyParams{6, 3, 2, 0});   // 3 blocks per row, skip 2 between rows
  DataCopy(d[1 * 48 + 16], t, DataCopyParams{6, 3, 0, 3});  // rows 48 wide: skip 3 blocks
}

TEST(DataCopyTest, StridedParamsGatherAndScatter) {
  std::vector<float> hs(400);
  for (size_t i = 0; i < hs.size(); ++i)
    hs[i] = static_cast<float>(i) * 0.5f;
  DeviceBuffer<float> src(hs);
  DeviceBuffer<float> dst(480, -1.0f);
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    ASSERT_TRUE(RunKernel("strided", 1, Strided, src.get(), dst.get()).ok());
    const auto out = dst.ToHost();
    for (int r = 0; r < 10; ++r) {
      for (int c = 0; c < 48; ++c) {
        const bool inside = r >= 1 && r < 7 && c >= 16 && c < 40;
        const float want =
            inside ? hs[static_cast<size_t>((r - 1 + 2) * 40 + 8 + (c - 16))] : -1.0f;
        ASSERT_EQ(out[static_cast<size_t>(r * 48 + c)], want) << r << "," << c;
      }
    }
  }
}

// Rows of 5 floats, 7 floats apart in GM, land in UB rows of 8 with 2 elements of -9 on the left
// and 1 on the right; then the first 7 elements of each UB row go back to GM, packed.
void PadRoundTrip(float* src, float* dst, float* ub_image) {
  GlobalTensor<float> s, d, img;
  s.SetGlobalBuffer(src, 7 * 4);
  d.SetGlobalBuffer(dst, 7 * 4);
  img.SetGlobalBuffer(ub_image, 4 * 8);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4 * 8 * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  for (uint32_t i = 0; i < 32; ++i)
    t.SetValue(i, 100.0f);
  DataCopyPad(t, s, DataCopyExtParams{4, 5 * 4, 2 * 4, 0, 0},
              DataCopyPadExtParams<float>{true, 2, 1, -9.0f});
  DataCopy(img, t, 32);
  DataCopyPad(d, t, DataCopyExtParams{4, 7 * 4, 0, 0, 0});
}

TEST(DataCopyTest, PadAndUnpad) {
  std::vector<float> hs(28);
  for (size_t i = 0; i < hs.size(); ++i)
    hs[i] = static_cast<float>(i + 1);
  DeviceBuffer<float> src(hs);
  DeviceBuffer<float> dst(28, 0.0f);
  DeviceBuffer<float> img(32, 0.0f);
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    Status st = RunKernel("pad", 1, PadRoundTrip, src.get(), dst.get(), img.get());
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto ub = img.ToHost();
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(ub[r * 8 + 0], -9.0f);
      EXPECT_EQ(ub[r * 8 + 1], -9.0f);
      for (int c = 0; c < 5; ++c)
        EXPECT_EQ(ub[r * 8 + 2 + c], hs[r * 7 + c]);
      EXPECT_EQ(ub[r * 8 + 7], -9.0f);
    }
    // Each UB row is read from its 32-byte aligned start.
    const auto out = dst.ToHost();
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 7; ++c)
        EXPECT_EQ(out[r * 7 + c], ub[r * 8 + c]) << r << "," << c;
    }
  }
}

}  // namespace
}  // namespace tessera::kernel
