// Axpy: y = alpha * x1 + x2, with alpha an optional float attribute (default 1), for float32 and
// bfloat16 tensors. Shared by the package's op library and its kernel library.
#pragma once

#include "tessera/core/float16.h"
#include "tessera/elewise/op.h"

namespace first_package {

namespace ew = tessera::elewise;

template <class T>
struct AxpyCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x1 = ew::PlaceHolder<1, Tensor<T>>();
    auto x2 = ew::PlaceHolder<2, Tensor<T>>();
    auto y = ew::PlaceHolder<3, Tensor<T>, ew::ParamUsage::OUT>();
    return (y = ew::Attr<"alpha">(1.0f) * x1 + x2);
  }
};

TESSERA_ELEWISE_OP(Axpy, AxpyCompute, float, tessera::bfloat16);

}  // namespace first_package
