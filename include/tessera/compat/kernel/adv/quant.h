// The vendor's quantization APIs on the 2201 path: AscendQuant (float / half -> int8,
// dst = sat(rint(half(src * scale + offset)))), AscendDequant (int32 -> float / half / bf16,
// dst = src * deqScale, the scale broadcast over rows) and AscendAntiQuant (int8 -> half / bf16,
// dst = (src + offset) * scale per channel or per group). The temporary buffer argument is
// accepted for signature compatibility: these need none (the host queries report 0).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/compat/kernel/adv/detail/adv_common.h"

namespace AscendC {

struct AscendQuantConfig {
  bool hasOffset = true;
  int32_t kDim = 1;
};
inline constexpr AscendQuantConfig ASCEND_QUANT_DEFAULT_CFG = {};

// Dequant shape: m rows of n elements (n * sizeof(int32_t) a multiple of 32); the first calCount
// of each row are dequantised.
struct DequantParams {
  uint32_t m;
  uint32_t n;
  uint32_t calCount;
};
enum class DeQuantMode { DEQUANT_WITH_SINGLE_ROW, DEQUANT_WITH_MULTI_ROW };

// AscendAntiQuant's offset / scale shape; zero fields are read from the scale tensor's
// ShapeInfo, and without one the scale is a single row (per channel).
struct AntiQuantShapeInfo {
  uint32_t offsetHeight{0};
  uint32_t offsetWidth{0};
  uint32_t scaleHeight{0};
  uint32_t scaleWidth{0};
};

}  // namespace AscendC

namespace tessera::compat::adv {

// The vendor's quantisation rounding: the affine value goes through half (as the hardware's
// float -> half -> int8 conversion chain does), then rounds to nearest even and saturates.
inline int8_t QuantizeToInt8(float v) {
  const float h = static_cast<float>(::tessera::half(v));
  if (h != h) return 0;
  const float r = std::nearbyint(h);
  return static_cast<int8_t>(r > 127.0f ? 127.0f : (r < -128.0f ? -128.0f : r));
}

template <class T>
void CheckQuantType() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, ::tessera::half> ||
                    std::is_same_v<T, ::tessera::bfloat16>,
                "AscendQuant: T must be float, half or bfloat16");
}

template <class DstT, class ScaleT>
void DequantRows(const char* api, const LocalTensor<DstT>& dst, const LocalTensor<int32_t>& src,
                 const ScaleT* scale, bool scale_is_tensor, uint32_t scale_count,
                 const AscendC::DequantParams& p) {
  static_assert(kIsFloating<DstT>, "AscendDequant: dstT must be float, half or bfloat16");
  Require(p.calCount <= p.n, api,
          "calCount " + std::to_string(p.calCount) + " exceeds n " + std::to_string(p.n));
  Require(!scale_is_tensor || p.calCount <= scale_count, api,
          "deqScale holds " + std::to_string(scale_count) + " elements, calCount is " +
              std::to_string(p.calCount));
  CheckSpace(src, uint64_t{p.m} * p.n, api, "src");
  CheckSpace(dst, uint64_t{p.m} * p.n, api, "dst");
  for (uint32_t r = 0; r < p.m; ++r) {
    const int32_t* in = src.data() + uint64_t{r} * p.n;
    DstT* out = dst.data() + uint64_t{r} * p.n;
    for (uint32_t i = 0; i < p.calCount; ++i) {
      const float s = ToF32(scale_is_tensor ? scale[i] : scale[0]);
      out[i] = FromF32<DstT>(static_cast<float>(in[i]) * s);
    }
  }
}

// One AscendAntiQuant element: for half the hardware chain (int8 -> half, add, multiply, each
// rounded to half); for bfloat16 in float, rounded once.
template <class DstT>
DstT AntiQuantOne(int8_t x, float offset, float scale, bool has_offset) {
  if constexpr (std::is_same_v<DstT, ::tessera::half>) {
    float v = static_cast<float>(x);
    if (has_offset) v = static_cast<float>(::tessera::half(v + offset));
    return ::tessera::half(v * scale);
  } else {
    return FromF32<DstT>((static_cast<float>(x) + (has_offset ? offset : 0.0f)) * scale);
  }
}

// AscendAntiQuant over src of k rows (isTranspose false: [k, n], the scale [groups, n], row r
// uses scale row r / (k / groups)) or k columns (isTranspose true: [n, k], the scale [n, groups],
// column c uses scale column c / (k / groups)). offset / scale are tensors (scalar == nullptr) or
// scalars.
template <class SrcT, class DstT>
void AntiQuantRows(const LocalTensor<DstT>& dst, const LocalTensor<SrcT>& src,
                   const LocalTensor<DstT>* offset, const LocalTensor<DstT>* scale,
                   const DstT* scalar_offset, const DstT* scalar_scale, uint32_t k, bool transpose,
                   const AscendC::AntiQuantShapeInfo& info) {
  static_assert(std::is_same_v<SrcT, int8_t>, "AscendAntiQuant: the input type must be int8_t");
  static_assert(std::is_same_v<DstT, ::tessera::half> || std::is_same_v<DstT, ::tessera::bfloat16>,
                "AscendAntiQuant: the output type must be half or bfloat16");
  const char* api = "AscendAntiQuant";
  const uint32_t total = src.GetSize();
  Require(k > 0 && total % k == 0, api,
          "k " + std::to_string(k) + " must divide the source's " + std::to_string(total) +
              " elements");
  const uint32_t n = total / k;
  uint32_t groups = 1;
  if (scale != nullptr) {
    const ::tessera::kernel::ShapeInfo shape = scale->GetShapeInfo();
    const uint32_t given = transpose ? info.scaleWidth : info.scaleHeight;
    if (given != 0) {
      groups = given;
    } else if (shape.shapeDim >= 2) {
      groups = transpose ? shape.shape[1] : shape.shape[0];
    }
    Require(groups > 0 && k % groups == 0, api,
            "the scale's " + std::to_string(groups) + " groups must divide k " + std::to_string(k));
    CheckRead(*scale, uint64_t{groups} * n, api, "scale");
    if (offset != nullptr) CheckRead(*offset, uint64_t{groups} * n, api, "offset");
  }
  CheckRead(src, total, api, "src");
  CheckWrite(dst, total, api);
  const uint32_t group_size = k / groups;
  const bool has_offset = offset != nullptr || scalar_offset != nullptr;
  for (uint32_t i = 0; i < total; ++i) {
    float o = 0.0f;
    float s;
    if (scale != nullptr) {
      // The parameter index: [group][column] untransposed, [row][group] transposed.
      const uint32_t row = i / (transpose ? k : n);
      const uint32_t col = i % (transpose ? k : n);
      const uint64_t at = transpose ? uint64_t{row} * groups + col / group_size
                                    : uint64_t{row / group_size} * n + col;
      s = ToF32(scale->data()[at]);
      if (offset != nullptr) o = ToF32(offset->data()[at]);
    } else {
      s = ToF32(*scalar_scale);
      if (scalar_offset != nullptr) o = ToF32(*scalar_offset);
    }
    dst.data()[i] = AntiQuantOne<DstT>(static_cast<int8_t>(src.data()[i]), o, s, has_offset);
  }
}

}  // namespace tessera::compat::adv

namespace AscendC {

// The functions are declared in AscendC::adv_api, which AscendC imports: a qualified
// AscendC::Name then finds these and the kernel layer's same-named instructions together.
namespace adv_api {

// Per-tensor quantisation of calCount elements: dst[i] = sat_int8(rint(half(src[i] * scale +
// offset))). T: float, half, bfloat16.
template <typename T, bool isReuseSource = false,
          const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const float scale,
                 const float offset, const uint32_t calCount) {
  using namespace ::tessera::compat::adv;
  CheckQuantType<T>();
  CheckRead(srcTensor, calCount, "AscendQuant", "src");
  CheckWrite(dstTensor, calCount, "AscendQuant");
  for (uint32_t i = 0; i < calCount; ++i)
    dstTensor.data()[i] = QuantizeToInt8(ToF32(srcTensor.data()[i]) * scale + offset);
}
template <typename T, bool isReuseSource = false,
          const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const float scale, const float offset, const uint32_t calCount) {
  AscendQuant<T, isReuseSource, config>(dstTensor, srcTensor, LocalTensor<uint8_t>(), scale, offset,
                                        calCount);
}
template <typename T, bool isReuseSource = false,
          const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const float scale, const float offset) {
  AscendQuant<T, isReuseSource, config>(dstTensor, srcTensor, scale, offset, srcTensor.GetSize());
}

// Per-channel quantisation: calCount elements in rows of scaleCount, element i scaled by
// scaleTensor[i % scaleCount] with one offset: dst = sat_int8(rint(half(src * scale + offset))).
template <typename T, bool isReuseSource = false,
          const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const LocalTensor<T>& scaleTensor,
                 const T offset, const uint32_t scaleCount, const uint32_t calCount) {
  using namespace ::tessera::compat::adv;
  CheckQuantType<T>();
  const char* api = "AscendQuant";
  Require(scaleCount > 0 && calCount % scaleCount == 0, api,
          "calCount " + std::to_string(calCount) + " must be a multiple of scaleCount " +
              std::to_string(scaleCount));
  CheckRead(srcTensor, calCount, api, "src");
  CheckRead(scaleTensor, scaleCount, api, "scaleTensor");
  CheckWrite(dstTensor, calCount, api);
  const float off = ToF32(offset);
  for (uint32_t i = 0; i < calCount; ++i)
    dstTensor.data()[i] = QuantizeToInt8(
        ToF32(srcTensor.data()[i]) * ToF32(scaleTensor.data()[i % scaleCount]) + off);
}
template <typename T, bool isReuseSource = false,
          const AscendQuantConfig& config = ASCEND_QUANT_DEFAULT_CFG>
void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<T>& scaleTensor, const T offset, const uint32_t scaleCount,
                 const uint32_t calCount) {
  AscendQuant<T, isReuseSource, config>(dstTensor, srcTensor, LocalTensor<uint8_t>(), scaleTensor,
                                        offset, scaleCount, calCount);
}

// AscendDequant, per-channel: for each of params.m rows of params.n int32 elements,
// dst[r][i] = src[r][i] * deqScale[i] for i < params.calCount (the rest of the row is untouched).
// dstT: float, half, bfloat16; scaleT: float, half or bfloat16.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale,
                   const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, DequantParams params) {
  ::tessera::compat::adv::CheckRead(deqScale, params.calCount, "AscendDequant", "deqScale");
  ::tessera::compat::adv::DequantRows("AscendDequant", dstTensor, srcTensor, deqScale.data(), true,
                                      deqScale.GetSize(), params);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale, DequantParams params) {
  AscendDequant<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, LocalTensor<uint8_t>(), params);
}
// One row of calCount elements.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const LocalTensor<scaleT>& deqScale, const uint32_t calCount) {
  AscendDequant<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, LocalTensor<uint8_t>(),
                                    DequantParams{1, calCount, calCount});
}
// A single scale for every element.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const scaleT deqScale, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
                   DequantParams params) {
  ::tessera::compat::adv::DequantRows("AscendDequant", dstTensor, srcTensor, &deqScale, false, 1,
                                      params);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                   const scaleT deqScale, DequantParams params) {
  AscendDequant<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, LocalTensor<uint8_t>(), params);
}

// AscendAntiQuant: dst = (src + offset) * scale, int8 -> half / bfloat16. src is [k, n]
// (isTranspose false; offset / scale [groups, n]) or [n, k] (isTranspose true; offset / scale
// [n, groups]); groups come from shapeInfo or the scale's ShapeInfo, else 1 (per channel).
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const LocalTensor<OutputDataType>& offset,
                     const LocalTensor<OutputDataType>& scale,
                     const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}) {
  ::tessera::compat::adv::AntiQuantRows<InputDataType, OutputDataType>(
      dst, src, &offset, &scale, nullptr, nullptr, k, isTranspose, shapeInfo);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const LocalTensor<OutputDataType>& scale,
                     const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}) {
  ::tessera::compat::adv::AntiQuantRows<InputDataType, OutputDataType>(
      dst, src, nullptr, &scale, nullptr, nullptr, k, isTranspose, shapeInfo);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const LocalTensor<OutputDataType>& offset,
                     const LocalTensor<OutputDataType>& scale, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}) {
  ::tessera::compat::adv::AntiQuantRows<InputDataType, OutputDataType>(
      dst, src, &offset, &scale, nullptr, nullptr, k, isTranspose, shapeInfo);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const LocalTensor<OutputDataType>& scale, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}) {
  ::tessera::compat::adv::AntiQuantRows<InputDataType, OutputDataType>(
      dst, src, nullptr, &scale, nullptr, nullptr, k, isTranspose, shapeInfo);
}
// Scalar offset and scale for every element.
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const OutputDataType offset, const OutputDataType scale,
                     const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}) {
  ::tessera::compat::adv::AntiQuantRows<InputDataType, OutputDataType>(
      dst, src, nullptr, nullptr, &offset, &scale, k, isTranspose, shapeInfo);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const OutputDataType scale, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
                     const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {}) {
  ::tessera::compat::adv::AntiQuantRows<InputDataType, OutputDataType>(
      dst, src, nullptr, nullptr, nullptr, &scale, k, isTranspose, shapeInfo);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const OutputDataType offset, const OutputDataType scale, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}) {
  ::tessera::compat::adv::AntiQuantRows<InputDataType, OutputDataType>(
      dst, src, nullptr, nullptr, &offset, &scale, k, isTranspose, shapeInfo);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                     const OutputDataType scale, const uint32_t k,
                     const AntiQuantShapeInfo& shapeInfo = {}) {
  ::tessera::compat::adv::AntiQuantRows<InputDataType, OutputDataType>(
      dst, src, nullptr, nullptr, nullptr, &scale, k, isTranspose, shapeInfo);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC
