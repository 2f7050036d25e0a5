// AscendAntiQuant (tessera/compat/kernel/adv/quant.h) and LocalTensor::SetShapeInfo in the vendor's
// dialect: int8 -> half / bfloat16 per channel and per group, plain and transposed, tensor and
// scalar parameters, against a scalar reference of the vendor's rounding chain. TopK
// (tessera/compat/kernel/adv/sort.h) in Normal and Small mode against a stable sort. LayerNorm's
// rstd form and Normalize (tessera/compat/kernel/adv/normalize.h) against long double. Built as
// C++17 and C++20.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "dev_buf.h"
#include "kernel_operator.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tiling/tiling_api.h"

namespace {

using adv_test::Align;
using adv_test::DevBuf;

using UbBuf = AscendC::TBuf<AscendC::TPosition::VECCALC>;

template <class T>
AscendC::LocalTensor<T> Load(AscendC::TPipe& pipe, UbBuf& buf, __gm__ uint8_t* gm, uint32_t n) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm), Align<T>(n));
  pipe.InitBuffer(buf, Align<T>(n) * sizeof(T));
  AscendC::LocalTensor<T> t = buf.Get<T>();
  AscendC::DataCopy(t, g, Align<T>(n));
  AscendC::PipeBarrier<PIPE_ALL>();
  return t;
}

template <class... Params, class... Args>
tessera::Status RunKernel(void (*kernel)(Params...), Args... args) {
  auto stream = tessera::device::Stream::Create();
  if (!stream.ok()) return stream.status();
  tessera::Status st = tessera::device::Launch(kernel, 1, *stream, args...);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

enum Form : uint32_t {
  kTensorOffset,    // offset and scale tensors, groups from the scale's ShapeInfo
  kTensorNoOffset,  // scale tensor only, groups from AntiQuantShapeInfo
  kScalar,          // scalar offset and scale
  kScalarNoOffset,  // scalar scale
};

// src: `total` int8 of k rows (or k columns when transposed); offset / scale: `params` elements
// shaped [groups, n] (or [n, groups]).
template <class DstT, bool transpose>
__global__ __vector__ void antiquant_custom(__gm__ uint8_t* x, __gm__ uint8_t* o, __gm__ uint8_t* s,
                                            __gm__ uint8_t* y, uint32_t total, uint32_t k,
                                            uint32_t groups, uint32_t form) {
  AscendC::TPipe pipe;
  UbBuf in, off, sc, out, tmp;
  const uint32_t n = total / k;
  const uint32_t params = groups * n;
  AscendC::LocalTensor<int8_t> src = Load<int8_t>(pipe, in, x, total);
  src.SetSize(total);
  AscendC::LocalTensor<DstT> offset = Load<DstT>(pipe, off, o, params);
  AscendC::LocalTensor<DstT> scale = Load<DstT>(pipe, sc, s, params);
  pipe.InitBuffer(out, Align<DstT>(total) * sizeof(DstT));
  pipe.InitBuffer(tmp, 1024);
  AscendC::LocalTensor<DstT> dst = out.Get<DstT>();
  // The aligned tail past `total` is copied out too: give it a value.
  AscendC::Duplicate(dst, static_cast<DstT>(0.0f), static_cast<int32_t>(Align<DstT>(total)));
  AscendC::PipeBarrier<PIPE_V>();
  AscendC::LocalTensor<uint8_t> shared = tmp.Get<uint8_t>();
  const uint32_t shape[] = {transpose ? n : groups, transpose ? groups : n};
  if (form == kTensorOffset) {
    scale.SetShapeInfo(AscendC::ShapeInfo(2, shape, AscendC::DataFormat::ND));
    AscendC::AscendAntiQuant<int8_t, DstT, transpose>(dst, src, offset, scale, shared, k);
  } else if (form == kTensorNoOffset) {
    AscendC::AntiQuantShapeInfo info;
    info.scaleHeight = shape[0];
    info.scaleWidth = shape[1];
    AscendC::AscendAntiQuant<int8_t, DstT, transpose>(dst, src, scale, shared, k, info);
  } else if (form == kScalar) {
    AscendC::AscendAntiQuant<int8_t, DstT, transpose>(dst, src, offset.GetValue(0),
                                                      scale.GetValue(0), shared, k);
  } else {
    AscendC::AscendAntiQuant<int8_t, DstT, transpose>(dst, src, scale.GetValue(0), k);
  }
  AscendC::GlobalTensor<DstT> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(y), Align<DstT>(total));
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(g, dst, Align<DstT>(total));
}

// The vendor's chain: half rounds after the add and after the multiply; bfloat16 once, from
// double here (float and double agree on these small integer-plus-param sums up to the final
// rounding).
template <class DstT>
float Reference(int8_t x, float offset, float scale, bool has_offset) {
  if constexpr (std::is_same_v<DstT, half>) {
    double v = x;
    if (has_offset) v = static_cast<float>(half(static_cast<float>(v + offset)));
    return static_cast<float>(half(static_cast<float>(v * scale)));
  } else {
    const double v = (static_cast<double>(x) + (has_offset ? offset : 0.0)) * scale;
    return static_cast<float>(tessera::bfloat16(static_cast<float>(v)));
  }
}

template <class DstT, bool transpose>
void Check(uint32_t k, uint32_t n, uint32_t groups, Form form, uint32_t seed) {
  SCOPED_TRACE("k " + std::to_string(k) + " n " + std::to_string(n) + " groups " +
               std::to_string(groups) + " form " + std::to_string(form));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> bytes(-128, 127);
  std::uniform_real_distribution<float> vals(-10.0f, 10.0f);
  const uint32_t total = k * n;
  std::vector<int8_t> x(Align<int8_t>(total));
  for (auto& v : x)
    v = static_cast<int8_t>(bytes(rng));
  std::vector<DstT> off(Align<DstT>(groups * n)), sc(off.size());
  for (auto& v : off)
    v = static_cast<DstT>(vals(rng));
  for (auto& v : sc)
    v = static_cast<DstT>(vals(rng));
  DevBuf<int8_t> dx(x);
  DevBuf<DstT> doff(off), dsc(sc), dy{std::vector<DstT>(Align<DstT>(total))};
  const tessera::Status st = RunKernel(antiquant_custom<DstT, transpose>, dx.gm(), doff.gm(),
                                       dsc.gm(), dy.gm(), total, k, groups, uint32_t{form});
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& y = dy.Download();
  const uint32_t group_size = k / groups;
  const bool has_offset = form == kTensorOffset || form == kScalar;
  for (uint32_t i = 0; i < total; ++i) {
    const uint32_t row = i / (transpose ? k : n), col = i % (transpose ? k : n);
    uint32_t at = 0;
    if (form == kTensorOffset || form == kTensorNoOffset)
      at = transpose ? row * groups + col / group_size : (row / group_size) * n + col;
    const float ref =
        Reference<DstT>(x[i], static_cast<float>(off[at]), static_cast<float>(sc[at]), has_offset);
    ASSERT_EQ(static_cast<float>(y[i]), ref) << "element " << i;
  }
}

TEST(CompatAdvAntiQuant, PerChannelHalf) {
  Check<half, false>(8, 128, 1, kTensorOffset, 1);
  Check<half, false>(1, 16, 1, kTensorOffset, 2);
  Check<half, false>(31, 48, 1, kTensorNoOffset, 3);
}

TEST(CompatAdvAntiQuant, PerGroupAndTransposed) {
  Check<half, false>(12, 32, 3, kTensorOffset, 4);
  Check<half, true>(7 * 4, 5, 4, kTensorOffset, 5);
  Check<half, true>(64, 3, 2, kTensorNoOffset, 6);
  Check<bfloat16_t, false>(6, 64, 2, kTensorOffset, 7);
  Check<bfloat16_t, true>(32, 7, 1, kTensorNoOffset, 8);
}

TEST(CompatAdvAntiQuant, ScalarParameters) {
  Check<half, false>(4, 97, 1, kScalar, 9);
  Check<bfloat16_t, true>(33, 2, 1, kScalarNoOffset, 10);
}

// A group count that does not divide k fails the launch with a message naming the API.
TEST(CompatAdvAntiQuant, BadGroupsFail) {
  std::vector<int8_t> x(32, 1);
  std::vector<half> p(32, half(1.0f));
  DevBuf<int8_t> dx(x);
  DevBuf<half> doff(p), dsc(p), dy{std::vector<half>(32)};
  const tessera::Status st =
      RunKernel(antiquant_custom<half, false>, dx.gm(), doff.gm(), dsc.gm(), dy.gm(), uint32_t{8},
                uint32_t{4}, uint32_t{3}, uint32_t{kTensorOffset});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("AscendAntiQuant"), std::string::npos) << st.message();
}

TEST(CompatAdvAntiQuant, HostQueries) {
  uint32_t max_bytes = 1, min_bytes = 1;
  AscendC::GetAscendAntiQuantMaxMinTmpSize(
      AscendC::TensorShape({1024}), AscendC::TensorShape({128}), false,
      AscendC::TensorDataType::DT_INT8, AscendC::TensorDataType::DT_FLOAT16, max_bytes, min_bytes);
  EXPECT_EQ(max_bytes, 0u);
  EXPECT_EQ(min_bytes, 0u);
}

TEST(CompatAdvAntiQuant, ShapeInfoTravelsWithViews) {
  const uint32_t shape[] = {3, 5, 7};
  AscendC::ShapeInfo info(3, shape);
  EXPECT_EQ(info.shapeDim, 3);
  EXPECT_EQ(info.originalShape[2], 7u);
  EXPECT_EQ(info.dataFormat, AscendC::DataFormat::ND);
  AscendC::LocalTensor<float> t;
  EXPECT_EQ(t.GetShapeInfo().shapeDim, 0);
  t.SetShapeInfo(info);
  const AscendC::LocalTensor<float> view = t[0];
  EXPECT_EQ(view.GetShapeInfo().shapeDim, 3);
  EXPECT_EQ(view.GetShapeInfo().shape[1], 5u);
}

// ---------------------------------------------------------------------------------------------
// TopK

// Rows of `inner` values; flags: bit 0 isLargest, bit 1 the finish flags.
template <class T, bool init_index, bool has_finish, AscendC::TopKMode mode>
__global__ __vector__ void topk_custom(__gm__ uint8_t* x, __gm__ uint8_t* idx, __gm__ uint8_t* fin,
                                       __gm__ uint8_t* vals, __gm__ uint8_t* inds, int32_t outter,
                                       int32_t inner, int32_t n, int32_t k, uint32_t value_len,
                                       uint32_t index_len, uint32_t largest) {
  AscendC::TPipe pipe;
  UbBuf in, in_idx, in_fin, out_v, out_i;
  constexpr bool small = mode == AscendC::TopKMode::TOPK_NSMALL;
  AscendC::LocalTensor<T> src = Load<T>(pipe, in, x, outter * inner);
  AscendC::LocalTensor<int32_t> src_index =
      Load<int32_t>(pipe, in_idx, idx, small ? outter * inner : inner);
  AscendC::LocalTensor<bool> finish = Load<bool>(pipe, in_fin, fin, outter);
  pipe.InitBuffer(out_v, Align<T>(value_len) * sizeof(T));
  pipe.InitBuffer(out_i, Align<int32_t>(index_len) * sizeof(int32_t));
  AscendC::LocalTensor<T> dst_v = out_v.Get<T>();
  AscendC::LocalTensor<int32_t> dst_i = out_i.Get<int32_t>();
  AscendC::Duplicate(dst_v, static_cast<T>(0.0f), static_cast<int32_t>(Align<T>(value_len)));
  AscendC::Duplicate(dst_i, int32_t{-1}, static_cast<int32_t>(Align<int32_t>(index_len)));
  AscendC::TopKInfo info;
  info.outter = outter;
  info.inner = inner;
  info.n = n;
  TopkTiling tiling;
  AscendC::TopK<T, init_index, has_finish, false, mode>(dst_v, dst_i, src, src_index, finish, k,
                                                        tiling, info, largest != 0);
  AscendC::GlobalTensor<T> gv;
  gv.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(vals), Align<T>(value_len));
  AscendC::GlobalTensor<int32_t> gi;
  gi.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(inds), Align<int32_t>(index_len));
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(gv, dst_v, Align<T>(value_len));
  AscendC::DataCopy(gi, dst_i, Align<int32_t>(index_len));
}

template <class T, bool init_index, bool has_finish, AscendC::TopKMode mode>
void CheckTopK(int32_t outter, int32_t inner, int32_t n, int32_t k, bool largest, uint32_t seed) {
  SCOPED_TRACE("outter " + std::to_string(outter) + " inner " + std::to_string(inner) + " k " +
               std::to_string(k) + (largest ? " largest" : " smallest"));
  constexpr bool small = mode == AscendC::TopKMode::TOPK_NSMALL;
  std::mt19937 rng(seed);
  // Few distinct values, so ties occur and their order is checked.
  std::uniform_int_distribution<int> vals(-20, 20);
  std::vector<T> x(Align<T>(outter * inner));
  for (auto& v : x)
    v = static_cast<T>(static_cast<float>(vals(rng)) * 0.5f);
  std::vector<int32_t> idx(Align<int32_t>(small ? outter * inner : inner));
  for (auto& v : idx)
    v = static_cast<int32_t>(rng() % 100000);
  std::vector<uint8_t> fin(Align<uint8_t>(outter));
  for (auto& v : fin)
    v = static_cast<uint8_t>(rng() % 2);
  const uint32_t per = 32 / sizeof(T);
  const uint32_t value_row = small ? k : (k + per - 1) / per * per;
  const uint32_t index_row = small ? k : (k + 7) / 8 * 8;
  const uint32_t value_len = outter * value_row, index_len = outter * index_row;
  DevBuf<T> dx(x);
  DevBuf<int32_t> didx(idx);
  DevBuf<uint8_t> dfin(fin);
  DevBuf<T> dv{std::vector<T>(Align<T>(value_len))};
  DevBuf<int32_t> di{std::vector<int32_t>(Align<int32_t>(index_len))};
  const tessera::Status st =
      RunKernel(topk_custom<T, init_index, has_finish, mode>, dx.gm(), didx.gm(), dfin.gm(),
                dv.gm(), di.gm(), outter, inner, n, k, value_len, index_len, uint32_t{largest});
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& v = dv.Download();
  const auto& ix = di.Download();
  for (int32_t r = 0; r < outter; ++r) {
    std::vector<int32_t> order(inner);
    for (int32_t i = 0; i < inner; ++i)
      order[i] = i;
    // Reference: a stable sort (numpy's argsort kind="stable") on the row.
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const double p = static_cast<float>(x[r * inner + a]),
                   q = static_cast<float>(x[r * inner + b]);
      return largest ? p > q : p < q;
    });
    for (int32_t j = 0; j < static_cast<int32_t>(value_row); ++j) {
      const float got = static_cast<float>(v[r * value_row + j]);
      if (j < k) {
        ASSERT_EQ(got, static_cast<float>(x[r * inner + order[j]])) << "row " << r << " rank " << j;
      } else {
        ASSERT_EQ(got, 0.0f) << "padding written, row " << r << " slot " << j;
      }
    }
    for (int32_t j = 0; j < static_cast<int32_t>(index_row); ++j) {
      int32_t want = -1;
      if (j < k) {
        want = init_index ? idx[(small ? r * inner : 0) + order[j]] : order[j];
        if (has_finish && fin[r] != 0) want = n;
      }
      ASSERT_EQ(ix[r * index_row + j], want) << "row " << r << " rank " << j;
    }
  }
}

TEST(CompatAdvTopK, NormalMode) {
  using AscendC::TopKMode;
  CheckTopK<float, false, true, TopKMode::TOPK_NORMAL>(2, 32, 32, 1, false, 11);
  CheckTopK<float, false, false, TopKMode::TOPK_NORMAL>(3, 64, 64, 7, true, 12);
  CheckTopK<float, true, true, TopKMode::TOPK_NORMAL>(5, 96, 96, 31, true, 13);
  CheckTopK<half, false, false, TopKMode::TOPK_NORMAL>(1, 32, 32, 17, false, 14);
  CheckTopK<half, true, true, TopKMode::TOPK_NORMAL>(4, 128, 128, 32, true, 15);
}

TEST(CompatAdvTopK, SmallMode) {
  using AscendC::TopKMode;
  CheckTopK<float, false, false, TopKMode::TOPK_NSMALL>(7, 32, 32, 5, true, 16);
  CheckTopK<float, true, false, TopKMode::TOPK_NSMALL>(3, 32, 32, 32, false, 17);
  CheckTopK<half, true, false, TopKMode::TOPK_NSMALL>(9, 32, 32, 3, true, 18);
}

// k above n fails the launch with a message naming TopK and k.
TEST(CompatAdvTopK, BadKFails) {
  std::vector<float> x(64, 1.0f);
  std::vector<int32_t> idx(32, 0);
  std::vector<uint8_t> fin(32, 0);
  DevBuf<float> dx(x), dv{std::vector<float>(64)};
  DevBuf<int32_t> didx(idx), di{std::vector<int32_t>(64)};
  DevBuf<uint8_t> dfin(fin);
  const tessera::Status st =
      RunKernel(topk_custom<float, false, false, AscendC::TopKMode::TOPK_NORMAL>, dx.gm(),
                didx.gm(), dfin.gm(), dv.gm(), di.gm(), int32_t{2}, int32_t{32}, int32_t{20},
                int32_t{21}, uint32_t{48}, uint32_t{48}, uint32_t{1});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("TopK"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("k 21"), std::string::npos) << st.message();
}

TEST(CompatAdvTopK, TilingFunc) {
  auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance("Ascend910B1");
  ASSERT_NE(platform, nullptr);
  optiling::TopkTiling host;
  ASSERT_TRUE(AscendC::TopKTilingFunc(*platform, 64, 3, 5, 4, false, AscendC::TopKMode::TOPK_NORMAL,
                                      true, host));
  EXPECT_EQ(host.get_allDataSize(), 192);
  EXPECT_EQ(host.get_kAlignFourBytes(), 8);
  EXPECT_EQ(host.get_kAlignTwoBytes(), 16);
  EXPECT_EQ(host.GetDataSize(), sizeof(TopkTiling));
  AscendC::tiling::TopkTiling kernel;
  EXPECT_FALSE(AscendC::TopKTilingFunc(*platform, 64, 3, 5, 4, false,
                                       AscendC::TopKMode::TOPK_NSMALL, true, kernel));
  // allDataSize (int32) cannot hold inner * outter: refused rather than wrapped.
  EXPECT_FALSE(AscendC::TopKTilingFunc(*platform, 65536, 32768, 5, 4, false,
                                       AscendC::TopKMode::TOPK_NORMAL, true, kernel));
  EXPECT_TRUE(AscendC::TopKTilingFunc(*platform, 65536, 32767, 5, 4, false,
                                      AscendC::TopKMode::TOPK_NORMAL, true, kernel));
  EXPECT_EQ(kernel.allDataSize, 65536 * 32767);
  uint32_t max_bytes = 1, min_bytes = 1;
  EXPECT_TRUE(AscendC::GetTopKMaxMinTmpSize(*platform, 32, 2, false, false,
                                            AscendC::TopKMode::TOPK_NORMAL, true, 4, max_bytes,
                                            min_bytes));
  EXPECT_EQ(max_bytes, 0u);
}

// ---------------------------------------------------------------------------------------------
// LayerNorm (LayerNormPara / LayerNormSeparateTiling) and Normalize

template <class T, bool no_gamma>
__global__ __vector__ void layernorm_v2_custom(__gm__ uint8_t* x, __gm__ uint8_t* g,
                                               __gm__ uint8_t* b, __gm__ uint8_t* y,
                                               __gm__ uint8_t* stats, __gm__ uint8_t* ny,
                                               uint32_t a, uint32_t r, uint32_t stride, float eps,
                                               __gm__ uint8_t* tiling_gm) {
  AscendC::TPipe pipe;
  UbBuf in, gb, bb, out, st, nout, nrstd, var;
  AscendC::LocalTensor<T> src = Load<T>(pipe, in, x, a * stride);
  AscendC::LocalTensor<T> gamma = Load<T>(pipe, gb, g, stride);
  AscendC::LocalTensor<T> beta = Load<T>(pipe, bb, b, stride);
  pipe.InitBuffer(out, Align<T>(a * stride) * sizeof(T));
  pipe.InitBuffer(nout, Align<T>(a * stride) * sizeof(T));
  pipe.InitBuffer(st, Align<float>(2 * a) * sizeof(float));
  pipe.InitBuffer(nrstd, Align<float>(a) * sizeof(float));
  pipe.InitBuffer(var, Align<float>(a) * sizeof(float));
  AscendC::LocalTensor<T> dst = out.Get<T>();
  AscendC::LocalTensor<T> ndst = nout.Get<T>();
  AscendC::LocalTensor<float> mean = st.Get<float>();
  AscendC::Duplicate(mean, 0.0f, static_cast<int32_t>(Align<float>(2 * a)));
  AscendC::LocalTensor<float> rstd = mean[a];
  AscendC::LocalTensor<float> variance = var.Get<float>();
  AscendC::LocalTensor<float> nr = nrstd.Get<float>();
  AscendC::Duplicate(dst, static_cast<T>(0.0f), static_cast<int32_t>(Align<T>(a * stride)));
  AscendC::Duplicate(ndst, static_cast<T>(0.0f), static_cast<int32_t>(Align<T>(a * stride)));
  AscendC::tiling::LayerNormSeparateTiling tiling;
  const __gm__ uint32_t* words = reinterpret_cast<const __gm__ uint32_t*>(tiling_gm);
  uint32_t* dst_words = reinterpret_cast<uint32_t*>(&tiling);
  for (size_t i = 0; i < sizeof(tiling) / 4; ++i)
    dst_words[i] = words[i];
  static constexpr AscendC::LayerNormConfig kLn = {false, no_gamma, false, true};
  AscendC::LayerNormPara para = {a, r, stride};
  AscendC::LayerNorm<T, T, false, kLn>(dst, mean, rstd, src, gamma, beta, eps, para, tiling);
  // The variance back from rstd, then Normalize with LayerNorm's statistics.
  for (uint32_t i = 0; i < a; ++i) {
    const float v = rstd.GetValue(i);
    variance.SetValue(i, 1.0f / (v * v) - eps);
  }
  static constexpr AscendC::NormalizeConfig kNorm = {AscendC::ReducePattern::AR, -1, false,
                                                     no_gamma, false};
  AscendC::NormalizePara npara = {a, r, stride};
  AscendC::Normalize<T, T, false, kNorm>(ndst, nr, mean, variance, src, gamma, beta, eps, npara);
  AscendC::GlobalTensor<T> gy, gny;
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y), Align<T>(a * stride));
  gny.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(ny), Align<T>(a * stride));
  AscendC::GlobalTensor<float> gs;
  gs.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(stats), Align<float>(2 * a));
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::DataCopy(gy, dst, Align<T>(a * stride));
  AscendC::DataCopy(gny, ndst, Align<T>(a * stride));
  AscendC::DataCopy(gs, mean, Align<float>(2 * a));
}

template <class T, bool no_gamma>
void CheckLayerNormV2(uint32_t a, uint32_t r, uint32_t seed) {
  SCOPED_TRACE("a " + std::to_string(a) + " r " + std::to_string(r));
  const uint32_t stride = Align<T>(r);
  const float eps = 1e-4f;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-3.0f, 5.0f);
  std::vector<T> x(Align<T>(a * stride)), g(stride), b(stride);
  for (auto& v : x)
    v = static_cast<T>(d(rng));
  for (auto& v : g)
    v = static_cast<T>(d(rng));
  for (auto& v : b)
    v = static_cast<T>(d(rng));
  optiling::LayerNormSeparateTiling host;
  AscendC::GetLayerNormNDTilingInfo(AscendC::TensorShape({a, r}), 0, sizeof(T), false, true, host);
  ASSERT_EQ(host.aLength, a);
  ASSERT_EQ(host.rLength, r);
  std::vector<uint8_t> tiling_bytes(host.GetDataSize());
  host.SaveToBuffer(tiling_bytes.data(), tiling_bytes.size());
  DevBuf<T> dx(x), dg(g), db(b), dy{std::vector<T>(x.size())}, dny{std::vector<T>(x.size())};
  DevBuf<float> ds{std::vector<float>(Align<float>(2 * a))};
  DevBuf<uint8_t> dt(tiling_bytes);
  const tessera::Status st = RunKernel(layernorm_v2_custom<T, no_gamma>, dx.gm(), dg.gm(), db.gm(),
                                       dy.gm(), ds.gm(), dny.gm(), a, r, stride, eps, dt.gm());
  ASSERT_TRUE(st.ok()) << st.message();
  const auto& y = dy.Download();
  const auto& ny = dny.Download();
  const auto& s = ds.Download();
  const double tol = std::is_same_v<T, float> ? 2e-5 : 4e-3;
  for (uint32_t row = 0; row < a; ++row) {
    long double sum = 0, sq = 0;
    for (uint32_t i = 0; i < r; ++i)
      sum += static_cast<float>(x[row * stride + i]);
    const long double mean = sum / r;
    for (uint32_t i = 0; i < r; ++i) {
      const long double dv = static_cast<float>(x[row * stride + i]) - mean;
      sq += dv * dv;
    }
    const long double rstd = 1.0L / std::sqrt(sq / r + eps);
    EXPECT_NEAR(s[row], static_cast<double>(mean), 1e-5 * (1 + std::fabs(double(mean))));
    EXPECT_NEAR(s[a + row], static_cast<double>(rstd), 1e-5 * static_cast<double>(rstd));
    for (uint32_t i = 0; i < stride; ++i) {
      const size_t at = row * stride + i;
      if (i >= r) {
        ASSERT_EQ(static_cast<float>(y[at]), 0.0f) << "padding written at " << at;
        ASSERT_EQ(static_cast<float>(ny[at]), 0.0f) << "padding written at " << at;
        continue;
      }
      long double ref = (static_cast<float>(x[at]) - mean) * rstd;
      if (!no_gamma) ref *= static_cast<float>(g[i]);
      ref += static_cast<float>(b[i]);
      const double bound = tol * (1 + std::fabs(double(ref)));
      ASSERT_NEAR(static_cast<float>(y[at]), static_cast<double>(ref), bound) << "at " << at;
      ASSERT_NEAR(static_cast<float>(ny[at]), static_cast<double>(ref), 10 * bound) << "at " << at;
    }
  }
}

TEST(CompatAdvNormalize, LayerNormRstdAndNormalize) {
  CheckLayerNormV2<float, false>(32, 32, 21);
  CheckLayerNormV2<float, false>(1, 7, 22);
  CheckLayerNormV2<float, true>(5, 31, 23);
  CheckLayerNormV2<half, false>(3, 65, 24);
}

}  // namespace
