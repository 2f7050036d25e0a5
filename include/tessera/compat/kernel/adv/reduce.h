// The vendor's advanced reductions: ReduceMax / ReduceMin / ReduceSum over one axis of a 2-D
// tensor (Pattern::Reduce::AR reduces each row, RA each column) and Sum (each row's first n
// elements). half and bfloat16 accumulate in fp32 and round once; sums of float accumulate in
// fp32 in 16 interleaved partial sums (the vendor's hardware also sums in a tree, not in order).
// The temporary buffer argument is accepted for signature compatibility: these implementations
// need none (GetReduce*MaxMinTmpSize / GetSumMaxMinTmpSize report 0).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "tessera/compat/kernel/adv/detail/adv_common.h"

namespace AscendC {

namespace Pattern::Reduce {
// Axis patterns of a 2-D source: A keeps an axis, R reduces it (first letter = outer axis).
struct AR {
  static constexpr bool kReduceInner = true;
};
struct RA {
  static constexpr bool kReduceInner = false;
};
}  // namespace Pattern::Reduce

// Sum's shape: `outter` rows of `inner` elements (inner * sizeof(T) a multiple of 32 bytes), of
// which the first `n` of each row are summed into dst[row].
struct SumParams {
  uint32_t outter = 1;
  uint32_t inner = 0;
  uint32_t n = 0;
};

}  // namespace AscendC

namespace tessera::compat::adv {

enum class ReduceKind { kSum, kMax, kMin };

template <ReduceKind kind>
struct ReduceOpOf {
  static float Init() {
    if constexpr (kind == ReduceKind::kSum) return 0.0f;
    if constexpr (kind == ReduceKind::kMax) return -std::numeric_limits<float>::infinity();
    return std::numeric_limits<float>::infinity();
  }
  static float Apply(float a, float b) {
    if constexpr (kind == ReduceKind::kSum) return a + b;
    if (a != a || b != b) return a + b;  // NaN propagates
    if constexpr (kind == ReduceKind::kMax) return a > b ? a : b;
    return a < b ? a : b;
  }
};

// Reduces n contiguous elements to one fp32 value (a NaN propagates through max / min).
template <ReduceKind kind, class T>
float ReduceRow(const T* src, uint32_t n) {
  using Op = ReduceOpOf<kind>;
  constexpr uint32_t kLanes = 16;
  float acc[kLanes];
  for (float& a : acc)
    a = Op::Init();
  uint32_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (uint32_t l = 0; l < kLanes; ++l)
      acc[l] = Op::Apply(acc[l], ToF32(src[i + l]));
  for (uint32_t l = 0; i < n; ++i, ++l)
    acc[l] = Op::Apply(acc[l], ToF32(src[i]));
  for (uint32_t w = kLanes / 2; w > 0; w /= 2)
    for (uint32_t l = 0; l < w; ++l)
      acc[l] = Op::Apply(acc[l], acc[l + w]);
  return acc[0];
}

// dst[a] = reduce over r of src[r * stride + a], for a < cols: row by row, so the inner loop runs
// across contiguous columns.
template <ReduceKind kind, class T>
void ReduceColumns(T* dst, const T* src, uint32_t rows, uint32_t cols, uint32_t stride,
                   float* acc) {
  using Op = ReduceOpOf<kind>;
  for (uint32_t a = 0; a < cols; ++a)
    acc[a] = Op::Init();
  for (uint32_t r = 0; r < rows; ++r) {
    const T* row = src + uint64_t{r} * stride;
    for (uint32_t a = 0; a < cols; ++a)
      acc[a] = Op::Apply(acc[a], ToF32(row[a]));
  }
  for (uint32_t a = 0; a < cols; ++a)
    dst[a] = FromF32<T>(acc[a]);
}

template <ReduceKind kind, class T, class Pattern>
void ReducePattern2D(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const uint32_t srcShape[], bool srcInnerPad) {
  static_assert(kIsFloating<T>, "ReduceMax/ReduceMin/ReduceSum: T must be float, half or bfloat16");
  const uint32_t outer = srcShape[0];
  const uint32_t inner = srcShape[1];
  const uint32_t stride = srcInnerPad ? AlignToBlock<T>(inner) : inner;
  const uint32_t out_count = Pattern::kReduceInner ? outer : inner;
  Require(
      outer > 0 && inner > 0, api,
      "srcShape {" + std::to_string(outer) + ", " + std::to_string(inner) + "} has an empty axis");
  CheckSpace(src, uint64_t{outer - 1} * stride + inner, api, "src");
  CheckWrite(dst, out_count, api);
  if constexpr (Pattern::kReduceInner) {
    for (uint32_t a = 0; a < outer; ++a)
      dst.data()[a] = FromF32<T>(ReduceRow<kind>(src.data() + uint64_t{a} * stride, inner));
  } else {
    // Column accumulators in blocks of 1024 so the running values stay on the stack.
    constexpr uint32_t kBlock = 1024;
    float acc[kBlock];
    for (uint32_t a0 = 0; a0 < inner; a0 += kBlock)
      ReduceColumns<kind>(dst.data() + a0, src.data() + a0, outer, std::min(kBlock, inner - a0),
                          stride, acc);
  }
}

}  // namespace tessera::compat::adv

namespace AscendC {

// The functions are declared in AscendC::adv_api, which AscendC imports: a qualified
// AscendC::Name then finds these and the kernel layer's same-named instructions together.
namespace adv_api {

// ReduceMax / ReduceMin / ReduceSum<T, Pattern::Reduce::AR | RA>: srcShape = {outer, inner} of the
// source; AR writes `outer` results (one per row), RA writes `inner` (one per column). With
// srcInnerPad each row occupies inner rounded up to 32 bytes; without it rows are contiguous.
// T: float, half, bfloat16 (computed in fp32). dst must not overlap src.
template <class T, class pattern, bool isReuseSource = false>
void ReduceMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t srcShape[],
               bool srcInnerPad) {
  ::tessera::compat::adv::ReducePattern2D<::tessera::compat::adv::ReduceKind::kMax, T, pattern>(
      "ReduceMax", dstTensor, srcTensor, srcShape, srcInnerPad);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const uint32_t srcShape[], bool srcInnerPad) {
  ::tessera::compat::adv::ReducePattern2D<::tessera::compat::adv::ReduceKind::kMax, T, pattern>(
      "ReduceMax", dstTensor, srcTensor, srcShape, srcInnerPad);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceMin(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t srcShape[],
               bool srcInnerPad) {
  ::tessera::compat::adv::ReducePattern2D<::tessera::compat::adv::ReduceKind::kMin, T, pattern>(
      "ReduceMin", dstTensor, srcTensor, srcShape, srcInnerPad);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceMin(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const uint32_t srcShape[], bool srcInnerPad) {
  ::tessera::compat::adv::ReducePattern2D<::tessera::compat::adv::ReduceKind::kMin, T, pattern>(
      "ReduceMin", dstTensor, srcTensor, srcShape, srcInnerPad);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceSum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t srcShape[],
               bool srcInnerPad) {
  ::tessera::compat::adv::ReducePattern2D<::tessera::compat::adv::ReduceKind::kSum, T, pattern>(
      "ReduceSum", dstTensor, srcTensor, srcShape, srcInnerPad);
}
template <class T, class pattern, bool isReuseSource = false>
void ReduceSum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const uint32_t srcShape[], bool srcInnerPad) {
  ::tessera::compat::adv::ReducePattern2D<::tessera::compat::adv::ReduceKind::kSum, T, pattern>(
      "ReduceSum", dstTensor, srcTensor, srcShape, srcInnerPad);
}

// Sum: dst[row] = sum of the first n elements of each of `outter` rows of `inner` elements
// (1 <= n <= inner, inner * sizeof(T) a multiple of 32). T: float or half. Only dst[0, outter) is
// written; the vendor's callers zero the 32-byte-aligned remainder themselves.
template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
         const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const SumParams& sumParams) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, ::tessera::half>,
                "Sum: T must be float or half");
  using namespace ::tessera::compat::adv;
  const char* api = "Sum";
  Require(sumParams.n >= 1 && sumParams.n <= sumParams.inner, api,
          "n " + std::to_string(sumParams.n) +
              " must be in [1, inner = " + std::to_string(sumParams.inner) + "]");
  Require(
      sumParams.inner * sizeof(T) % 32 == 0, api,
      "inner " + std::to_string(sumParams.inner) + " x sizeof(T) is not a multiple of 32 bytes");
  CheckSpace(srcTensor, uint64_t{sumParams.outter} * sumParams.inner, api, "src");
  CheckWrite(dstTensor, sumParams.outter, api);
  for (uint32_t r = 0; r < sumParams.outter; ++r)
    dstTensor.data()[r] = FromF32<T>(
        ReduceRow<ReduceKind::kSum>(srcTensor.data() + uint64_t{r} * sumParams.inner, sumParams.n));
}
template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
         const SumParams& sumParams) {
  Sum<T, reduceDim, isReuseSource, isBasicBlock>(dstTensor, srcTensor, LocalTensor<uint8_t>(),
                                                 sumParams);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC
