// The vendor's quantization APIs on the 2201 path: AscendQuant (float / half -> int8,
// dst = sat(rint(half(src * scale + offset)))) and AscendDequant (int32 -> float / half / bf16,
// dst = src * deqScale, the scale broadcast over rows). The temporary buffer argument is accepted
// for signature compatibility: these need none (the host queries report 0).
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

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC
