// The unary elementwise ops as elewise Computes: y = f(x), or f(x, value) for Adds and Muls with
// the float attribute "value", x and y of one dtype T (half and bfloat16 computed in fp32 and
// rounded once on store).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../common/elementwise_compute.h"

namespace tessera::ops {

template <class T, class Fn>
struct UnaryCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    using namespace elewise;
    auto x = PlaceHolder<1, Tensor<T>>();
    auto y = PlaceHolder<2, Tensor<T>, ParamUsage::OUT>();
    return (y = Fn::template Apply<T>(x));
  }
};

// The attribute "value" in T's lanes. As Ascend C's Adds/Muls, the scalar has the tensor's type:
// rounded to half / bfloat16 first, or (int32) an integer, which the tiling function checks.
template <class T>
constexpr auto ValueAttr() {
  using namespace elewise;
  if constexpr (std::is_same_v<T, int32_t>) {
    return Cast<int32_t, RoundMode::CAST_TRUNC>(Attr<"value">());
  } else if constexpr (std::is_same_v<T, float>) {
    return Attr<"value">();
  } else {
    return Cast<T>(Attr<"value">());
  }
}

// Each op: Apply<T>(x), whether it takes int32, whether it reads attribute "value".
#define TESSERA_UNARY_FN(Name, int32, has_value, ...) \
  struct Name##Fn {                                   \
    static constexpr bool kInt32 = int32;             \
    static constexpr bool kHasValue = has_value;      \
    template <class T>                                \
    static constexpr auto Apply(const auto& x) {      \
      using namespace elewise;                        \
      return __VA_ARGS__;                             \
    }                                                 \
  };
TESSERA_UNARY_FN(Abs, true, false, Abs(x))
TESSERA_UNARY_FN(Exp, false, false, Exp(x))
TESSERA_UNARY_FN(Log, false, false, Log(x))
TESSERA_UNARY_FN(Sqrt, false, false, Sqrt(x))
TESSERA_UNARY_FN(Rsqrt, false, false, Rsqrt(x))
TESSERA_UNARY_FN(Relu, true, false, Relu(x))
TESSERA_UNARY_FN(Sigmoid, false, false, Sigmoid(x))
TESSERA_UNARY_FN(Adds, true, true, x + ValueAttr<T>())
TESSERA_UNARY_FN(Muls, true, true, x* ValueAttr<T>())
#undef TESSERA_UNARY_FN

template <class Fn, class T>
inline constexpr bool kUnaryHas = Fn::kInt32 || !std::is_same_v<T, int32_t>;

}  // namespace tessera::ops
