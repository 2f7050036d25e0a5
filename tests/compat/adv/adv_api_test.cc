// The vendor's advanced kernel APIs (tessera/compat/kernel/adv/) in the vendor's dialect, launched
// through tessera's device runtime and compared with scalar double references on random data of
// awkward sizes, fp32 and half; plus the host tiling queries (tiling/tiling_api.h). Built as C++17
// and C++20.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "dev_buf.h"
#include "kernel_operator.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tiling/tiling_api.h"

// The host side as the vendor's samples write it: optiling classes filled by the queries, saved
// with SaveToBuffer.
namespace optiling {
BEGIN_TILING_DATA_DEF(LnTestTilingData)
TILING_DATA_FIELD_DEF_STRUCT(LayerNormTiling, ln);
TILING_DATA_FIELD_DEF_STRUCT(LayerNormGradTiling, grad);
TILING_DATA_FIELD_DEF_STRUCT(LayerNormGradBetaTiling, beta);
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace {

using adv_test::Align;
using adv_test::DevBuf;

template <class T>
std::vector<T> Random(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v)
    x = static_cast<T>(d(rng));
  return v;
}

using UbBuf = AscendC::TBuf<AscendC::TPosition::VECCALC>;

// Copies `n` elements (a multiple of 32 bytes) GM -> a new UB buffer.
template <class T>
AscendC::LocalTensor<T> Load(AscendC::TPipe& pipe, UbBuf& buf, __gm__ uint8_t* gm, uint32_t n) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm), n);
  pipe.InitBuffer(buf, n * sizeof(T));
  AscendC::LocalTensor<T> t = buf.Get<T>();
  AscendC::DataCopy(t, g, n);
  AscendC::PipeBarrier<PIPE_ALL>();
  return t;
}
template <class T>
void Store(__gm__ uint8_t* gm, const AscendC::LocalTensor<T>& t, uint32_t n) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm), n);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(g, t, n);
}

// Launches `kernel` as one block on a fresh stream and waits: the launch's or the kernel's status.
template <class... Params, class... Args>
tessera::Status RunKernel(void (*kernel)(Params...), Args... args) {
  auto stream = tessera::device::Stream::Create();
  if (!stream.ok()) return stream.status();
  tessera::Status st = tessera::device::Launch(kernel, 1, *stream, args...);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

// ---------------------------------------------------------------------------------------------
// ReduceMax / ReduceMin / ReduceSum<T, Pattern::Reduce::AR | RA>

enum Op : int { kMax, kMin, kSum };

template <class T, class Pattern, int op>
__global__ __vector__ void reduce_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, uint32_t outer,
                                         uint32_t inner, uint32_t stored, uint32_t out_aligned,
                                         uint32_t with_tmp, uint32_t inner_pad) {
  AscendC::TPipe pipe;
  UbBuf in;
  UbBuf out;
  UbBuf tmp;
  AscendC::LocalTensor<T> src = Load<T>(pipe, in, x, stored);
  pipe.InitBuffer(out, out_aligned * sizeof(T));
  AscendC::LocalTensor<T> dst = out.Get<T>();
  AscendC::Duplicate(dst, static_cast<T>(0.0f), static_cast<int32_t>(out_aligned));
  const uint32_t shape[2] = {outer, inner};
  const bool pad = inner_pad != 0;
  if (with_tmp != 0) {
    uint32_t max_bytes = 0, min_bytes = 0;
    AscendC::GetReduceMaxMaxMinTmpSize(
        AscendC::TensorShape({outer, inner}), AscendC::TensorDataType::DT_FLOAT,
        AscendC::ReducePattern::AR, pad, false, max_bytes, min_bytes);
    pipe.InitBuffer(tmp, min_bytes);
    AscendC::LocalTensor<uint8_t> t = tmp.Get<uint8_t>();
    if constexpr (op == kMax) AscendC::ReduceMax<T, Pattern>(dst, src, t, shape, pad);
    if constexpr (op == kMin) AscendC::ReduceMin<T, Pattern>(dst, src, t, shape, pad);
    if constexpr (op == kSum) AscendC::ReduceSum<T, Pattern>(dst, src, t, shape, pad);
  } else {
    if constexpr (op == kMax) AscendC::ReduceMax<T, Pattern, true>(dst, src, shape, pad);
    if constexpr (op == kMin) AscendC::ReduceMin<T, Pattern, true>(dst, src, shape, pad);
    if constexpr (op == kSum) AscendC::ReduceSum<T, Pattern, true>(dst, src, shape, pad);
  }
  Store(y, dst, out_aligned);
}

template <class T, class Pattern, int op>
void CheckReduce(uint32_t outer, uint32_t inner, bool pad, uint32_t seed) {
  SCOPED_TRACE("outer " + std::to_string(outer) + " inner " + std::to_string(inner) +
               (pad ? " padded" : " dense") + " op " + std::to_string(op));
  const uint32_t stride = pad ? Align<T>(inner) : inner;
  const uint32_t stored = Align<T>(outer * stride);
  std::vector<T> x = Random<T>(stored, -50.0f, 50.0f, seed);
  constexpr bool kReduceInner = std::is_same_v<Pattern, AscendC::Pattern::Reduce::AR>;
  const uint32_t out_count = kReduceInner ? outer : inner;
  const uint32_t out_aligned = Align<T>(out_count);
  DevBuf<T> dx(x), dy{std::vector<T>(out_aligned)};
  const tessera::Status st = RunKernel(reduce_custom<T, Pattern, op>, dx.gm(), dy.gm(), outer,
                                       inner, stored, out_aligned, seed % 2, pad ? 1u : 0u);
  ASSERT_TRUE(st.ok()) << st.message();
  const std::vector<T>& y = dy.Download();
  for (uint32_t o = 0; o < out_count; ++o) {
    double acc = op == kSum ? 0.0 : (op == kMax ? -INFINITY : INFINITY);
    double abs_sum = 0;
    const uint32_t n = kReduceInner ? inner : outer;
    for (uint32_t k = 0; k < n; ++k) {
      const double v = static_cast<float>(kReduceInner ? x[o * stride + k] : x[k * stride + o]);
      acc = op == kSum ? acc + v : (op == kMax ? std::max(acc, v) : std::min(acc, v));
      abs_sum += std::fabs(v);
    }
    const double eps = std::is_same_v<T, float> ? 1.2e-7 : 9.8e-4;
    // Max / min are exact; a sum of n terms is off by at most ~n ulps of the sum of magnitudes.
    const double tol = op == kSum ? eps * (abs_sum * n * 1.2e-7 / eps + std::fabs(acc)) : 0.0;
    EXPECT_NEAR(static_cast<float>(y[o]), acc, tol) << "output " << o;
  }
}

TEST(CompatAdvReduce, RowsAndColumnsFp32) {
  uint32_t seed = 1;
  for (uint32_t outer : {1u, 7u, 31u, 40u})
    for (uint32_t inner : {1u, 8u, 13u, 136u, 1031u})
      for (bool pad : {true, false}) {
        if (outer * inner > 32 * 1031) continue;  // the source must fit in one UB
        CheckReduce<float, AscendC::Pattern::Reduce::AR, kMax>(outer, inner, pad, seed++);
        CheckReduce<float, AscendC::Pattern::Reduce::RA, kMax>(outer, inner, pad, seed++);
        CheckReduce<float, AscendC::Pattern::Reduce::AR, kMin>(outer, inner, pad, seed++);
        CheckReduce<float, AscendC::Pattern::Reduce::RA, kMin>(outer, inner, pad, seed++);
        CheckReduce<float, AscendC::Pattern::Reduce::AR, kSum>(outer, inner, pad, seed++);
        CheckReduce<float, AscendC::Pattern::Reduce::RA, kSum>(outer, inner, pad, seed++);
      }
}

TEST(CompatAdvReduce, RowsAndColumnsHalf) {
  uint32_t seed = 100;
  for (uint32_t outer : {1u, 5u, 33u})
    for (uint32_t inner : {1u, 16u, 17u, 1500u})
      for (bool pad : {true, false}) {
        CheckReduce<half, AscendC::Pattern::Reduce::AR, kMax>(outer, inner, pad, seed++);
        CheckReduce<half, AscendC::Pattern::Reduce::RA, kMin>(outer, inner, pad, seed++);
        CheckReduce<half, AscendC::Pattern::Reduce::AR, kSum>(outer, inner, pad, seed++);
        CheckReduce<half, AscendC::Pattern::Reduce::RA, kSum>(outer, inner, pad, seed++);
      }
}

TEST(CompatAdvReduce, TmpSizeQueriesReportWhatTheKernelsNeed) {
  uint32_t max_bytes = 7, min_bytes = 7;
  AscendC::GetReduceSumMaxMinTmpSize(
      AscendC::TensorShape({4, 4097}), AscendC::TensorDataType::DT_FLOAT16,
      AscendC::ReducePattern::RA, false, false, max_bytes, min_bytes);
  EXPECT_EQ(min_bytes, 0u);
  EXPECT_LE(min_bytes, max_bytes);
  AscendC::GetSumMaxMinTmpSize(4097, 2, false, max_bytes, min_bytes);
  EXPECT_EQ(min_bytes, 0u);
  EXPECT_LE(min_bytes, max_bytes);
}

// The basic instruction of the same name stays reachable as AscendC::ReduceMax next to the
// advanced one (the advanced APIs live in AscendC::adv_api, which AscendC imports).
__global__ __vector__ void basic_and_advanced_custom(__gm__ uint8_t* x, __gm__ uint8_t* y) {
  AscendC::TPipe pipe;
  UbBuf bx, by, bw;
  AscendC::LocalTensor<float> lx = Load<float>(pipe, bx, x, 64);
  pipe.InitBuffer(by, 16 * sizeof(float));
  pipe.InitBuffer(bw, 64 * sizeof(float));
  AscendC::LocalTensor<float> ly = by.Get<float>(), work = bw.Get<float>();
  AscendC::Duplicate(ly, 0.0f, 16);
  AscendC::ReduceMax<float>(ly, lx, work, 64);  // basic: the maximum of 64 elements
  const uint32_t shape[2] = {8, 8};
  AscendC::ReduceMax<float, AscendC::Pattern::Reduce::AR>(ly[8], lx, shape, true);  // advanced
  Store(y, ly, 16);
}

TEST(CompatAdvReduce, BasicAndAdvancedReduceMaxCoexist) {
  std::vector<float> x = Random<float>(64, -5, 5, 3);
  DevBuf<float> dx(x), dy{std::vector<float>(16)};
  const tessera::Status st = RunKernel(basic_and_advanced_custom, dx.gm(), dy.gm());
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& y = dy.Download();
  EXPECT_EQ(y[0], *std::max_element(x.begin(), x.end()));
  for (int r = 0; r < 8; ++r)
    EXPECT_EQ(y[8 + r], *std::max_element(x.begin() + 8 * r, x.begin() + 8 * r + 8)) << r;
}

// ---------------------------------------------------------------------------------------------
// Sum

template <class T>
__global__ __vector__ void sum_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, uint32_t outter,
                                      uint32_t inner, uint32_t n) {
  AscendC::TPipe pipe;
  UbBuf in;
  UbBuf out;
  AscendC::LocalTensor<T> src = Load<T>(pipe, in, x, outter * inner);
  const uint32_t out_aligned = Align<T>(outter);
  pipe.InitBuffer(out, out_aligned * sizeof(T));
  AscendC::LocalTensor<T> dst = out.Get<T>();
  AscendC::Duplicate(dst, static_cast<T>(0.0f), static_cast<int32_t>(out_aligned));
  AscendC::SumParams params{outter, inner, n};
  AscendC::Sum(dst, src, params);
  Store(y, dst, out_aligned);
}

template <class T>
void CheckSum(uint32_t outter, uint32_t n, uint32_t seed) {
  SCOPED_TRACE("outter " + std::to_string(outter) + " n " + std::to_string(n));
  const uint32_t inner = Align<T>(n);
  std::vector<T> x = Random<T>(outter * inner, -10.0f, 10.0f, seed);
  DevBuf<T> dx(x), dy{std::vector<T>(Align<T>(outter))};
  const tessera::Status st = RunKernel(sum_custom<T>, dx.gm(), dy.gm(), outter, inner, n);
  ASSERT_TRUE(st.ok()) << st.message();
  const std::vector<T>& y = dy.Download();
  for (uint32_t r = 0; r < outter; ++r) {
    double ref = 0, mag = 0;
    for (uint32_t i = 0; i < n; ++i) {
      ref += static_cast<float>(x[r * inner + i]);
      mag += std::fabs(static_cast<float>(x[r * inner + i]));
    }
    const double tol = n * 1.2e-7 * mag + (std::is_same_v<T, float> ? 0 : 9.8e-4 * std::fabs(ref));
    EXPECT_NEAR(static_cast<float>(y[r]), ref, tol + 1e-30) << "row " << r;
  }
}

TEST(CompatAdvReduce, SumOfEachRowsFirstN) {
  uint32_t seed = 7;
  for (uint32_t outter : {1u, 3u, 31u})
    for (uint32_t n : {1u, 7u, 32u, 4097u}) {
      if (outter * n > 8 * 4097) continue;  // the source must fit in one UB
      CheckSum<float>(outter, n, seed++);
      CheckSum<half>(outter, n, seed++);
    }
}

// ---------------------------------------------------------------------------------------------
// LayerNorm, LayerNormGrad, LayerNormGradBeta with the host's tiling

struct LnTiling {
  LayerNormTiling ln;
  LayerNormGradTiling grad;
  LayerNormGradBetaTiling beta;
  float epsilon;
};

template <class T>
__global__ __vector__ void layernorm_custom(__gm__ uint8_t* x, __gm__ uint8_t* gamma,
                                            __gm__ uint8_t* beta, __gm__ uint8_t* dy,
                                            __gm__ uint8_t* y, __gm__ uint8_t* stats,
                                            __gm__ uint8_t* pdx, __gm__ uint8_t* pdgb,
                                            __gm__ uint8_t* tiling) {
  REGISTER_TILING_DEFAULT(LnTiling);
  GET_TILING_DATA(t, tiling);
  LayerNormTiling ln = t.ln;
  LayerNormGradTiling grad = t.grad;
  LayerNormGradBetaTiling grad_beta = t.beta;
  const uint32_t total = ln.bLength * ln.sLength * ln.hLength;
  const uint32_t rows = Align<T>(ln.bLength * ln.sLength);
  const uint32_t h = Align<T>(ln.hLength);
  AscendC::TPipe pipe;
  UbBuf qx, qg, qb, qdy;
  UbBuf out;
  AscendC::LocalTensor<T> lx = Load<T>(pipe, qx, x, total);
  AscendC::LocalTensor<T> lg = Load<T>(pipe, qg, gamma, h);
  AscendC::LocalTensor<T> lb = Load<T>(pipe, qb, beta, h);
  AscendC::LocalTensor<T> ldy = Load<T>(pipe, qdy, dy, total);
  pipe.InitBuffer(out, (3 * total + 2 * rows + 2 * h) * sizeof(T));
  AscendC::LocalTensor<T> all = out.Get<T>();
  AscendC::Duplicate(all, static_cast<T>(0.0f), static_cast<int32_t>(all.GetSize()));
  AscendC::LocalTensor<T> ly = all, lres = all[total], lpdx = all[2 * total];
  AscendC::LocalTensor<T> lmean = all[3 * total], lvar = all[3 * total + rows];
  AscendC::LocalTensor<T> lpdg = all[3 * total + 2 * rows], lpdb = all[3 * total + 2 * rows + h];
  const T eps = static_cast<T>(t.epsilon);
  AscendC::LayerNorm<T, false>(ly, lmean, lvar, lx, lg, lb, eps, ln);
  AscendC::LayerNormGrad<T, false>(lpdx, lres, ldy, lx, lvar, lmean, lg, eps, grad);
  AscendC::LayerNormGradBeta<T, false>(lpdg, lpdb, lres, ldy, grad_beta);
  Store(y, ly, total);
  Store(stats, lmean, 2 * rows);
  Store(pdx, lpdx, total);
  Store(pdgb, lpdg, 2 * h);
}

template <class T>
void CheckLayerNorm(uint32_t b, uint32_t s, uint32_t h, uint32_t original_h, uint32_t seed) {
  SCOPED_TRACE("B " + std::to_string(b) + " S " + std::to_string(s) + " H " + std::to_string(h) +
               " originalH " + std::to_string(original_h));
  const AscendC::TensorShape shape({b, s, h, original_h});
  uint32_t max_bytes = 0, min_bytes = 0;
  AscendC::GetLayerNormMaxMinTmpSize(shape, sizeof(T), false, max_bytes, min_bytes);
  EXPECT_LE(min_bytes, max_bytes);
  ::optiling::LnTestTilingData host;
  AscendC::GetLayerNormNDTilingInfo(shape, min_bytes, sizeof(T), false, host.ln);
  AscendC::GetLayerNormGradNDTilingInfo(shape, min_bytes, sizeof(T), false, host.grad);
  AscendC::GetLayerNormGradBetaNDTilingInfo(shape, min_bytes, sizeof(T), false, host.beta);
  const float eps = 1e-4f;
  host.set_epsilon(eps);
  ASSERT_EQ(host.GetDataSize(), sizeof(LnTiling));
  std::vector<uint8_t> bytes(host.GetDataSize());
  host.SaveToBuffer(bytes.data(), bytes.size());

  const uint32_t rows = b * s, total = rows * h;
  std::vector<T> x = Random<T>(total, -3.0f, 3.0f, seed);
  std::vector<T> gamma = Random<T>(Align<T>(h), -2.0f, 2.0f, seed + 1);
  std::vector<T> beta = Random<T>(Align<T>(h), -1.0f, 1.0f, seed + 2);
  std::vector<T> dy = Random<T>(total, -1.0f, 1.0f, seed + 3);
  DevBuf<T> dx(x), dg(gamma), db(beta), ddy(dy), dyo{std::vector<T>(total)},
      dstats{std::vector<T>(2 * Align<T>(rows))}, dpdx{std::vector<T>(total)},
      dpdgb{std::vector<T>(2 * Align<T>(h))};
  DevBuf<uint8_t> dt(bytes);
  const tessera::Status st = RunKernel(layernorm_custom<T>, dx.gm(), dg.gm(), db.gm(), ddy.gm(),
                                       dyo.gm(), dstats.gm(), dpdx.gm(), dpdgb.gm(), dt.gm());
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& y = dyo.Download();
  const auto& stats = dstats.Download();
  const auto& pdx = dpdx.Download();
  const auto& pdgb = dpdgb.Download();
  const double rel = std::is_same_v<T, float> ? 2e-6 : 2e-3;
  std::vector<double> pd_gamma(original_h, 0.0), pd_beta(original_h, 0.0);
  for (uint32_t r = 0; r < rows; ++r) {
    const auto X = [&](uint32_t i) { return double{static_cast<float>(x[r * h + i])}; };
    double mean = 0;
    for (uint32_t i = 0; i < original_h; ++i)
      mean += X(i);
    mean /= original_h;
    double var = 0;
    for (uint32_t i = 0; i < original_h; ++i)
      var += (X(i) - mean) * (X(i) - mean);
    var /= original_h;
    const double rstd = 1.0 / std::sqrt(var + double{static_cast<float>(static_cast<T>(eps))});
    EXPECT_NEAR(static_cast<float>(stats[r]), mean, rel * 4 + 1e-6) << "mean " << r;
    EXPECT_NEAR(static_cast<float>(stats[Align<T>(rows) + r]), var, rel * var + 1e-6)
        << "var " << r;
    double mg = 0, mgx = 0;
    for (uint32_t i = 0; i < original_h; ++i) {
      const double g = double{static_cast<float>(dy[r * h + i])} * static_cast<float>(gamma[i]);
      mg += g;
      mgx += g * (X(i) - mean) * rstd;
    }
    mg /= original_h;
    mgx /= original_h;
    for (uint32_t i = 0; i < original_h; ++i) {
      const double xhat = (X(i) - mean) * rstd;
      const double yref = static_cast<float>(gamma[i]) * xhat + static_cast<float>(beta[i]);
      EXPECT_NEAR(static_cast<float>(y[r * h + i]), yref, rel * 8 * (std::fabs(yref) + 1))
          << "y " << r << "," << i;
      const double g = double{static_cast<float>(dy[r * h + i])} * static_cast<float>(gamma[i]);
      const double dref = rstd * (g - mg - xhat * mgx);
      EXPECT_NEAR(static_cast<float>(pdx[r * h + i]), dref, rel * 16 * rstd * (std::fabs(g) + 1))
          << "pdx " << r << "," << i;
      pd_gamma[i] += double{static_cast<float>(dy[r * h + i])} * xhat;
      pd_beta[i] += static_cast<float>(dy[r * h + i]);
    }
  }
  for (uint32_t i = 0; i < original_h; ++i) {
    EXPECT_NEAR(static_cast<float>(pdgb[i]), pd_gamma[i], rel * 8 * rows) << "pdgamma " << i;
    EXPECT_NEAR(static_cast<float>(pdgb[Align<T>(h) + i]), pd_beta[i], rel * 4 * rows)
        << "pdbeta " << i;
  }
}

TEST(CompatAdvNormalization, LayerNormForwardAndBackwardFp32) {
  CheckLayerNorm<float>(2, 32, 16, 16, 11);
  CheckLayerNorm<float>(1, 1, 8, 1, 12);
  CheckLayerNorm<float>(3, 7, 40, 33, 13);
  CheckLayerNorm<float>(1, 1, 4104, 4097, 14);
}

TEST(CompatAdvNormalization, LayerNormForwardAndBackwardHalf) {
  CheckLayerNorm<half>(2, 4, 16, 16, 21);
  CheckLayerNorm<half>(1, 7, 48, 31, 22);
}

TEST(CompatAdvNormalization, TilingInfoRejectsMalformedShapes) {
  optiling::LayerNormTiling t;
  t.set_bLength(99);
  AscendC::GetLayerNormNDTilingInfo(AscendC::TensorShape({2, 3}), 0, 4, false, t);
  EXPECT_EQ(t.get_bLength(), 99u) << "a 2-D shape leaves the tiling alone";
  AscendC::GetLayerNormNDTilingInfo(AscendC::TensorShape({2, 3, 8, 9}), 0, 4, false, t);
  EXPECT_EQ(t.get_bLength(), 99u) << "originalH > H leaves the tiling alone";
  AscendC::GetLayerNormNDTilingInfo(AscendC::TensorShape({65536, 65536, 2}), 0, 4, false, t);
  EXPECT_EQ(t.get_bLength(), 99u) << "B*S*H past uint32_t leaves the tiling alone";
  AscendC::GetLayerNormNDTilingInfo(AscendC::TensorShape({4294967295, 1, 1}), 0, 4, false, t);
  EXPECT_EQ(t.get_bLength(), 99u) << "B*S rounded up to 8 rows past uint32_t";
  AscendC::GetLayerNormNDTilingInfo(AscendC::TensorShape({2, 3, 8}), 0, 4, false, t);
  EXPECT_EQ(t.get_bLength(), 2u);
  EXPECT_EQ(t.get_originalHLength(), 8u);
  EXPECT_FLOAT_EQ(t.get_lastDimValueBack(), 1.0f / 8);
}

// ---------------------------------------------------------------------------------------------
// AscendQuant / AscendDequant

template <class T>
__global__ __vector__ void quant_custom(__gm__ uint8_t* x, __gm__ uint8_t* q, uint32_t n,
                                        float scale, float offset) {
  AscendC::TPipe pipe;
  UbBuf in;
  UbBuf out;
  AscendC::LocalTensor<T> src = Load<T>(pipe, in, x, Align<T>(n));
  pipe.InitBuffer(out, Align<int8_t>(n));
  AscendC::LocalTensor<int8_t> dst = out.Get<int8_t>();
  AscendC::Duplicate(dst.ReinterpretCast<int32_t>(), int32_t{0},
                     static_cast<int32_t>(Align<int8_t>(n) / 4));
  AscendC::AscendQuant<T>(dst, src, scale, offset, n);
  Store(q, dst, Align<int8_t>(n));
}

template <class T>
void CheckQuant(uint32_t n, float scale, float offset, uint32_t seed) {
  SCOPED_TRACE("n " + std::to_string(n) + " scale " + std::to_string(scale));
  std::vector<T> x = Random<T>(Align<T>(n), -100.0f, 100.0f, seed);
  DevBuf<T> dx(x);
  DevBuf<int8_t> dq{std::vector<int8_t>(Align<int8_t>(n))};
  const tessera::Status st = RunKernel(quant_custom<T>, dx.gm(), dq.gm(), n, scale, offset);
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& q = dq.Download();
  for (uint32_t i = 0; i < n; ++i) {
    // Reference: the affine value in double, rounded to half, to nearest even, saturated.
    const double v = double{static_cast<float>(x[i])} * scale + offset;
    const double h = static_cast<float>(tessera::half(static_cast<float>(v)));
    const double r = std::clamp(std::nearbyint(h), -128.0, 127.0);
    EXPECT_EQ(q[i], static_cast<int8_t>(r)) << "element " << i << " x " << static_cast<float>(x[i]);
  }
}

TEST(CompatAdvQuant, AscendQuantPerTensor) {
  CheckQuant<half>(1024, 2.0f, 0.9f, 31);
  CheckQuant<half>(7, 0.5f, -3.0f, 32);
  CheckQuant<float>(4097, 1.7f, 0.25f, 33);
  CheckQuant<float>(1, 3.0f, 0.0f, 34);
}

template <class DstT>
__global__ __vector__ void dequant_custom(__gm__ uint8_t* x, __gm__ uint8_t* s, __gm__ uint8_t* y,
                                          uint32_t m, uint32_t n, uint32_t cal) {
  AscendC::TPipe pipe;
  UbBuf in, sc;
  UbBuf out;
  AscendC::LocalTensor<int32_t> src = Load<int32_t>(pipe, in, x, m * n);
  AscendC::LocalTensor<float> scale = Load<float>(pipe, sc, s, n);
  pipe.InitBuffer(out, Align<DstT>(m * n) * sizeof(DstT));
  AscendC::LocalTensor<DstT> dst = out.Get<DstT>();
  AscendC::Duplicate(dst, static_cast<DstT>(0.0f), static_cast<int32_t>(Align<DstT>(m * n)));
  AscendC::AscendDequant(dst, src, scale, {m, n, cal});
  Store(y, dst, Align<DstT>(m * n));
}

template <class DstT>
void CheckDequant(uint32_t m, uint32_t n, uint32_t cal, uint32_t seed) {
  SCOPED_TRACE("m " + std::to_string(m) + " n " + std::to_string(n) + " cal " +
               std::to_string(cal));
  std::mt19937 rng(seed);
  std::vector<int32_t> x(m * n);
  for (auto& v : x)
    v = static_cast<int32_t>(rng() % 2001) - 1000;
  std::vector<float> scale = Random<float>(n, -4.0f, 4.0f, seed + 1);
  DevBuf<int32_t> dx(x);
  DevBuf<float> ds(scale);
  DevBuf<DstT> dy{std::vector<DstT>(Align<DstT>(m * n))};
  const tessera::Status st = RunKernel(dequant_custom<DstT>, dx.gm(), ds.gm(), dy.gm(), m, n, cal);
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& y = dy.Download();
  const double rel = std::is_same_v<DstT, float> ? 1.2e-7 : 9.8e-4;
  for (uint32_t r = 0; r < m; ++r)
    for (uint32_t i = 0; i < n; ++i) {
      const double ref = i < cal ? double{static_cast<float>(x[r * n + i])} * scale[i] : 0.0;
      EXPECT_NEAR(static_cast<float>(y[r * n + i]), ref, rel * std::fabs(ref) + 1e-30)
          << r << "," << i;
    }
}

TEST(CompatAdvQuant, AscendDequantPerChannel) {
  CheckDequant<float>(128, 32, 32, 41);
  CheckDequant<float>(7, 40, 33, 42);
  CheckDequant<half>(3, 16, 16, 43);
}

// ---------------------------------------------------------------------------------------------
// Arange

template <class T>
__global__ __vector__ void arange_custom(__gm__ uint8_t* y, float first, float diff,
                                         uint32_t count) {
  AscendC::TPipe pipe;
  UbBuf out;
  pipe.InitBuffer(out, Align<T>(count) * sizeof(T));
  AscendC::LocalTensor<T> dst = out.Get<T>();
  AscendC::Duplicate(dst, static_cast<T>(0.0f), static_cast<int32_t>(Align<T>(count)));
  AscendC::Arange<T>(dst, static_cast<T>(first), static_cast<T>(diff), static_cast<int32_t>(count));
  Store(y, dst, Align<T>(count));
}

template <class T>
void CheckArange(uint32_t count, float first, float diff) {
  SCOPED_TRACE("count " + std::to_string(count));
  DevBuf<T> dy{std::vector<T>(Align<T>(count))};
  const tessera::Status st = RunKernel(arange_custom<T>, dy.gm(), first, diff, count);
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& y = dy.Download();
  for (uint32_t i = 0; i < count; ++i) {
    const double f = static_cast<float>(static_cast<T>(first));
    const double d = static_cast<float>(static_cast<T>(diff));
    const double ref = f + d * i;
    const double rel = std::is_integral_v<T> ? 0.0 : (std::is_same_v<T, float> ? 6e-8 : 4.9e-4);
    EXPECT_NEAR(static_cast<double>(static_cast<float>(y[i])), ref, rel * std::fabs(ref))
        << "element " << i;
  }
}

TEST(CompatAdvIndex, ArangeIsAnArithmeticProgression) {
  CheckArange<float>(104, 1.234f, 5.678f);
  CheckArange<float>(4097, -3.5f, 0.001f);
  CheckArange<half>(31, 2.0f, -0.25f);
  CheckArange<int32_t>(17, -5.0f, 3.0f);
}

// ---------------------------------------------------------------------------------------------
// DeepNorm

template <class T>
__global__ __vector__ void deepnorm_custom(__gm__ uint8_t* x, __gm__ uint8_t* gx,
                                           __gm__ uint8_t* gamma, __gm__ uint8_t* beta,
                                           __gm__ uint8_t* y, __gm__ uint8_t* stats,
                                           __gm__ uint8_t* tiling, float alpha, float eps) {
  REGISTER_TILING_DEFAULT(AscendC::tiling::DeepNormTiling);
  GET_TILING_DATA(t, tiling);
  DeepNormTiling dt = t;
  const uint32_t total = dt.bLength * dt.sLength * dt.hLength;
  const uint32_t rows = Align<T>(dt.bLength * dt.sLength), h = Align<T>(dt.hLength);
  AscendC::TPipe pipe;
  UbBuf bx, bgx, bg, bb, out;
  AscendC::LocalTensor<T> lx = Load<T>(pipe, bx, x, total);
  AscendC::LocalTensor<T> lgx = Load<T>(pipe, bgx, gx, total);
  AscendC::LocalTensor<T> lg = Load<T>(pipe, bg, gamma, h);
  AscendC::LocalTensor<T> lb = Load<T>(pipe, bb, beta, h);
  pipe.InitBuffer(out, (total + 2 * rows) * sizeof(T));
  AscendC::LocalTensor<T> all = out.Get<T>();
  AscendC::Duplicate(all, static_cast<T>(0.0f), static_cast<int32_t>(all.GetSize()));
  AscendC::DeepNorm<T, false, false>(all, all[total], all[total + rows], lx, lgx, lb, lg,
                                     static_cast<T>(alpha), static_cast<T>(eps), dt);
  Store(y, all, total);
  Store(stats, all[total], 2 * rows);
}

TEST(CompatAdvNormalization, DeepNormIsLayerNormOfAlphaXPlusGx) {
  const uint32_t b = 3, s = 5, h = 24, original_h = 21;
  AscendC::tiling::DeepNormTiling tiling;
  uint32_t max_bytes = 0, min_bytes = 0;
  ASSERT_TRUE(AscendC::GetDeepNormMaxMinTmpSize(AscendC::TensorShape({b, s, h}), 4, false, false,
                                                max_bytes, min_bytes));
  EXPECT_LE(min_bytes, max_bytes);
  EXPECT_FALSE(AscendC::GetDeepNormMaxMinTmpSize(AscendC::TensorShape({b, s, h}), 4, false, true,
                                                 max_bytes, min_bytes))
      << "H = 24 is not a basic block";
  ASSERT_TRUE(AscendC::GetDeepNormTilingInfo(AscendC::TensorShape({b, s, h}),
                                             AscendC::TensorShape({b, s, original_h}), min_bytes, 4,
                                             false, false, tiling));
  const float alpha = -1.7f, eps = 1e-5f;
  const uint32_t rows = b * s, total = rows * h;
  std::vector<float> x = Random<float>(total, -4, 4, 61), gx = Random<float>(total, -4, 4, 62);
  std::vector<float> gamma = Random<float>(h, -2, 2, 63), beta = Random<float>(h, -2, 2, 64);
  std::vector<uint8_t> bytes(sizeof(tiling));
  std::memcpy(bytes.data(), &tiling, sizeof(tiling));
  DevBuf<float> dx(x), dgx(gx), dg(gamma), db(beta), dy{std::vector<float>(total)},
      dstats{std::vector<float>(2 * Align<float>(rows))};
  DevBuf<uint8_t> dt(bytes);
  const tessera::Status st = RunKernel(deepnorm_custom<float>, dx.gm(), dgx.gm(), dg.gm(), db.gm(),
                                       dy.gm(), dstats.gm(), dt.gm(), alpha, eps);
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& y = dy.Download();
  const auto& stats = dstats.Download();
  for (uint32_t r = 0; r < rows; ++r) {
    std::vector<double> v(original_h);
    double mean = 0, var = 0;
    for (uint32_t i = 0; i < original_h; ++i) {
      v[i] = double{alpha} * x[r * h + i] + gx[r * h + i];
      mean += v[i];
    }
    mean /= original_h;
    for (double e : v)
      var += (e - mean) * (e - mean);
    var /= original_h;
    EXPECT_NEAR(stats[r], mean, 1e-5 * (std::fabs(mean) + 1)) << "mean " << r;
    EXPECT_NEAR(stats[Align<float>(rows) + r], var, 1e-5 * (var + 1)) << "variance " << r;
    for (uint32_t i = 0; i < original_h; ++i) {
      const double ref = gamma[i] * (v[i] - mean) / std::sqrt(var + eps) + beta[i];
      EXPECT_NEAR(y[r * h + i], ref, 1e-5 * (std::fabs(ref) + 1)) << r << "," << i;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// RmsNorm

template <class T>
__global__ __vector__ void rmsnorm_custom(__gm__ uint8_t* x, __gm__ uint8_t* gamma,
                                          __gm__ uint8_t* y, __gm__ uint8_t* tiling, float eps) {
  REGISTER_TILING_DEFAULT(AscendC::tiling::RmsNormTiling);
  GET_TILING_DATA(t, tiling);
  const uint32_t total = t.bLength * t.sLength * t.hLength;
  AscendC::TPipe pipe;
  UbBuf bx, bg, by;
  AscendC::LocalTensor<T> lx = Load<T>(pipe, bx, x, total);
  AscendC::LocalTensor<T> lg = Load<T>(pipe, bg, gamma, Align<T>(t.hLength));
  pipe.InitBuffer(by, total * sizeof(T));
  AscendC::LocalTensor<T> ly = by.Get<T>();
  AscendC::Duplicate(ly, static_cast<T>(0.0f), static_cast<int32_t>(total));
  AscendC::RmsNorm<T>(ly, lx, lg, static_cast<T>(eps), t);
  Store(y, ly, total);
}

template <class T>
void CheckRmsNorm(uint32_t b, uint32_t s, uint32_t h, uint32_t original_h, uint32_t seed) {
  SCOPED_TRACE("B " + std::to_string(b) + " S " + std::to_string(s) + " H " + std::to_string(h) +
               " originalH " + std::to_string(original_h));
  ::optiling::RmsNormTiling host;
  uint32_t max_bytes = 0, min_bytes = 0;
  ASSERT_TRUE(AscendC::GetRmsNormMaxMinTmpSize(AscendC::TensorShape({b, s, h}), sizeof(T),
                                               max_bytes, min_bytes));
  EXPECT_LE(min_bytes, max_bytes);
  ASSERT_TRUE(AscendC::GetRmsNormTilingInfo(AscendC::TensorShape({b, s, h}),
                                            AscendC::TensorShape({b, s, original_h}), min_bytes,
                                            sizeof(T), host));
  std::vector<uint8_t> bytes(host.GetDataSize());
  ASSERT_EQ(bytes.size(), sizeof(AscendC::tiling::RmsNormTiling));
  host.SaveToBuffer(bytes.data(), bytes.size());
  const uint32_t total = b * s * h;
  const float eps = 1e-6f;
  std::vector<T> x = Random<T>(total, -3, 3, seed), gamma = Random<T>(Align<T>(h), -2, 2, seed + 1);
  DevBuf<T> dx(x), dg(gamma), dy{std::vector<T>(total)};
  DevBuf<uint8_t> dt(bytes);
  const tessera::Status st = RunKernel(rmsnorm_custom<T>, dx.gm(), dg.gm(), dy.gm(), dt.gm(), eps);
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& y = dy.Download();
  const double rel = std::is_same_v<T, float> ? 3e-7 : 1e-3;
  for (uint32_t r = 0; r < b * s; ++r) {
    double sq = 0;
    for (uint32_t i = 0; i < original_h; ++i)
      sq += double{static_cast<float>(x[r * h + i])} * static_cast<float>(x[r * h + i]);
    const double rrms =
        1.0 / std::sqrt(sq / original_h + double{static_cast<float>(static_cast<T>(eps))});
    for (uint32_t i = 0; i < original_h; ++i) {
      const double ref = static_cast<float>(x[r * h + i]) * rrms * static_cast<float>(gamma[i]);
      EXPECT_NEAR(static_cast<float>(y[r * h + i]), ref, rel * (std::fabs(ref) + 1e-3))
          << r << "," << i;
    }
  }
}

TEST(CompatAdvNormalization, RmsNormFp32AndHalf) {
  CheckRmsNorm<float>(2, 3, 16, 16, 121);
  CheckRmsNorm<float>(1, 7, 40, 33, 122);
  CheckRmsNorm<float>(1, 1, 4104, 4097, 123);
  CheckRmsNorm<half>(3, 2, 32, 17, 124);
  ::optiling::RmsNormTiling t;
  EXPECT_FALSE(AscendC::GetRmsNormTilingInfo(AscendC::TensorShape({1, 3, 16}),
                                             AscendC::TensorShape({1, 3, 16}), 0, 4, t, true))
      << "H = 16 is not a basic block";
}

// ---------------------------------------------------------------------------------------------
// WelfordUpdate / WelfordFinalize

template <bool inplace>
__global__ __vector__ void welford_custom(__gm__ uint8_t* x, __gm__ uint8_t* mean,
                                          __gm__ uint8_t* var, __gm__ uint8_t* out, uint32_t rn,
                                          uint32_t ab, uint32_t compute, float n_rec) {
  static constexpr AscendC::WelfordUpdateConfig kCfg = {inplace};
  AscendC::TPipe pipe;
  UbBuf bx, bm, bv, bo;
  const uint32_t total = rn * ab;
  AscendC::LocalTensor<float> lx = Load<float>(pipe, bx, x, total);
  AscendC::LocalTensor<float> lm = Load<float>(pipe, bm, mean, total);
  AscendC::LocalTensor<float> lv = Load<float>(pipe, bv, var, total);
  pipe.InitBuffer(bo, 2 * total * sizeof(float));
  AscendC::LocalTensor<float> lo = bo.Get<float>();
  AscendC::Duplicate(lo, -7.0f, static_cast<int32_t>(2 * total));
  AscendC::WelfordUpdateParam para = {rn, ab, compute, n_rec};
  AscendC::WelfordUpdate<float, float, false, kCfg>(lo, lo[total], lm, lv, lx, para);
  Store(out, lo, 2 * total);
}

TEST(CompatAdvNormalization, WelfordUpdateIsOneOnlineStep) {
  for (bool inplace : {true, false}) {
    const uint32_t rn = 3, ab = 40, compute = 35;
    const float n_rec = 1.0f / 5;
    std::vector<float> x = Random<float>(rn * ab, -100, 100, 71),
                       mean = Random<float>(rn * ab, -50, 50, 72),
                       var = Random<float>(rn * ab, 0, 1000, 73);
    DevBuf<float> dx(x), dm(mean), dv(var), dout{std::vector<float>(2 * rn * ab)};
    const tessera::Status st = inplace ? RunKernel(welford_custom<true>, dx.gm(), dm.gm(), dv.gm(),
                                                   dout.gm(), rn, ab, compute, n_rec)
                                       : RunKernel(welford_custom<false>, dx.gm(), dm.gm(), dv.gm(),
                                                   dout.gm(), rn, ab, compute, n_rec);
    ASSERT_TRUE(st.ok()) << st.message();
    const auto& out = dout.Download();
    for (uint32_t k = 0; k < rn * ab; ++k) {
      if (k % ab >= compute) {
        EXPECT_EQ(out[k], inplace ? mean[k] : -7.0f) << k;
        EXPECT_EQ(out[rn * ab + k], inplace ? var[k] : -7.0f) << k;
        continue;
      }
      const double d = double{x[k]} - mean[k];
      const double m = mean[k] + d * n_rec;
      EXPECT_NEAR(out[k], m, 1e-6 * (std::fabs(m) + 1)) << k;
      const double v = var[k] + d * (x[k] - m);
      EXPECT_NEAR(out[rn * ab + k], v, 2e-6 * (std::fabs(v) + std::fabs(d * d) + 1)) << k;
    }
  }
}

__global__ __vector__ void welford_finalize_custom(__gm__ uint8_t* mean, __gm__ uint8_t* var,
                                                   __gm__ uint8_t* counts, __gm__ uint8_t* out,
                                                   uint32_t ab, uint32_t head, uint32_t head_len,
                                                   uint32_t tail, float ab_rec, float r_rec,
                                                   uint32_t use_counts) {
  AscendC::TPipe pipe;
  UbBuf bm, bv, bc, bo;
  AscendC::LocalTensor<float> lm = Load<float>(pipe, bm, mean, ab);
  AscendC::LocalTensor<float> lv = Load<float>(pipe, bv, var, ab);
  AscendC::LocalTensor<int32_t> lc = Load<int32_t>(pipe, bc, counts, ab);
  pipe.InitBuffer(bo, 16 * sizeof(float));
  AscendC::LocalTensor<float> lo = bo.Get<float>();
  AscendC::Duplicate(lo, 0.0f, 16);
  AscendC::WelfordFinalizePara para = {1, ab, head, head_len, tail, ab - head_len, ab_rec, r_rec};
  if (use_counts != 0) {
    AscendC::WelfordFinalize<false>(lo, lo[8], lm, lv, lc, para);
  } else {
    AscendC::WelfordFinalize<false>(lo, lo[8], lm, lv, para);
  }
  Store(out, lo, 16);
}

TEST(CompatAdvNormalization, WelfordFinalizeCombinesPartials) {
  const uint32_t ab = 24;
  std::vector<float> mean = Random<float>(ab, -10, 10, 81), var = Random<float>(ab, 0, 50, 82);
  std::mt19937 rng(83);
  std::vector<int32_t> counts(ab);
  for (auto& c : counts)
    c = static_cast<int32_t>(rng() % 9 + 1);
  // Per-partial counts; head/tail counts from para (head 16 x 5, tail 8 x 3); no tail (equal
  // weights, one sample each: rnLength = 1).
  for (int variant = 0; variant < 3; ++variant) {
    std::vector<double> c(ab);
    double n = 0;
    for (uint32_t i = 0; i < ab; ++i) {
      c[i] = variant == 0 ? counts[i] : (variant == 2 ? 1 : (i < 16 ? 5 : 3));
      n += c[i];
    }
    DevBuf<float> dm(mean), dv(var), dout{std::vector<float>(16)};
    DevBuf<int32_t> dc(counts);
    const uint32_t head_len = variant == 2 ? ab : 16u, tail = variant == 2 ? 0u : 3u;
    const tessera::Status st =
        RunKernel(welford_finalize_custom, dm.gm(), dv.gm(), dc.gm(), dout.gm(), ab, 5u, head_len,
                  tail, 1.0f / ab, static_cast<float>(1.0 / n), variant == 0 ? 1u : 0u);
    ASSERT_TRUE(st.ok()) << st.message();
    const auto& out = dout.Download();
    double m = 0;
    for (uint32_t i = 0; i < ab; ++i)
      m += c[i] * mean[i];
    m /= n;
    double v = 0;
    for (uint32_t i = 0; i < ab; ++i)
      v += var[i] + c[i] * (mean[i] - m) * (mean[i] - m);
    v /= n;
    EXPECT_NEAR(out[0], m, 1e-5 * (std::fabs(m) + 1)) << "variant " << variant;
    EXPECT_NEAR(out[8], v, 1e-5 * (v + 1)) << "variant " << variant;
  }
}

// ---------------------------------------------------------------------------------------------
// DropOut, Select with a byte mask

template <uint32_t mode>
__global__ __vector__ void dropout_custom(__gm__ uint8_t* x, __gm__ uint8_t* mask,
                                          __gm__ uint8_t* y, uint32_t rows, uint32_t cols,
                                          uint32_t mask_cols, float keep) {
  AscendC::TPipe pipe;
  UbBuf bx, bm, by;
  AscendC::LocalTensor<float> lx = Load<float>(pipe, bx, x, Align<float>(rows * cols));
  AscendC::LocalTensor<uint8_t> lm =
      Load<uint8_t>(pipe, bm, mask, Align<uint8_t>(rows * mask_cols));
  pipe.InitBuffer(by, Align<float>(rows * cols) * sizeof(float));
  AscendC::LocalTensor<float> ly = by.Get<float>();
  AscendC::Duplicate(ly, 0.0f, static_cast<int32_t>(Align<float>(rows * cols)));
  AscendC::DropOutShapeInfo info;
  info.firstAxis = rows;
  info.srcLastAxis = cols;
  info.maskLastAxis = mask_cols;
  AscendC::DropOut<float, false, mode>(ly, lx, lm, keep, info);
  Store(y, ly, Align<float>(rows * cols));
}

TEST(CompatAdvFilter, DropOutByteAndBitMasks) {
  std::mt19937 rng(91);
  struct Case {
    uint32_t rows, cols, mask_cols;
    bool bits;
  };
  for (const Case& c : {Case{4, 256, 32, true}, Case{3, 13, 2, true}, Case{5, 31, 31, false},
                        Case{2, 7, 32, false}}) {
    SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.cols));
    const float keep = 0.3f + 0.6f * static_cast<float>(rng() % 1000) / 1000;
    std::vector<float> x = Random<float>(Align<float>(c.rows * c.cols), -100, 100, rng());
    std::vector<uint8_t> mask(Align<uint8_t>(c.rows * c.mask_cols));
    for (auto& m : mask)
      m = c.bits ? static_cast<uint8_t>(rng()) : static_cast<uint8_t>(rng() % 2);
    DevBuf<float> dx(x), dy{std::vector<float>(x.size())};
    DevBuf<uint8_t> dm(mask);
    const tessera::Status st =
        RunKernel(dropout_custom<0>, dx.gm(), dm.gm(), dy.gm(), c.rows, c.cols, c.mask_cols, keep);
    ASSERT_TRUE(st.ok()) << st.message();
    const auto& y = dy.Download();
    for (uint32_t r = 0; r < c.rows; ++r)
      for (uint32_t j = 0; j < c.cols; ++j) {
        const uint8_t* m = mask.data() + r * c.mask_cols;
        const bool kept = c.bits ? ((m[j / 8] >> (j % 8)) & 1) != 0 : m[j] != 0;
        const float ref = kept ? x[r * c.cols + j] * (1.0f / keep) : 0.0f;
        EXPECT_EQ(y[r * c.cols + j], ref) << r << "," << j;
      }
  }
}

template <class T>
__global__ __vector__ void select_custom(__gm__ uint8_t* x, __gm__ uint8_t* mask, __gm__ uint8_t* y,
                                         uint32_t rows, uint32_t cols, uint32_t mask_cols,
                                         float scalar, uint32_t scalar_first) {
  AscendC::TPipe pipe;
  UbBuf bx, bm, by;
  AscendC::LocalTensor<T> lx = Load<T>(pipe, bx, x, Align<T>(rows * cols));
  AscendC::LocalTensor<uint8_t> lm =
      Load<uint8_t>(pipe, bm, mask, Align<uint8_t>(rows * mask_cols));
  pipe.InitBuffer(by, Align<T>(rows * cols) * sizeof(T));
  AscendC::LocalTensor<T> ly = by.Get<T>();
  AscendC::Duplicate(ly, static_cast<T>(0.0f), static_cast<int32_t>(Align<T>(rows * cols)));
  AscendC::SelectWithBytesMaskShapeInfo info;
  info.firstAxis = rows;
  info.srcLastAxis = cols;
  info.maskLastAxis = mask_cols;
  AscendC::LocalTensor<uint8_t> none;
  if (scalar_first != 0) {
    AscendC::Select(ly, static_cast<T>(scalar), lx, lm, none, info);
  } else {
    AscendC::Select(ly, lx, static_cast<T>(scalar), lm, none, info);
  }
  Store(y, ly, Align<T>(rows * cols));
}

TEST(CompatAdvFilter, SelectWithByteMask) {
  std::mt19937 rng(95);
  for (uint32_t scalar_first : {0u, 1u})
    for (uint32_t cols : {1u, 32u, 45u}) {
      const uint32_t rows = 3, mask_cols = Align<uint8_t>(cols);
      std::vector<half> x = Random<half>(Align<half>(rows * cols), -4, 4, rng());
      std::vector<uint8_t> mask(Align<uint8_t>(rows * mask_cols));
      for (auto& m : mask)
        m = static_cast<uint8_t>(rng() % 2);
      DevBuf<half> dx(x), dy{std::vector<half>(x.size())};
      DevBuf<uint8_t> dm(mask);
      const tessera::Status st = RunKernel(select_custom<half>, dx.gm(), dm.gm(), dy.gm(), rows,
                                           cols, mask_cols, 1.25f, scalar_first);
      ASSERT_TRUE(st.ok()) << st.message();
      const auto& y = dy.Download();
      for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t j = 0; j < cols; ++j) {
          const bool second = mask[r * mask_cols + j] != 0;
          const float tensor = static_cast<float>(x[r * cols + j]);
          const float ref = (second != (scalar_first != 0)) ? 1.25f : tensor;
          EXPECT_EQ(static_cast<float>(y[r * cols + j]), ref) << r << "," << j;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Broadcast, Fill

template <int32_t dim, int32_t axis>
__global__ __vector__ void broadcast_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, uint32_t src_n,
                                            uint32_t dst_n, uint32_t d0, uint32_t d1, uint32_t d2,
                                            uint32_t s0, uint32_t s1, uint32_t s2) {
  AscendC::TPipe pipe;
  UbBuf bx, by;
  AscendC::LocalTensor<float> lx = Load<float>(pipe, bx, x, Align<float>(src_n));
  pipe.InitBuffer(by, Align<float>(dst_n) * sizeof(float));
  AscendC::LocalTensor<float> ly = by.Get<float>();
  AscendC::Duplicate(ly, 0.0f, static_cast<int32_t>(Align<float>(dst_n)));
  const uint32_t dst_shape[3] = {d0, d1, d2}, src_shape[3] = {s0, s1, s2};
  AscendC::Broadcast<float, dim, axis>(ly, lx, dst_shape, src_shape);
  Store(y, ly, Align<float>(dst_n));
}

TEST(CompatAdvTranspose, BroadcastRepeatsUnitDims) {
  struct Case {
    uint32_t d[3], s[3];
  };
  uint32_t seed = 101;
  for (const Case& c : {Case{{96, 48, 1}, {1, 48, 1}}, Case{{96, 7, 1}, {96, 1, 1}},
                        Case{{5, 3, 9}, {5, 1, 9}}, Case{{4, 6, 3}, {1, 6, 1}}}) {
    const bool three = c.d[2] != 1;
    const uint32_t dst_n = c.d[0] * c.d[1] * c.d[2], src_n = c.s[0] * c.s[1] * c.s[2];
    std::vector<float> x = Random<float>(Align<float>(src_n), -9, 9, seed++);
    DevBuf<float> dx(x), dy{std::vector<float>(Align<float>(dst_n))};
    const tessera::Status st =
        three ? RunKernel(broadcast_custom<3, 1>, dx.gm(), dy.gm(), src_n, dst_n, c.d[0], c.d[1],
                          c.d[2], c.s[0], c.s[1], c.s[2])
              : RunKernel(broadcast_custom<2, 0>, dx.gm(), dy.gm(), src_n, dst_n, c.d[0], c.d[1],
                          1u, c.s[0], c.s[1], 1u);
    ASSERT_TRUE(st.ok()) << st.message();
    const auto& y = dy.Download();
    for (uint32_t i = 0; i < c.d[0]; ++i)
      for (uint32_t j = 0; j < c.d[1]; ++j)
        for (uint32_t k = 0; k < c.d[2]; ++k) {
          const uint32_t si = c.s[0] == 1 ? 0 : i, sj = c.s[1] == 1 ? 0 : j,
                         sk = c.s[2] == 1 ? 0 : k;
          EXPECT_EQ(y[(i * c.d[1] + j) * c.d[2] + k], x[(si * c.s[1] + sj) * c.s[2] + sk])
              << i << "," << j << "," << k;
        }
  }
}

__global__ __vector__ void pad_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, __gm__ uint8_t* tiling,
                                      uint32_t left, uint32_t right, int32_t value) {
  REGISTER_TILING_DEFAULT(AscendC::tiling::PadTiling);
  GET_TILING_DATA(t, tiling);
  PadTiling pt = t;
  const uint32_t aligned = Align<float>(pt.srcWidth);
  AscendC::TPipe pipe;
  UbBuf bx, by;
  AscendC::LocalTensor<float> lx =
      Load<float>(pipe, bx, x, Align<float>(pt.srcHeight * pt.srcWidth));
  pipe.InitBuffer(by, pt.srcHeight * aligned * sizeof(float));
  AscendC::LocalTensor<float> ly = by.Get<float>();
  AscendC::PadParams params{static_cast<uint16_t>(left), static_cast<uint16_t>(right), value};
  AscendC::Pad(ly, lx, params, pt);
  Store(y, ly, pt.srcHeight * aligned);
}

TEST(CompatAdvTranspose, PadUnalignedRowsAndAlignedRightPad) {
  struct Case {
    uint32_t height, width, ori_width, left, right;
  };
  uint32_t seed = 111;
  for (const Case& c : {Case{16, 31, 31, 0, 1}, Case{3, 5, 5, 2, 1}, Case{7, 1, 1, 3, 4},
                        Case{4, 16, 13, 0, 2}, Case{2, 8, 3, 0, 9}}) {
    SCOPED_TRACE(std::to_string(c.height) + "x" + std::to_string(c.width));
    const AscendC::TensorShape src({c.height, c.width}), ori({c.height, c.ori_width});
    uint32_t max_bytes = 0, min_bytes = 0;
    AscendC::GetPadMaxMinTmpSize(src, sizeof(float), max_bytes, min_bytes);
    EXPECT_LE(min_bytes, max_bytes);
    ::optiling::PadTiling host;
    AscendC::PadTilingFunc(src, ori, max_bytes, sizeof(float), host);
    std::vector<uint8_t> bytes(host.GetDataSize());
    ASSERT_EQ(bytes.size(), sizeof(AscendC::tiling::PadTiling));
    host.SaveToBuffer(bytes.data(), bytes.size());
    const uint32_t aligned = Align<float>(c.width);
    std::vector<float> x = Random<float>(Align<float>(c.height * c.width), -9, 9, seed++);
    DevBuf<float> dx(x), dy{std::vector<float>(c.height * aligned)};
    DevBuf<uint8_t> dt(bytes);
    const tessera::Status st =
        RunKernel(pad_custom, dx.gm(), dy.gm(), dt.gm(), c.left, c.right, 321);
    ASSERT_TRUE(st.ok()) << st.message();
    const auto& y = dy.Download();
    for (uint32_t r = 0; r < c.height; ++r)
      for (uint32_t j = 0; j < aligned; ++j) {
        float ref;
        if (aligned != c.width) {
          ref = j < c.left || j >= c.left + c.width ? 321.0f : x[r * c.width + j - c.left];
        } else {
          ref = j >= c.ori_width && j < c.ori_width + c.right ? 321.0f : x[r * c.width + j];
        }
        EXPECT_EQ(y[r * aligned + j], ref) << r << "," << j;
      }
  }
}

TEST(CompatAdvErrors, PadRejectsPaddingThatMissesTheAlignedWidth) {
  ::optiling::PadTiling host;
  AscendC::PadTilingFunc(AscendC::TensorShape({2, 5}), AscendC::TensorShape({2, 5}), 0, 4, host);
  std::vector<uint8_t> bytes(host.GetDataSize());
  host.SaveToBuffer(bytes.data(), bytes.size());
  DevBuf<float> dx(Random<float>(16, -1, 1, 7)), dy{std::vector<float>(16)};
  DevBuf<uint8_t> dt(bytes);
  const tessera::Status st = RunKernel(pad_custom, dx.gm(), dy.gm(), dt.gm(), 1u, 1u, 0);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("aligned width"), std::string::npos) << st.message();
}

__global__ __vector__ void fill_custom(__gm__ uint8_t* y, uint32_t n, float value) {
  AscendC::GlobalTensor<float> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), n + 8);
  AscendC::Fill(g, n, value + static_cast<float>(AscendC::GetBlockIdx()));
}

TEST(CompatAdvUtils, FillWritesExactlyTheFirstSizeElements) {
  for (uint32_t n : {1u, 7u, 4097u}) {
    DevBuf<float> dy{std::vector<float>(n + 8, -1.0f)};
    const tessera::Status st = RunKernel(fill_custom, dy.gm(), n, 2.5f);
    ASSERT_TRUE(st.ok()) << st.message();
    const auto& y = dy.Download();
    for (uint32_t i = 0; i < n + 8; ++i)
      EXPECT_EQ(y[i], i < n ? 2.5f : -1.0f) << i;
  }
}

// Fill's writes are GM accesses for checked mode: two blocks filling the same elements with
// nothing ordering them are a race.
TEST(CompatAdvUtils, FillRaceIsReportedInCheckedMode) {
  const bool was_checked = tessera::device::CheckedMode();
  tessera::device::SetCheckedMode(true);
  DevBuf<float> dy{Random<float>(40, -1, 1, 9)};
  auto stream = tessera::device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  tessera::Status st = tessera::device::Launch(fill_custom, 2, *stream, dy.gm(), 31u, 1.5f);
  if (st.ok()) st = stream->Synchronize();
  tessera::device::SetCheckedMode(was_checked);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("both write the same global memory"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("Fill"), std::string::npos) << st.message();
}

// ---------------------------------------------------------------------------------------------
// AscendC::Std

static_assert(AscendC::Std::is_floating_point<half>::value, "half counts as floating point");
static_assert(AscendC::Std::is_floating_point_v<const volatile double>, "cv-qualified double");
static_assert(!AscendC::Std::is_floating_point_v<float&>, "a reference is not");
static_assert(AscendC::Std::is_same_v<AscendC::Std::remove_pointer_t<int* const>, int>, "");
static_assert(AscendC::Std::is_same_v<AscendC::Std::add_cv_t<int>, const volatile int>, "");
static_assert(AscendC::Std::is_one_of_v<half, float, half>, "is_one_of");
static_assert(!AscendC::Std::is_one_of_v<int, float, half>, "is_one_of");
static_assert(AscendC::Std::is_one_of_value_v<int, 3, 1, 2, 3>, "is_one_of_value");
static_assert(AscendC::Std::is_constant<4, const AscendC::Std::integral_constant<int, 4>&>::value,
              "is_constant");
static_assert(!AscendC::Std::is_constant<4, AscendC::Std::integral_constant<int, 5>>::value, "");

// ---------------------------------------------------------------------------------------------
// Bad parameters fail the launch with the API's name instead of touching memory.

__global__ __vector__ void bad_sum_custom(__gm__ uint8_t* x) {
  AscendC::TPipe pipe;
  UbBuf in;
  AscendC::LocalTensor<float> src = Load<float>(pipe, in, x, 16);
  AscendC::SumParams params{2, 8, 9};  // n > inner
  AscendC::Sum(src, src, params);
}

TEST(CompatAdvErrors, SumRejectsNLargerThanInner) {
  DevBuf<float> dx(Random<float>(16, -1, 1, 5));
  tessera::device::Stream stream;
  const tessera::Status launched = tessera::device::Launch(bad_sum_custom, 1, stream, dx.gm());
  ASSERT_TRUE(launched.ok()) << launched.message();
  const tessera::Status st = stream.Synchronize();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("Sum"), std::string::npos) << st.message();
}

}  // namespace
