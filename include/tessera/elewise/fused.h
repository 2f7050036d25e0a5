// Row operators built with the elewise templates. Each is a Compute struct (usable in larger
// fused programs) plus a ready DeviceAdapter and an argument helper. Inputs of type T (float,
// half, bfloat16) are computed in fp32 and rounded to nearest even on store; rows may be of any
// width (rows wider than the UB are swept once per pass; spilled temporaries use the workspace).
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/core/shape.h"
#include "tessera/elewise/elewise.h"

namespace tessera::elewise::fused {

inline constexpr auto AR = ReducePattern::AR;

// out = x * rsqrt(mean(x^2) + epsilon) * gamma.   x, out: [..., N]; gamma: [N].
template <class T>
struct RmsNormCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tensor<T>>();
    auto gamma = PlaceHolder<2, Tensor<T>>();
    auto out = PlaceHolder<3, Tensor<T>, ParamUsage::OUT>();
    auto ms = PlaceHolderTmp<1>();
    return (ms = ReduceMean<AR>(x * x), out = x * Rsqrt(ms + Attr<"epsilon">()) * gamma);
  }
};

// y = x1 + x2 (the residual, rounded to T); out = RmsNorm(x1 + x2) computed from the fp32 sum.
template <class T>
struct AddRmsNormCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x1 = PlaceHolder<1, Tensor<T>>();
    auto x2 = PlaceHolder<2, Tensor<T>>();
    auto gamma = PlaceHolder<3, Tensor<T>>();
    auto y = PlaceHolder<4, Tensor<T>, ParamUsage::OUT>();
    auto out = PlaceHolder<5, Tensor<T>, ParamUsage::OUT>();
    auto h = PlaceHolderTmp<1>();
    auto ms = PlaceHolderTmp<2>();
    return (h = x1 + x2, y = h, ms = ReduceMean<AR>(h * h),
            out = h * Rsqrt(ms + Attr<"epsilon">()) * gamma);
  }
};

// out = (x - mean) * rsqrt(var + epsilon) * gamma + beta, two-pass (centred) variance.
template <class T>
struct LayerNormCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tensor<T>>();
    auto gamma = PlaceHolder<2, Tensor<T>>();
    auto beta = PlaceHolder<3, Tensor<T>>();
    auto out = PlaceHolder<4, Tensor<T>, ParamUsage::OUT>();
    auto mu = PlaceHolderTmp<1>();
    auto var = PlaceHolderTmp<2>();
    return (mu = ReduceMean<AR>(x), var = ReduceMean<AR>((x - mu) * (x - mu)),
            out = (x - mu) * Rsqrt(var + Attr<"epsilon">()) * gamma + beta);
  }
};

// out = exp(x - max) / sum(exp(x - max)) along the last axis; exp is computed once per element
// (kept as a spilled temporary between the sum and the normalisation).
template <class T>
struct SoftmaxCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tensor<T>>();
    auto out = PlaceHolder<2, Tensor<T>, ParamUsage::OUT>();
    auto m = PlaceHolderTmp<1>();
    auto e = PlaceHolderTmp<2>();
    auto s = PlaceHolderTmp<3>();
    return (m = ReduceMax<AR>(x), e = Exp(x - Broadcast<BroadcastPattern::AB>(m)),
            s = ReduceSum<AR>(e), out = e * Reciprocal(Broadcast<BroadcastPattern::AB>(s)));
  }
};

// out = silu(gate) * up. With SwiGluArgs, gate and up are the two halves of one [..., 2H] tensor.
template <class T>
struct SwiGluCompute {
  template <template <class> class Tensor>
  constexpr auto Compute() const {
    auto gate = PlaceHolder<1, Tensor<T>>();
    auto up = PlaceHolder<2, Tensor<T>>();
    auto out = PlaceHolder<3, Tensor<T>, ParamUsage::OUT>();
    return (out = Silu(gate) * up);
  }
};

template <class Compute>
using RowOp = DeviceAdapter<KernelBuilder<BlockBuilder<Compute>>>;

template <class T>
using RmsNorm = RowOp<RmsNormCompute<T>>;
template <class T>
using AddRmsNorm = RowOp<AddRmsNormCompute<T>>;
template <class T>
using LayerNorm = RowOp<LayerNormCompute<T>>;
template <class T>
using Softmax = RowOp<SoftmaxCompute<T>>;
template <class T>
using SwiGlu = RowOp<SwiGluCompute<T>>;

// Arguments of SwiGlu from x [..., 2H] (gate = first half of each row, up = second half) and
// out [..., H]. InvalidArgument when the shapes do not match that pattern.
inline Result<Arguments> SwiGluArgs(const TensorArg& x, const TensorArg& out) {
  if (x.data == nullptr) return InvalidArgument("SwiGlu: x has null data");
  if (x.shape.rank() == 0 || x.shape.dim(x.shape.rank() - 1) % 2 != 0) {
    return InvalidArgument("SwiGlu: x needs an even last dimension, got " + x.shape.ToString());
  }
  const int64_t width = x.shape.dim(x.shape.rank() - 1);
  std::vector<int64_t> dims(x.shape.dims().begin(), x.shape.dims().end());
  dims.back() = width / 2;
  TESSERA_ASSIGN_OR_RETURN(Shape half_shape, Shape::Make(dims));
  if (!(out.shape == half_shape)) {
    return InvalidArgument("SwiGlu: out has shape " + out.shape.ToString() + ", expected " +
                           half_shape.ToString());
  }
  const auto* second = static_cast<char*>(x.data) + (width / 2) * DataTypeSize(x.dtype);
  const TensorArg gate{x.data, x.dtype, half_shape, width};
  const TensorArg up{const_cast<char*>(second), x.dtype, half_shape, width};
  return ArgumentsBuilder{}.inputOutput(gate, up, out).build();
}

}  // namespace tessera::elewise::fused
