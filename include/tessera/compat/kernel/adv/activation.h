// The vendor's advanced activation APIs (adv_api/activation: Sigmoid, Gelu, Silu, Swish, GeGLU,
// SwiGLU) in namespace AscendC, on tessera's one math library (the kernel layer's Sigmoid, Gelu
// and Silu instructions, and the Highway kernels of math_dispatch.h for the fused forms). The
// temporary-buffer and isReuseSource forms are accepted; tessera needs no scratch space. Forms
// without a count process src.GetSize() elements. half and bfloat16_t are computed in fp32 and
// rounded once.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/compat/kernel/adv/math_common.h"
#include "tessera/kernel/vector.h"

namespace AscendC {
// Declared in a nested namespace that AscendC imports, so that a qualified AscendC::Name finds
// these overloads together with the kernel layer's same-named instructions (Exp, Sigmoid, Axpy,
// ...) instead of hiding them.
namespace adv_api {

using ::tessera::kernel::LocalTensor;

// 1 / (1 + e^-x) (tessera's Sigmoid).
// The count is any integer type: an int32_t count resolves to the kernel layer's Sigmoid (the
// same function), any other to this one, so neither call is ambiguous. Likewise Gelu and Silu.
template <typename T, bool isReuseSource = false, typename Count,
          typename = std::enable_if_t<std::is_integral_v<Count>>>
void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Count calCount) {
  ::tessera::kernel::Sigmoid(dst, src, static_cast<int32_t>(calCount));
}
template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
             const uint32_t calCount) {
  ::tessera::kernel::Sigmoid(dst, src, static_cast<int32_t>(calCount));
}
template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&) {
  ::tessera::kernel::Sigmoid(dst, src, static_cast<int32_t>(src.GetSize()));
}
template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src) {
  ::tessera::kernel::Sigmoid(dst, src, static_cast<int32_t>(src.GetSize()));
}

// GELU, tanh form x * sigmoid(1.5957691 (x + 0.044715 x^3)) (tessera's Gelu); highPrecision and
// highPerformance select the same accurate evaluation.
template <typename T, bool highPrecision = false, bool highPerformance = false, typename Count,
          typename = std::enable_if_t<std::is_integral_v<Count>>>
void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Count dataSize) {
  ::tessera::kernel::Gelu(dst, src, static_cast<int32_t>(dataSize));
}
template <typename T, bool highPrecision = false, bool highPerformance = false>
void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
          const uint32_t dataSize) {
  ::tessera::kernel::Gelu(dst, src, static_cast<int32_t>(dataSize));
}

// x * sigmoid(x) (tessera's Silu).
template <typename T, bool isReuseSource = false, typename Count,
          typename = std::enable_if_t<std::is_integral_v<Count>>>
void Silu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Count dataSize) {
  ::tessera::kernel::Silu(dst, src, static_cast<int32_t>(dataSize));
}

// x * sigmoid(beta x).
template <typename T, bool isReuseSource = false>
void Swish(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t dataSize,
           const T scalarValue) {
  ::tessera::compat::adv::RunUnary(::tessera::compat::adv::UnaryFn::kSwish, "Swish", dst, src,
                                   dataSize, static_cast<float>(scalarValue));
}

// GeGLU: src0 * gelu(src1), the tanh form of Gelu.
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           uint32_t calCount) {
  ::tessera::compat::adv::RunBinary(::tessera::compat::adv::BinaryFn::kGeGlu, "GeGLU", dst, src0,
                                    src1, calCount);
}
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           const LocalTensor<uint8_t>&, uint32_t calCount) {
  GeGLU<T, isReuseSource>(dst, src0, src1, calCount);
}
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           const LocalTensor<uint8_t>&) {
  GeGLU<T, isReuseSource>(dst, src0, src1, src0.GetSize());
}
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1) {
  GeGLU<T, isReuseSource>(dst, src0, src1, src0.GetSize());
}

// SwiGLU: src0 * swish(src1, beta) = src0 * src1 * sigmoid(beta src1).
template <typename T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const float& scalarValue, const uint32_t calCount) {
  ::tessera::compat::adv::RunBinary(::tessera::compat::adv::BinaryFn::kSwiGlu, "SwiGLU", dst, src0,
                                    src1, calCount, scalarValue);
}
template <typename T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const float& scalarValue, const LocalTensor<uint8_t>&, const uint32_t calCount) {
  SwiGLU<T, isReuseSource>(dst, src0, src1, scalarValue, calCount);
}
template <typename T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const float& scalarValue, const LocalTensor<uint8_t>&) {
  SwiGLU<T, isReuseSource>(dst, src0, src1, scalarValue, src0.GetSize());
}
template <typename T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const float& scalarValue) {
  SwiGLU<T, isReuseSource>(dst, src0, src1, scalarValue, src0.GetSize());
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC
