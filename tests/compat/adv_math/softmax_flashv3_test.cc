// SoftmaxFlashV3 (with SoftMaxParams) in the vendor's dialect, in fast and checked mode, against a
// double-precision reference of the vendor's formula on random data. Built as C++17 and C++20.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../device_test_util.h"
#include "kernel_operator.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"

namespace {

constexpr float kAlpha = 0.9375f;

// x: rows x cols half; stats: mean, sum, max as [rows, 8] fp32 (in and out, aliased as the
// vendor's sample does); expMax [rows, 16] half.
template <bool isUpdate>
__global__ __vector__ void flashv3_custom(__gm__ half* x, __gm__ half* y, __gm__ float* mean,
                                          __gm__ float* sum, __gm__ float* max, __gm__ half* expMax,
                                          uint32_t rows, uint32_t cols, uint32_t loopCnt) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> bx, by, bmean, bsum, bmax, bexp;
  pipe.InitBuffer(bx, rows * cols * 2);
  pipe.InitBuffer(by, rows * cols * 2);
  pipe.InitBuffer(bmean, rows * 32);
  pipe.InitBuffer(bsum, rows * 32);
  pipe.InitBuffer(bmax, rows * 32);
  pipe.InitBuffer(bexp, rows * 32);
  AscendC::GlobalTensor<half> gx, gy, gexp;
  AscendC::GlobalTensor<float> gmean, gsum, gmax;
  gx.SetGlobalBuffer(x, rows * cols);
  gy.SetGlobalBuffer(y, rows * cols);
  gmean.SetGlobalBuffer(mean, rows * 8);
  gsum.SetGlobalBuffer(sum, rows * 8);
  gmax.SetGlobalBuffer(max, rows * 8);
  gexp.SetGlobalBuffer(expMax, rows * 16);
  AscendC::LocalTensor<half> lx = bx.Get<half>(), ly = by.Get<half>(), lexp = bexp.Get<half>();
  AscendC::LocalTensor<float> lmean = bmean.Get<float>(), lsum = bsum.Get<float>(),
                              lmax = bmax.Get<float>();
  AscendC::DataCopy(lx, gx, rows * cols);
  AscendC::DataCopy(lmean, gmean, rows * 8);
  AscendC::DataCopy(lsum, gsum, rows * 8);
  AscendC::DataCopy(lmax, gmax, rows * 8);
  AscendC::Duplicate(lexp, static_cast<half>(0.f), rows * 16);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::SoftMaxParams params = {rows, cols, rows, cols, loopCnt, 8, kAlpha};
  SoftMaxTiling tiling{};
  AscendC::SoftmaxFlashV3<half, float, isUpdate>(ly, lmean, lsum, lmax, lx, lexp, lmean, lsum, lmax,
                                                 tiling, params);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(gy, ly, rows * cols);
  AscendC::DataCopy(gmean, lmean, rows * 8);
  AscendC::DataCopy(gsum, lsum, rows * 8);
  AscendC::DataCopy(gmax, lmax, rows * 8);
  AscendC::DataCopy(gexp, lexp, rows * 16);
}

struct Row {
  std::vector<double> y;
  double mean, max, sum, exp_max;
};

// The vendor's formula, in double: split j's mean takes, of the first 512 elements, those in
// 64-element group j, and of every later 64-element repeat the 8 at offset 8j; the shift applies
// to the j-th contiguous cols / 8 elements.
Row Reference(const std::vector<float>& x, uint32_t cols, bool update, uint32_t loop_cnt,
              double in_mean, double in_max, double in_sum) {
  const double s = static_cast<double>(kAlpha) / (1.0 - kAlpha);
  const uint32_t base = cols / 8;
  double split_sum[8] = {};
  double total = 0;
  for (uint32_t i = 0; i < cols; ++i) {
    const uint32_t g = i < 512 ? i / 64 : ((i - 512) % 64) / 8;
    split_sum[g] += x[i];
    total += x[i];
  }
  const double a2 = total / cols;
  std::vector<double> v(cols);
  for (uint32_t i = 0; i < cols; ++i)
    v[i] = x[i] - (a2 - split_sum[i / base] / base) * s;
  const double m1 = *std::max_element(v.begin(), v.end());
  Row r{};
  r.mean = update ? (a2 + in_mean * (loop_cnt - 1.0)) / loop_cnt : a2;
  const double c = (a2 - r.mean) * s;
  r.max = m1 + c;
  if (update) {
    const double p = (in_mean - r.mean) * s;
    r.max = std::max(r.max, in_max + p);
    r.exp_max = std::exp(in_max - r.max + p);
  }
  double sum = 0;
  r.y.resize(cols);
  for (uint32_t i = 0; i < cols; ++i) {
    r.y[i] = std::exp(v[i] - (r.max - c));
    sum += r.y[i];
  }
  r.sum = update ? r.exp_max * in_sum + sum : sum;
  return r;
}

using compat_test::Dev;
class SoftmaxFlashV3Test : public compat_test::FastAndCheckedTest {};

void Near(double got, double want, double rel, const std::string& what) {
  ASSERT_NEAR(got, want, rel * std::abs(want) + 1e-6) << what;
}

TEST_P(SoftmaxFlashV3Test, MatchesTheVendorFormula) {
  struct Case {
    uint32_t rows, cols;
    bool update;
  };
  for (const Case& k : {Case{1, 512, false}, Case{3, 576, true}, Case{8, 2048, true},
                        Case{7, 1024, false}, Case{2, 704, true}}) {
    const uint32_t loop_cnt = 3;
    std::mt19937 rng(k.rows * 131 + k.cols);
    std::uniform_real_distribution<float> dx(0.f, 10.f), ds(0.2f, 2.f);
    std::vector<half> x(k.rows * k.cols);
    std::vector<float> xf(x.size()), mean(k.rows * 8), sum(k.rows * 8), max(k.rows * 8);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<half>(dx(rng));
      xf[i] = static_cast<float>(x[i]);
    }
    std::vector<float> in_mean(k.rows), in_max(k.rows), in_sum(k.rows);
    for (uint32_t r = 0; r < k.rows; ++r) {
      in_mean[r] = ds(rng) * 3.f;
      in_max[r] = ds(rng) * 5.f;
      in_sum[r] = ds(rng) * 100.f;
      for (uint32_t j = 0; j < 8; ++j) {
        mean[r * 8 + j] = in_mean[r];
        max[r * 8 + j] = in_max[r];
        sum[r * 8 + j] = in_sum[r];
      }
    }
    Dev gx(x.size() * 2), gy(x.size() * 2), gmean(mean.size() * 4), gsum(sum.size() * 4),
        gmax(max.size() * 4), gexp(k.rows * 32);
    gx.Put(x.data());
    gmean.Put(mean.data());
    gsum.Put(sum.data());
    gmax.Put(max.data());
    tessera::device::Stream stream;
    auto* kernel = k.update ? flashv3_custom<true> : flashv3_custom<false>;
    ASSERT_TRUE(tessera::device::Launch(kernel, 1, stream, static_cast<half*>(gx.ptr),
                                        static_cast<half*>(gy.ptr), static_cast<float*>(gmean.ptr),
                                        static_cast<float*>(gsum.ptr),
                                        static_cast<float*>(gmax.ptr), static_cast<half*>(gexp.ptr),
                                        k.rows, k.cols, loop_cnt)
                    .ok());
    const tessera::Status status = stream.Synchronize();
    ASSERT_TRUE(status.ok()) << status.ToString();
    std::vector<half> y(x.size()), exp_max(k.rows * 16);
    gy.Get(y.data());
    gmean.Get(mean.data());
    gsum.Get(sum.data());
    gmax.Get(max.data());
    gexp.Get(exp_max.data());
    for (uint32_t r = 0; r < k.rows; ++r) {
      const std::vector<float> row(xf.begin() + r * k.cols, xf.begin() + (r + 1) * k.cols);
      const Row want = Reference(row, k.cols, k.update, loop_cnt, in_mean[r], in_max[r], in_sum[r]);
      const std::string at = "rows " + std::to_string(k.rows) + " cols " + std::to_string(k.cols) +
                             " row " + std::to_string(r);
      for (uint32_t j = 0; j < 8; ++j) {
        Near(mean[r * 8 + j], want.mean, 1e-5, "mean " + at);
        Near(max[r * 8 + j], want.max, 1e-5, "max " + at);
        Near(sum[r * 8 + j], want.sum, 1e-4, "sum " + at);
      }
      if (k.update) {
        for (uint32_t j = 0; j < 16; ++j)
          Near(static_cast<float>(exp_max[r * 16 + j]), want.exp_max, 2e-3, "expMax " + at);
      }
      for (uint32_t c = 0; c < k.cols; ++c)
        Near(static_cast<float>(y[r * k.cols + c]), want.y[c], 2e-3,
             "y " + at + " col " + std::to_string(c));
    }
  }
}

TEST_P(SoftmaxFlashV3Test, ShapesTheVendorRefusesFailTheBlock) {
  const uint32_t rows = 2;
  for (uint32_t cols : {448u, 520u}) {  // under 512; not a multiple of 64
    Dev gx(rows * cols * 2), gy(rows * cols * 2), g8a(rows * 32), g8b(rows * 32), g8c(rows * 32),
        gexp(rows * 32);
    std::vector<uint8_t> zeros(rows * cols * 2, 0);
    gx.Put(zeros.data());
    g8a.Put(zeros.data());
    g8b.Put(zeros.data());
    g8c.Put(zeros.data());
    tessera::device::Stream stream;
    const tessera::Status launched = tessera::device::Launch(
        flashv3_custom<false>, 1, stream, static_cast<half*>(gx.ptr), static_cast<half*>(gy.ptr),
        static_cast<float*>(g8a.ptr), static_cast<float*>(g8b.ptr), static_cast<float*>(g8c.ptr),
        static_cast<half*>(gexp.ptr), rows, cols, 1u);
    ASSERT_TRUE(launched.ok()) << launched.ToString();
    const tessera::Status status = stream.Synchronize();
    ASSERT_FALSE(status.ok()) << cols;
    EXPECT_NE(status.ToString().find("srcK >= 512 and a multiple of 64"), std::string::npos)
        << status.ToString();
    stream.ResetError();
  }
}

// Fresh statistics buffers (never written before the call), every statistic copied to GM: the
// flash softmaxes must mark their outputs written. v3 selects SoftmaxFlashV3 (half x, [rows, 8]
// float stats) or SoftmaxFlashV2 (float x, [rows, 8] float stats), both without update. With
// `updateUnwritten`, the update form runs on running statistics that were never written, which
// checked mode must report as reads.
__global__ __vector__ void flash_fresh_custom(__gm__ uint8_t* x, __gm__ uint8_t* y,
                                              __gm__ float* mean, __gm__ float* sum,
                                              __gm__ float* max, uint32_t rows, uint32_t cols,
                                              int32_t v3, int32_t updateUnwritten) {
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> qx;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> qy, qmean, qsum, qmax, qexp;
  AscendC::TBuf<AscendC::TPosition::VECCALC> inMean, inSum, inMax;
  const uint32_t elem = v3 ? 2 : 4;
  pipe.InitBuffer(qx, 1, rows * cols * elem);
  pipe.InitBuffer(qy, 1, rows * cols * elem);
  pipe.InitBuffer(qmean, 1, rows * 32);
  pipe.InitBuffer(qsum, 1, rows * 32);
  pipe.InitBuffer(qmax, 1, rows * 32);
  pipe.InitBuffer(qexp, 1, rows * 32);
  pipe.InitBuffer(inMean, rows * 32);
  pipe.InitBuffer(inSum, rows * 32);
  pipe.InitBuffer(inMax, rows * 32);
  AscendC::GlobalTensor<float> gmean, gsum, gmax;
  gmean.SetGlobalBuffer(mean, rows * 8);
  gsum.SetGlobalBuffer(sum, rows * 8);
  gmax.SetGlobalBuffer(max, rows * 8);
  AscendC::LocalTensor<float> lmean = qmean.AllocTensor<float>(), lsum = qsum.AllocTensor<float>(),
                              lmax = qmax.AllocTensor<float>();
  SoftMaxTiling tiling{};
  if (v3) {
    AscendC::GlobalTensor<half> gx, gy;
    gx.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), rows * cols);
    gy.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y), rows * cols);
    AscendC::LocalTensor<half> lx = qx.AllocTensor<half>(), ly = qy.AllocTensor<half>(),
                               lexp = qexp.AllocTensor<half>();
    AscendC::DataCopy(lx, gx, rows * cols);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::SoftMaxParams params = {rows, cols, rows, cols, 1, 8, kAlpha};
    if (updateUnwritten) {
      AscendC::SoftmaxFlashV3<half, float, true>(ly, lmean, lsum, lmax, lx, lexp,
                                                 inMean.Get<float>(), inSum.Get<float>(),
                                                 inMax.Get<float>(), tiling, params);
    } else {
      AscendC::SoftmaxFlashV3<half, float, false>(ly, lmean, lsum, lmax, lx, lexp,
                                                  inMean.Get<float>(), inSum.Get<float>(),
                                                  inMax.Get<float>(), tiling, params);
    }
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(gy, ly, rows * cols);
    qx.FreeTensor(lx);
    qy.FreeTensor(ly);
    qexp.FreeTensor(lexp);
  } else {
    AscendC::GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), rows * cols);
    gy.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), rows * cols);
    AscendC::LocalTensor<float> lx = qx.AllocTensor<float>(), ly = qy.AllocTensor<float>(),
                                lexp = qexp.AllocTensor<float>();
    AscendC::DataCopy(lx, gx, rows * cols);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::SoftMaxShapeInfo shape = {rows, cols, rows, cols};
    if (updateUnwritten) {
      AscendC::SoftmaxFlashV2<float, true>(ly, lsum, lmax, lx, lexp, inSum.Get<float>(),
                                           inMax.Get<float>(), tiling, shape);
    } else {
      AscendC::SoftmaxFlashV2<float, false>(ly, lsum, lmax, lx, lexp, inSum.Get<float>(),
                                            inMax.Get<float>(), tiling, shape);
    }
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(gy, ly, rows * cols);
    qx.FreeTensor(lx);
    qy.FreeTensor(ly);
    qexp.FreeTensor(lexp);
  }
  if (v3) AscendC::DataCopy(gmean, lmean, rows * 8);
  AscendC::DataCopy(gsum, lsum, rows * 8);
  AscendC::DataCopy(gmax, lmax, rows * 8);
  qmean.FreeTensor(lmean);
  qsum.FreeTensor(lsum);
  qmax.FreeTensor(lmax);
}

TEST_P(SoftmaxFlashV3Test, FreshStatisticOutputsAreWritten) {
  for (int32_t v3 : {1, 0}) {
    for (uint32_t rows : {1u, 7u}) {
      const uint32_t cols = v3 ? 576 : 72;
      std::mt19937 rng(rows * 17 + static_cast<uint32_t>(v3));
      std::uniform_real_distribution<float> dx(-4.f, 4.f);
      std::vector<float> xf(rows * cols);
      std::vector<half> xh(xf.size());
      for (size_t i = 0; i < xf.size(); ++i) {
        xh[i] = static_cast<half>(dx(rng));
        xf[i] = v3 ? static_cast<float>(xh[i]) : dx(rng);
      }
      const size_t elem = v3 ? 2 : 4;
      Dev gx(xf.size() * elem), gy(xf.size() * elem), gmean(rows * 32), gsum(rows * 32),
          gmax(rows * 32);
      if (v3) {
        gx.Put(xh.data());
      } else {
        gx.Put(xf.data());
      }
      tessera::device::Stream stream;
      ASSERT_TRUE(
          tessera::device::Launch(flash_fresh_custom, 1, stream, static_cast<uint8_t*>(gx.ptr),
                                  static_cast<uint8_t*>(gy.ptr), static_cast<float*>(gmean.ptr),
                                  static_cast<float*>(gsum.ptr), static_cast<float*>(gmax.ptr),
                                  rows, cols, v3, int32_t{0})
              .ok());
      const tessera::Status status = stream.Synchronize();
      ASSERT_TRUE(status.ok()) << "v3 " << v3 << " rows " << rows << ": " << status.ToString();
      std::vector<float> mean(rows * 8), sum(rows * 8), max(rows * 8), y(xf.size());
      std::vector<half> yh(xf.size());
      gmean.Get(mean.data());
      gsum.Get(sum.data());
      gmax.Get(max.data());
      if (v3) {
        gy.Get(yh.data());
        for (size_t i = 0; i < y.size(); ++i)
          y[i] = static_cast<float>(yh[i]);
      } else {
        gy.Get(y.data());
      }
      for (uint32_t r = 0; r < rows; ++r) {
        const std::vector<float> row(xf.begin() + r * cols, xf.begin() + (r + 1) * cols);
        const std::string at = "v3 " + std::to_string(v3) + " row " + std::to_string(r);
        Row want{};
        if (v3) {
          want = Reference(row, cols, false, 1, 0, 0, 0);
        } else {
          // SoftmaxFlashV2 without update: max, e^(x - max) and its sum.
          want.max = *std::max_element(row.begin(), row.end());
          want.sum = 0;
          for (float v : row) {
            want.y.push_back(std::exp(static_cast<double>(v) - want.max));
            want.sum += want.y.back();
          }
        }
        for (uint32_t j = 0; j < 8; ++j) {
          if (v3) Near(mean[r * 8 + j], want.mean, 1e-5, "mean " + at);
          Near(max[r * 8 + j], want.max, 1e-5, "max " + at);
          Near(sum[r * 8 + j], want.sum, 1e-4, "sum " + at);
        }
        for (uint32_t c = 0; c < cols; ++c)
          Near(y[r * cols + c], want.y[c], v3 ? 2e-3 : 1e-5, "y " + at);
      }
    }
  }
}

// Reads of unwritten UB are reported in checked mode only.
TEST(SoftmaxFlashChecked, UnwrittenRunningStatisticsAreReported) {
  const bool was_checked = tessera::device::CheckedMode();
  tessera::device::SetCheckedMode(true);
  struct Restore {
    bool mode;
    ~Restore() { tessera::device::SetCheckedMode(mode); }
  } restore{was_checked};
  const uint32_t rows = 3;
  for (int32_t v3 : {1, 0}) {
    const uint32_t cols = v3 ? 512 : 64;
    std::vector<float> xf(rows * cols);
    std::mt19937 rng(5u + static_cast<uint32_t>(v3));
    std::uniform_real_distribution<float> dx(-4.f, 4.f);
    for (float& v : xf)
      v = dx(rng);
    Dev gx(xf.size() * 4), gy(xf.size() * 4), gmean(rows * 32), gsum(rows * 32), gmax(rows * 32);
    gx.Put(xf.data());
    tessera::device::Stream stream;
    ASSERT_TRUE(
        tessera::device::Launch(flash_fresh_custom, 1, stream, static_cast<uint8_t*>(gx.ptr),
                                static_cast<uint8_t*>(gy.ptr), static_cast<float*>(gmean.ptr),
                                static_cast<float*>(gsum.ptr), static_cast<float*>(gmax.ptr), rows,
                                cols, v3, int32_t{1})
            .ok());
    const tessera::Status status = stream.Synchronize();
    ASSERT_FALSE(status.ok()) << v3;
    const std::string text = status.ToString();
    EXPECT_NE(text.find(v3 ? "SoftmaxFlashV3" : "SoftmaxFlashV2"), std::string::npos) << text;
    EXPECT_NE(text.find(v3 ? "inMean" : "inExpSum"), std::string::npos) << text;
    EXPECT_NE(text.find("never written"), std::string::npos) << text;
    stream.ResetError();
  }
}

INSTANTIATE_TEST_SUITE_P(FastAndChecked, SoftmaxFlashV3Test, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Checked") : std::string("Fast");
                         });

}  // namespace
