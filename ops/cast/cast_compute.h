// Cast as elewise Computes: y (dtype D) = x (dtype S) converted, for every pair of float32,
// float16, bfloat16 and int32.
//
// Rounding: to float16/bfloat16 round to nearest even, once; to int32 truncate toward zero (as
// C++, numpy astype and torch do), saturating, NaN -> 0; same type is a copy. Float types travel
// in fp32 lanes (exact for half and bfloat16), so one rounding on store is the only one; int32 ->
// float16 rounds through fp32 exactly (|x| < 2^24 is exact in fp32, larger is infinite in
// float16). int32 -> bfloat16 needs more care, see IntToBf16.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../common/elementwise_compute.h"

namespace tessera::ops {

// The fp32 value whose nearest-even bfloat16 is the nearest-even bfloat16 of int32 `x`.
// Converting x to fp32 first rounds twice for |x| >= 2^24 (a tie can appear that x does not
// have). There x = hi + lo with hi a multiple of 2^16 (exact in fp32) and |lo| < 2^16; every
// bfloat16 rounding boundary there is a multiple of 2^16, so hi nudged 256 towards x (exact in
// fp32, on no boundary) rounds as x does.
constexpr auto IntToBf16(const auto& x) {
  using namespace elewise;
  auto q = Cast<int32_t, RoundMode::CAST_FLOOR>(Cast<float>(x) * (1.0f / 65536));
  auto lo = x - q * 65536;  // int32 arithmetic wraps consistently for q * 65536 = 2^31
  auto hi = Cast<float>(q) * 65536.0f;
  auto nudged = hi + Cast<float>(Max(Min(lo, 1), -1)) * 256.0f;  // sign(lo) * 256
  return Select(Abs(x) < 16777216, Cast<float>(x), nudged);
}

template <class S, class D>
constexpr auto CastValue(const auto& x) {
  using namespace elewise;
  if constexpr (std::is_same_v<S, D>) {
    return x;
  } else if constexpr (std::is_same_v<D, int32_t>) {
    return Select(x == x, Cast<int32_t, RoundMode::CAST_TRUNC>(x), 0);
  } else if constexpr (std::is_same_v<S, int32_t> && std::is_same_v<D, bfloat16>) {
    return IntToBf16(x);
  } else if constexpr (std::is_same_v<S, int32_t>) {
    return Cast<float>(x);
  } else {
    return x;  // fp32 lanes, rounded to D on store
  }
}

template <class S, class D>
struct CastCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    using namespace elewise;
    auto x = PlaceHolder<1, Tensor<S>>();
    auto y = PlaceHolder<2, Tensor<D>, ParamUsage::OUT>();
    return (y = CastValue<S, D>(x));
  }
};

}  // namespace tessera::ops
