// The vendor's filters: Select with a byte mask (SelectWithBytesMask) and DropOut: dst = mask ? src
// * (1 / keepProb) : 0 over firstAxis rows, with the mask given as bytes (one 0/1 byte per element,
// rows of maskLastAxis >= srcLastAxis bytes) or as bits (bit j % 8 of byte j / 8, least significant
// first, rows of maskLastAxis bytes). No temporaries are needed (GetDropOutMaxMinTmpSize reports
// 0); the buffer argument is accepted for signature compatibility.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/compat/kernel/adv/detail/adv_common.h"

namespace AscendC {

// Rows (firstAxis) and row lengths in elements of src (srcLastAxis) and of the mask in bytes
// (maskLastAxis, including any padding).
struct DropOutShapeInfo {
  DropOutShapeInfo() {}
  uint32_t firstAxis = 0;
  uint32_t srcLastAxis = 0;
  uint32_t maskLastAxis = 0;
};

// SelectWithBytesMask shape: firstAxis rows of srcLastAxis elements; mask rows hold
// maskLastAxis >= srcLastAxis elements (the extra ones are ignored).
struct SelectWithBytesMaskShapeInfo {
  SelectWithBytesMaskShapeInfo() {}
  uint32_t firstAxis = 0;
  uint32_t srcLastAxis = 0;
  uint32_t maskLastAxis = 0;
};

// The functions are declared in AscendC::adv_api, which AscendC imports: a qualified
// AscendC::Name then finds these and the kernel layer's same-named instructions together.
namespace adv_api {

// dropOutMode: 0 infers the mask layout (bytes when maskLastAxis >= srcLastAxis, else bits),
// 1 / 2 force bytes, 3 / 4 force bits. T: float or half.
template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<uint8_t>& maskLocal, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
             const float keepProb, const DropOutShapeInfo& info) {
  using namespace ::tessera::compat::adv;
  static_assert(dropOutMode <= 4, "DropOut: dropOutMode must be 0..4");
  const char* api = "DropOut";
  const bool bytes = dropOutMode == 0 ? info.maskLastAxis >= info.srcLastAxis : dropOutMode <= 2;
  Require(keepProb > 0.0f && keepProb <= 1.0f, api,
          "keepProb " + std::to_string(keepProb) + " is outside (0, 1]");
  Require(bytes ? info.maskLastAxis >= info.srcLastAxis
                : uint64_t{info.maskLastAxis} * 8 >= info.srcLastAxis,
          api,
          "maskLastAxis " + std::to_string(info.maskLastAxis) + " is too short for srcLastAxis " +
              std::to_string(info.srcLastAxis) + (bytes ? " (byte mask)" : " (bit mask)"));
  const uint64_t total = uint64_t{info.firstAxis} * info.srcLastAxis;
  CheckRead(srcLocal, total, api, "src");
  CheckSpace(maskLocal, uint64_t{info.firstAxis} * info.maskLastAxis, api, "mask");
  CheckWrite(dstLocal, total, api);
  const float scale = 1.0f / keepProb;
  for (uint32_t r = 0; r < info.firstAxis; ++r) {
    const uint8_t* mask = maskLocal.data() + uint64_t{r} * info.maskLastAxis;
    const T* src = srcLocal.data() + uint64_t{r} * info.srcLastAxis;
    T* dst = dstLocal.data() + uint64_t{r} * info.srcLastAxis;
    for (uint32_t j = 0; j < info.srcLastAxis; ++j) {
      const bool keep = bytes ? mask[j] != 0 : ((mask[j / 8] >> (j % 8)) & 1u) != 0;
      dst[j] = keep ? FromF32<T>(ToF32(src[j]) * scale) : FromF32<T>(0.0f);
    }
  }
}
template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
             const LocalTensor<uint8_t>& maskLocal, const float keepProb,
             const DropOutShapeInfo& info) {
  DropOut<T, isInitBitMode, dropOutMode>(dstLocal, srcLocal, maskLocal, LocalTensor<uint8_t>(),
                                         keepProb, info);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC

namespace tessera::compat::adv {

// dst = mask != 0 ? second(i) : first(i), row by row.
template <class T, class U, class First, class Second>
void SelectBytes(const LocalTensor<T>& dst, const LocalTensor<U>& mask,
                 const AscendC::SelectWithBytesMaskShapeInfo& info, First first, Second second) {
  const char* api = "Select";
  static_assert(sizeof(U) <= 4 && std::is_integral_v<U>,
                "Select: the mask must be bool or an integer of 8 to 32 bits");
  Require(info.maskLastAxis >= info.srcLastAxis, api,
          "maskLastAxis " + std::to_string(info.maskLastAxis) + " is shorter than srcLastAxis " +
              std::to_string(info.srcLastAxis));
  CheckSpace(mask, uint64_t{info.firstAxis} * info.maskLastAxis, api, "mask");
  CheckWrite(dst, uint64_t{info.firstAxis} * info.srcLastAxis, api);
  for (uint32_t r = 0; r < info.firstAxis; ++r) {
    const U* m = mask.data() + uint64_t{r} * info.maskLastAxis;
    const uint64_t base = uint64_t{r} * info.srcLastAxis;
    for (uint32_t j = 0; j < info.srcLastAxis; ++j)
      dst.data()[base + j] = m[j] != U{0} ? second(base + j) : first(base + j);
  }
}

}  // namespace tessera::compat::adv

namespace AscendC {

namespace adv_api {

// Select with a byte (or wider) mask: dst = mask ? src1 : src0, src1 a scalar. T: float, half.
template <typename T, typename U, bool isReuseMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1,
            const LocalTensor<U>& mask, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
            const SelectWithBytesMaskShapeInfo& info) {
  ::tessera::compat::adv::CheckRead(src0, uint64_t{info.firstAxis} * info.srcLastAxis, "Select",
                                    "src0");
  const T* a = src0.data();
  ::tessera::compat::adv::SelectBytes(
      dst, mask, info, [a](uint64_t i) { return a[i]; }, [src1](uint64_t) { return src1; });
}
// The same with the scalar first: dst = mask ? src1 : src0, src0 a scalar.
template <typename T, typename U, bool isReuseMask = true>
void Select(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1,
            const LocalTensor<U>& mask, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
            const SelectWithBytesMaskShapeInfo& info) {
  ::tessera::compat::adv::CheckRead(src1, uint64_t{info.firstAxis} * info.srcLastAxis, "Select",
                                    "src1");
  const T* b = src1.data();
  ::tessera::compat::adv::SelectBytes(
      dst, mask, info, [src0](uint64_t) { return src0; }, [b](uint64_t i) { return b[i]; });
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC
