// The vendor's softmax family (adv_api/activation: SoftMax, SimpleSoftMax, LogSoftMax,
// AdjustSoftMaxRes, SoftmaxFlashV2, SoftmaxGrad, SoftmaxGradFront) in namespace AscendC, on the
// Highway kernels of math_dispatch.h (tessera's Exp and Ln; statistics in fp32).
//
// Layout (ND): src and dst are srcM rows of srcK elements (SoftMaxShapeInfo; the first oriSrcK
// of each row are computed, the rest of dst is left alone); the per-row statistics (max, sum,
// expMax, SoftmaxGradFront's result) are written broadcast over one 32-byte block per row, e.g.
// [srcM, 8] for float, [srcM, 16] for half, as the vendor does. The NZ format, the temporary
// buffer and isReuseSource / isBasicBlock are accepted; NZ data and a SoftmaxConfig mode other than
// SOFTMAX_NORMAL fail the block (in both modes). An empty
// SoftMaxShapeInfo takes the shape from the tiling's srcM / srcK.
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/compat/kernel/adv/math_common.h"
#include "tessera/compat/kernel/adv/softmax_tiling.h"
#include "tessera/kernel/check.h"

// The vendor's kernel assertion macro (kernel_macros.h, its CPU-debug form), which its softmax
// samples use; defined here until the basic layer provides it.
#ifndef ASSERT
#define ASSERT(x) assert(x)
#endif

namespace AscendC {
// Declared in a nested namespace that AscendC imports, so that a qualified AscendC::Name finds
// these overloads together with the kernel layer's same-named instructions (Exp, Sigmoid, Axpy,
// ...) instead of hiding them.
namespace adv_api {

using ::tessera::kernel::LocalTensor;

using ::tessera::kernel::DataFormat;

enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };
struct SoftmaxConfig {
  constexpr SoftmaxConfig(const bool isCheckTilingIn) : isCheckTiling(isCheckTilingIn) {}
  constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn,
                          const uint32_t oriSrcKIn)
      : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn) {}
  constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn,
                          const uint32_t oriSrcKIn, const SoftmaxMode modeIn)
      : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn), mode(modeIn) {}
  bool isCheckTiling = true;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
  SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

struct SoftMaxShapeInfo {
  uint32_t srcM{0};
  uint32_t srcK{0};
  uint32_t oriSrcM{0};
  uint32_t oriSrcK{0};
};

using ::AscendC::tiling::LogSoftMaxTiling;
using ::AscendC::tiling::SoftMaxTiling;

namespace adv_detail {

struct SoftMaxShape {
  uint32_t rows, cols, valid;
};

template <bool isDataFormatNZ>
SoftMaxShape ResolveShape(const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, bool checked,
                          const char* api) {
  (void)checked;
  // Fails in both modes: treating NZ data as ND would give wrong results silently.
  if (isDataFormatNZ)
    ::tessera::kernel::KernelFail(api,
                                  "the NZ data format is not supported on tessera; pass ND data");
  SoftMaxShape s{info.srcM, info.srcK, info.oriSrcK};
  if (s.rows == 0 && s.cols == 0) s = {tiling.srcM, tiling.srcK, tiling.srcK};
  if (s.valid == 0 || s.valid > s.cols) s.valid = s.cols;
  return s;
}

// tessera writes the row statistics block-broadcast (SOFTMAX_NORMAL); another mode sizes them
// differently, so it fails the block (in both modes) rather than overrun them.
inline void RequireNormalMode(const SoftmaxConfig& config, const char* api) {
  if (config.mode != SoftmaxMode::SOFTMAX_NORMAL)
    ::tessera::kernel::KernelFail(api, "only SoftmaxMode::SOFTMAX_NORMAL is supported on tessera");
}

template <class T>
void CheckRows(const LocalTensor<T>& t, uint64_t rows, uint64_t per_row, const char* api,
               const char* role) {
  if (t.checked()) t.CheckRange(rows * per_row, api, role);
}
// Checked mode: an input read by the API must have been written; a statistics output (written
// through raw pointers by StoreStat) is marked written so that copying it out passes.
template <class T>
void CheckRowsRead(const LocalTensor<T>& t, uint64_t rows, uint64_t per_row, const char* api,
                   const char* role) {
  if (!t.checked()) return;
  t.CheckRange(rows * per_row, api, role);
  ::tessera::kernel::detail::ShadowCheckRead(t.data(), rows * per_row * sizeof(T), t.data(),
                                             sizeof(T), t.GetPosition(), api, role);
}
template <class T>
void CheckRowsWritten(const LocalTensor<T>& t, uint64_t rows, uint64_t per_row, const char* api,
                      const char* role) {
  if (!t.checked()) return;
  t.CheckRange(rows * per_row, api, role);
  ::tessera::kernel::detail::ShadowWritten(t.data(), rows * per_row * sizeof(T));
}

// One value per row, broadcast over the row's 32-byte block of a statistics tensor.
template <class S>
void StoreStat(const LocalTensor<S>& t, const std::vector<float>& v) {
  constexpr uint32_t kBlock = 32 / sizeof(S);
  S* p = t.data();
  for (size_t r = 0; r < v.size(); ++r)
    for (uint32_t j = 0; j < kBlock; ++j)
      p[r * kBlock + j] = static_cast<S>(v[r]);
}
template <class S>
std::vector<float> LoadStat(const LocalTensor<S>& t, uint32_t rows) {
  constexpr uint32_t kBlock = 32 / sizeof(S);
  std::vector<float> v(rows);
  for (uint32_t r = 0; r < rows; ++r)
    v[r] = static_cast<float>(t.data()[r * kBlock]);
  return v;
}

template <class T, class S, bool isDataFormatNZ>
void SoftMaxWithStats(const char* api, const LocalTensor<T>& dst, const LocalTensor<S>* sum,
                      const LocalTensor<S>* max, const LocalTensor<T>& src,
                      const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, bool log10) {
  static_assert(::tessera::compat::adv::kFloat<T>, "softmax takes float or half tensors");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  const SoftMaxShape s = ResolveShape<isDataFormatNZ>(tiling, info, dst.checked(), api);
  CheckRows(dst, s.rows, s.cols, api, "dst");
  CheckRows(src, s.rows, s.cols, api, "src");
  if (sum != nullptr) CheckRows(*sum, s.rows, 32 / sizeof(S), api, "sum");
  if (max != nullptr) CheckRows(*max, s.rows, 32 / sizeof(S), api, "max");
  if (s.rows == 0 || s.valid == 0) return;
  std::vector<float> mx(s.rows), sm(s.rows);
  ::tessera::compat::adv::SoftMaxRows(::tessera::kernel::vec::DTypeOf<T>(), dst.data(), src.data(),
                                      s.rows, s.cols, s.valid, mx.data(), sm.data(), log10);
  if (sum != nullptr) StoreStat(*sum, sm);
  if (max != nullptr) StoreStat(*max, mx);
}

}  // namespace adv_detail

// dst = e^(x - max) / sum per row; sum and max (optional) receive the row statistics.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG,
          typename S>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<S>& sumTensor,
             const LocalTensor<S>& maxTensor, const LocalTensor<T>& src,
             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  adv_detail::RequireNormalMode(config, "SoftMax");
  adv_detail::SoftMaxWithStats<T, S, isDataFormatNZ>("SoftMax", dst, &sumTensor, &maxTensor, src,
                                                     tiling, softmaxShapeInfo, false);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG,
          typename S>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<S>& sumTensor,
             const LocalTensor<S>& maxTensor, const LocalTensor<T>& src,
             const LocalTensor<uint8_t>&, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  adv_detail::RequireNormalMode(config, "SoftMax");
  adv_detail::SoftMaxWithStats<T, S, isDataFormatNZ>("SoftMax", dst, &sumTensor, &maxTensor, src,
                                                     tiling, softmaxShapeInfo, false);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  adv_detail::RequireNormalMode(config, "SoftMax");
  adv_detail::SoftMaxWithStats<T, T, false>("SoftMax", dst, nullptr, nullptr, src, tiling,
                                            softmaxShapeInfo, false);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  adv_detail::RequireNormalMode(config, "SoftMax");
  adv_detail::SoftMaxWithStats<T, T, false>("SoftMax", dst, nullptr, nullptr, src, tiling,
                                            softmaxShapeInfo, false);
}

// dst = log10(softmax(x)) per row (the vendor's LogSoftMax uses base 10), with sum and max.
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
void LogSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sum, const LocalTensor<T>& max,
                const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
                const LogSoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  adv_detail::SoftMaxWithStats<T, T, isDataFormatNZ>("LogSoftMax", dst, &sum, &max, src, tiling,
                                                     softmaxShapeInfo, true);
}

// dst = e^(x - inMax) / inSum with the given per-row statistics (block-broadcast tensors).
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG,
          typename S>
void SimpleSoftMax(const LocalTensor<T>& dst, const LocalTensor<S>& inSumTensor,
                   const LocalTensor<S>& inMaxTensor, const LocalTensor<T>& src,
                   const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  adv_detail::RequireNormalMode(config, "SimpleSoftMax");
  const adv_detail::SoftMaxShape s = adv_detail::ResolveShape<isDataFormatNZ>(
      tiling, softmaxShapeInfo, dst.checked(), "SimpleSoftMax");
  adv_detail::CheckRows(dst, s.rows, s.cols, "SimpleSoftMax", "dst");
  adv_detail::CheckRows(src, s.rows, s.cols, "SimpleSoftMax", "src");
  adv_detail::CheckRows(inSumTensor, s.rows, 32 / sizeof(S), "SimpleSoftMax", "inSum");
  adv_detail::CheckRows(inMaxTensor, s.rows, 32 / sizeof(S), "SimpleSoftMax", "inMax");
  if (s.rows == 0 || s.valid == 0) return;
  const std::vector<float> mx = adv_detail::LoadStat(inMaxTensor, s.rows);
  const std::vector<float> sm = adv_detail::LoadStat(inSumTensor, s.rows);
  ::tessera::compat::adv::SimpleSoftMaxRows(::tessera::kernel::vec::DTypeOf<T>(), dst.data(),
                                            src.data(), s.rows, s.cols, s.valid, mx.data(),
                                            sm.data());
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG,
          typename S>
void SimpleSoftMax(const LocalTensor<T>& dst, const LocalTensor<S>& inSumTensor,
                   const LocalTensor<S>& inMaxTensor, const LocalTensor<T>& src,
                   const LocalTensor<uint8_t>&, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SimpleSoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dst, inSumTensor, inMaxTensor, src, tiling, softmaxShapeInfo);
}

// Rows whose max has the bit pattern `from` get every result element set to `to`; returns
// whether any row matched.
template <typename T1, typename T2, bool isDataFormatNZ = false, uint8_t stepSizeMode = 0>
bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes, const LocalTensor<T2>& maxTensor,
                      const uint32_t from, const T1 to, const SoftMaxShapeInfo& softmaxShapeInfo) {
  constexpr uint32_t kBlock = 32 / sizeof(T2);
  const uint32_t rows = softmaxShapeInfo.srcM;
  const uint32_t cols = softmaxShapeInfo.srcK;
  const uint32_t valid = softmaxShapeInfo.oriSrcK != 0 && softmaxShapeInfo.oriSrcK <= cols
                             ? softmaxShapeInfo.oriSrcK
                             : cols;
  adv_detail::CheckRows(softMaxRes, rows, cols, "AdjustSoftMaxRes", "softMaxRes");
  adv_detail::CheckRows(maxTensor, rows, kBlock, "AdjustSoftMaxRes", "maxTensor");
  bool any = false;
  for (uint32_t r = 0; r < rows; ++r) {
    uint32_t bits = 0;
    const T2 m = maxTensor.data()[r * kBlock];
    if constexpr (sizeof(T2) == 4) {
      __builtin_memcpy(&bits, &m, 4);
    } else {
      uint16_t b16 = 0;
      __builtin_memcpy(&b16, &m, 2);
      bits = b16;
    }
    if (bits != from) continue;
    any = true;
    for (uint32_t c = 0; c < valid; ++c)
      softMaxRes.data()[r * cols + c] = to;
  }
  return any;
}

// Flash softmax, version 2. Without isUpdate: dst = e^(x - max), max = row max, expSum = row sum
// of dst. With isUpdate, given the running inMax / inExpSum: max = max(inMax, row max),
// expMax = e^(inMax - max), expSum = expMax * inExpSum + row sum. Outputs may alias the inputs.
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG,
          typename S>
void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<S>& expSumTensor,
                    const LocalTensor<S>& maxTensor, const LocalTensor<T>& src,
                    const LocalTensor<T>& expMaxTensor, const LocalTensor<S>& inExpSumTensor,
                    const LocalTensor<S>& inMaxTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  const char* api = "SoftmaxFlashV2";
  adv_detail::RequireNormalMode(config, api);
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  const adv_detail::SoftMaxShape s =
      adv_detail::ResolveShape<isDataFormatNZ>(tiling, softmaxShapeInfo, dst.checked(), api);
  // Inputs first: an output may alias an input.
  adv_detail::CheckRowsRead(src, s.rows, s.cols, api, "src");
  if (isUpdate) {
    adv_detail::CheckRowsRead(inExpSumTensor, s.rows, 32 / sizeof(S), api, "inExpSum");
    adv_detail::CheckRowsRead(inMaxTensor, s.rows, 32 / sizeof(S), api, "inMax");
  }
  adv_detail::CheckRows(dst, s.rows, s.cols, api, "dst");
  adv_detail::CheckRowsWritten(expSumTensor, s.rows, 32 / sizeof(S), api, "expSum");
  adv_detail::CheckRowsWritten(maxTensor, s.rows, 32 / sizeof(S), api, "max");
  if (isUpdate) adv_detail::CheckRowsWritten(expMaxTensor, s.rows, 32 / sizeof(T), api, "expMax");
  if (s.rows == 0 || s.valid == 0) return;
  std::vector<float> in_max, in_sum;
  if (isUpdate) {
    in_max = adv_detail::LoadStat(inMaxTensor, s.rows);
    in_sum = adv_detail::LoadStat(inExpSumTensor, s.rows);
  }
  std::vector<float> mx(s.rows), sm(s.rows), em(isUpdate ? s.rows : 0);
  ::tessera::compat::adv::FlashRows(::tessera::kernel::vec::DTypeOf<T>(), dst.data(), src.data(),
                                    s.rows, s.cols, s.valid, isUpdate ? in_max.data() : nullptr,
                                    isUpdate ? in_sum.data() : nullptr, mx.data(), sm.data(),
                                    isUpdate ? em.data() : nullptr);
  adv_detail::StoreStat(maxTensor, mx);
  adv_detail::StoreStat(expSumTensor, sm);
  if (isUpdate) adv_detail::StoreStat(expMaxTensor, em);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG,
          typename S>
void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<S>& expSumTensor,
                    const LocalTensor<S>& maxTensor, const LocalTensor<T>& src,
                    const LocalTensor<T>& expMaxTensor, const LocalTensor<S>& inExpSumTensor,
                    const LocalTensor<S>& inMaxTensor, const LocalTensor<uint8_t>&,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SoftmaxFlashV2<T, isUpdate, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dst, expSumTensor, maxTensor, src, expMaxTensor, inExpSumTensor, inMaxTensor, tiling,
      softmaxShapeInfo);
}

// SoftmaxFlashV3's shape and parameters: srcM rows of srcK elements (oriSrcM / oriSrcK equal to
// them: the vendor supports no padding here), the running loop count, the split count of the
// row means (8) and alpha.
struct SoftMaxParams {
  constexpr SoftMaxParams() = default;
  constexpr SoftMaxParams(uint32_t srcMIn, uint32_t srcKIn, uint32_t oriSrcMIn, uint32_t oriSrcKIn,
                          uint32_t loopCntIn, uint32_t splitMeanCntIn, float alphaIn)
      : srcM(srcMIn),
        srcK(srcKIn),
        oriSrcM(oriSrcMIn),
        oriSrcK(oriSrcKIn),
        loopCnt(loopCntIn),
        splitMeanCnt(splitMeanCntIn),
        alpha(alphaIn) {}
  uint32_t srcM{0};
  uint32_t srcK{0};
  uint32_t oriSrcM{0};
  uint32_t oriSrcK{0};
  uint32_t loopCnt{1};
  uint32_t splitMeanCnt{8};
  float alpha{0.9375f};
};

// Flash softmax, version 3 (the vendor's PASA): each row is cut into splitMeanCnt = 8 splits of
// srcK / 8 elements; with the row mean A2 and split means A1 (summed in the vendor's order: 64
// partial sums over the first 512 elements and each later repeat of 64), x -= (A2 - A1) *
// alpha / (1 - alpha) per split. Without isUpdate: mean = A2, max = row max M, dst = e^(x - M),
// expSum = row sum. With isUpdate and the running inMean / inMax / inExpSum: mean A =
// (inMean (loopCnt - 1) + A2) / loopCnt, C = (A2 - A) s, P = (inMean - A) s, max M =
// max(row max + C, inMax + P), dst = e^(x - (M - C)), expMax = e^(inMax - M + P), expSum =
// expMax inExpSum + row sum. T is half and U float; srcK >= 512 and a multiple of 64; outputs may
// alias the inputs. The statistics are block-broadcast per row ([srcM, 8] fp32, expMax
// [srcM, 16] half).
template <typename T, typename U, bool isUpdate = false, bool isReuseSource = false,
          bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftmaxFlashV3(const LocalTensor<T>& dstTensor, const LocalTensor<U>& meanTensor,
                    const LocalTensor<U>& expSumTensor, const LocalTensor<U>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                    const LocalTensor<U>& inMeanTensor, const LocalTensor<U>& inExpSumTensor,
                    const LocalTensor<U>& inMaxTensor, const SoftMaxTiling& /*tiling*/,
                    const SoftMaxParams& params) {
  static_assert(std::is_same_v<T, ::tessera::half> && std::is_same_v<U, float>,
                "SoftmaxFlashV3: T is half and U float, as the vendor supports");
  const char* api = "SoftmaxFlashV3";
  adv_detail::RequireNormalMode(config, api);
  if (isDataFormatNZ)
    ::tessera::kernel::KernelFail(api, "the NZ data format is not supported on tessera");
  if (params.srcK < 512 || params.srcK % 64 != 0 || params.splitMeanCnt != 8 ||
      params.oriSrcM != params.srcM || params.oriSrcK != params.srcK ||
      (isUpdate && params.loopCnt < 1) || !(params.alpha < 1.0f)) {
    ::tessera::kernel::KernelFail(
        api, "params srcM " + std::to_string(params.srcM) + " srcK " + std::to_string(params.srcK) +
                 " oriSrcM " + std::to_string(params.oriSrcM) + " oriSrcK " +
                 std::to_string(params.oriSrcK) + " loopCnt " + std::to_string(params.loopCnt) +
                 " splitMeanCnt " + std::to_string(params.splitMeanCnt) + " alpha " +
                 std::to_string(params.alpha) +
                 ": expected srcK >= 512 and a multiple of 64, splitMeanCnt 8, ori sizes equal "
                 "to the sizes, loopCnt >= 1 with update and alpha < 1");
  }
  const ::tessera::kernel::detail::PipeScope phase(dstTensor.checked(),
                                                   ::tessera::device::TracePipe::kV);
  const uint32_t rows = params.srcM;
  // Inputs first: an output may alias an input.
  adv_detail::CheckRowsRead(srcTensor, rows, params.srcK, api, "src");
  if (isUpdate) {
    adv_detail::CheckRowsRead(inMeanTensor, rows, 8, api, "inMean");
    adv_detail::CheckRowsRead(inExpSumTensor, rows, 8, api, "inExpSum");
    adv_detail::CheckRowsRead(inMaxTensor, rows, 8, api, "inMax");
  }
  adv_detail::CheckRows(dstTensor, rows, params.srcK, api, "dst");
  adv_detail::CheckRowsWritten(meanTensor, rows, 8, api, "mean");
  adv_detail::CheckRowsWritten(expSumTensor, rows, 8, api, "expSum");
  adv_detail::CheckRowsWritten(maxTensor, rows, 8, api, "max");
  if (isUpdate) adv_detail::CheckRowsWritten(expMaxTensor, rows, 16, api, "expMax");
  if (rows == 0) return;
  std::vector<float> in_mean, in_max, in_sum;
  if (isUpdate) {
    in_mean = adv_detail::LoadStat(inMeanTensor, rows);
    in_max = adv_detail::LoadStat(inMaxTensor, rows);
    in_sum = adv_detail::LoadStat(inExpSumTensor, rows);
  }
  std::vector<float> mean(rows), mx(rows), sm(rows), em(isUpdate ? rows : 0);
  ::tessera::compat::adv::FlashV3Rows(
      ::tessera::kernel::vec::DTypeOf<T>(), dstTensor.data(), srcTensor.data(), rows, params.srcK,
      params.loopCnt, params.alpha, isUpdate ? in_mean.data() : nullptr,
      isUpdate ? in_max.data() : nullptr, isUpdate ? in_sum.data() : nullptr, mean.data(),
      mx.data(), sm.data(), isUpdate ? em.data() : nullptr);
  adv_detail::StoreStat(meanTensor, mean);
  adv_detail::StoreStat(maxTensor, mx);
  adv_detail::StoreStat(expSumTensor, sm);
  if (isUpdate) adv_detail::StoreStat(expMaxTensor, em);
}
template <typename T, typename U, bool isUpdate = false, bool isReuseSource = false,
          bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftmaxFlashV3(const LocalTensor<T>& dstTensor, const LocalTensor<U>& meanTensor,
                    const LocalTensor<U>& expSumTensor, const LocalTensor<U>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor,
                    const LocalTensor<U>& inMeanTensor, const LocalTensor<U>& inExpSumTensor,
                    const LocalTensor<U>& inMaxTensor, const LocalTensor<uint8_t>&,
                    const SoftMaxTiling& tiling, const SoftMaxParams& params) {
  SoftmaxFlashV3<T, U, isUpdate, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dstTensor, meanTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inMeanTensor,
      inExpSumTensor, inMaxTensor, tiling, params);
}

namespace adv_detail {
template <typename T, bool isDataFormatNZ>
void SoftmaxGradImpl(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& grad,
                     const LocalTensor<T>& src, const SoftMaxTiling& tiling, bool isFront,
                     const SoftMaxShapeInfo& info) {
  static_assert(::tessera::compat::adv::kFloat<T>, "softmax takes float or half tensors");
  const ::tessera::kernel::detail::PipeScope phase(dst.checked(), ::tessera::device::TracePipe::kV);
  const SoftMaxShape s = ResolveShape<isDataFormatNZ>(tiling, info, dst.checked(), api);
  CheckRows(grad, s.rows, s.cols, api, "grad");
  CheckRows(src, s.rows, s.cols, api, "src");
  CheckRows(dst, s.rows, isFront ? 32 / sizeof(T) : s.cols, api, "dst");
  if (s.rows == 0 || s.valid == 0) return;
  std::vector<float> front(s.rows);
  ::tessera::compat::adv::SoftMaxGradRows(::tessera::kernel::vec::DTypeOf<T>(),
                                          isFront ? nullptr : dst.data(), grad.data(), src.data(),
                                          s.rows, s.cols, s.valid, front.data());
  if (isFront) StoreStat(dst, front);
}
}  // namespace adv_detail

// Softmax backward: front = row sum of grad * y; dst = (grad - front) * y, or with isFront the
// front itself, block-broadcast per row.
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                 const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, bool isFront = false,
                 const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  adv_detail::SoftmaxGradImpl<T, isDataFormatNZ>("SoftmaxGrad", dstTensor, gradTensor, srcTensor,
                                                 tiling, isFront, softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                 const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>&,
                 const SoftMaxTiling& tiling, bool isFront = false,
                 const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  adv_detail::SoftmaxGradImpl<T, isDataFormatNZ>("SoftmaxGrad", dstTensor, gradTensor, srcTensor,
                                                 tiling, isFront, softmaxShapeInfo);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                      const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                      const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  adv_detail::SoftmaxGradImpl<T, isDataFormatNZ>("SoftmaxGradFront", dstTensor, gradTensor,
                                                 srcTensor, tiling, true, softmaxShapeInfo);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                      const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>&,
                      const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  adv_detail::SoftmaxGradImpl<T, isDataFormatNZ>("SoftmaxGradFront", dstTensor, gradTensor,
                                                 srcTensor, tiling, true, softmaxShapeInfo);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC
