// The vendor's index API: Arange (ArithProgression), dst[i] = firstValue + i * diffValue.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/compat/kernel/adv/detail/adv_common.h"

namespace AscendC {

// The functions are declared in AscendC::adv_api, which AscendC imports: a qualified
// AscendC::Name then finds these and the kernel layer's same-named instructions together.
namespace adv_api {

// Writes count elements of the arithmetic progression firstValue, firstValue + diffValue, ...
// Each element is computed directly (not by repeated addition), in double for float and the
// 16-bit types (rounded once), exactly for the integer types. T: float, half, bfloat16, int16_t,
// int32_t, int64_t. count >= 0.
template <typename T>
void Arange(const LocalTensor<T>& dst, const T firstValue, const T diffValue, const int32_t count) {
  using namespace ::tessera::compat::adv;
  Require(count >= 0, "Arange", "count " + std::to_string(count) + " is negative");
  CheckWrite(dst, static_cast<uint64_t>(count), "Arange");
  T* out = dst.data();
  if constexpr (std::is_integral_v<T>) {
    for (int32_t i = 0; i < count; ++i)
      out[i] = static_cast<T>(firstValue + static_cast<T>(i) * diffValue);
  } else {
    const double first = static_cast<double>(static_cast<float>(firstValue));
    const double diff = static_cast<double>(static_cast<float>(diffValue));
    for (int32_t i = 0; i < count; ++i)
      out[i] = static_cast<T>(static_cast<float>(first + diff * static_cast<double>(i)));
  }
}

// The vendor's older name for Arange.
template <typename T>
void ArithProgression(const LocalTensor<T>& dst, const T firstValue, const T diffValue,
                      const int32_t count) {
  Arange(dst, firstValue, diffValue, count);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC
