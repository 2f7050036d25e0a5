// The binary elementwise ops as elewise Computes: y = x1 <op> x2 with numpy broadcasting, inputs
// and output of one dtype T (half and bfloat16 computed in fp32, rounded once on store).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../common/elementwise_compute.h"

namespace tessera::ops {

template <class T, class Fn>
struct BinaryCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    using namespace elewise;
    auto x1 = PlaceHolder<1, Tensor<T>>();
    auto x2 = PlaceHolder<2, Tensor<T>>();
    auto y = PlaceHolder<3, Tensor<T>, ParamUsage::OUT>();
    return (y = Fn::Apply(x1, x2));
  }
};

// Each op: Apply(a, b) and whether it takes int32 (Div needs fp32 lanes).
struct AddFn {
  static constexpr bool kInt32 = true;
  static constexpr auto Apply(const auto& a, const auto& b) { return a + b; }
};
struct SubFn {
  static constexpr bool kInt32 = true;
  static constexpr auto Apply(const auto& a, const auto& b) { return a - b; }
};
struct MulFn {
  static constexpr bool kInt32 = true;
  static constexpr auto Apply(const auto& a, const auto& b) { return a * b; }
};
struct DivFn {
  static constexpr bool kInt32 = false;
  static constexpr auto Apply(const auto& a, const auto& b) { return a / b; }
};
struct MaximumFn {
  static constexpr bool kInt32 = true;
  static constexpr auto Apply(const auto& a, const auto& b) { return elewise::Max(a, b); }
};
struct MinimumFn {
  static constexpr bool kInt32 = true;
  static constexpr auto Apply(const auto& a, const auto& b) { return elewise::Min(a, b); }
};

// Whether op Fn has a kernel for element type T.
template <class Fn, class T>
inline constexpr bool kBinaryHas = Fn::kInt32 || !std::is_same_v<T, int32_t>;

}  // namespace tessera::ops
