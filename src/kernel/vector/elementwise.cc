// Elementwise vector instructions: binary, tensor-scalar and unary ops (arithmetic, math,
// activations). fp32 and int32 run directly; half and bfloat16 run the fp32 kernels through
// Via32, so each math function is instantiated once per target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "elementwise.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "vector-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::kernel::vec {
namespace HWY_NAMESPACE {
namespace {

template <class T>
void BinaryT(BinaryOp op, T* dst, const T* a, const T* b, size_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  switch (op) {
    case BinaryOp::kAdd:
      return Map2(d, dst, a, b, n, [](auto, V x, V y) { return hn::Add(x, y); });
    case BinaryOp::kSub:
      return Map2(d, dst, a, b, n, [](auto, V x, V y) { return hn::Sub(x, y); });
    case BinaryOp::kMul:
      return Map2(d, dst, a, b, n, [](auto, V x, V y) { return hn::Mul(x, y); });
    case BinaryOp::kDiv:
      if constexpr (std::is_same_v<T, float>) {
        return Map2(d, dst, a, b, n, [](auto dd, V x, V y) { return km::Div(dd, x, y); });
      }
      return;  // int32 Div is rejected at compile time in vector.h
    case BinaryOp::kMax:
      return Map2(d, dst, a, b, n, [](auto, V x, V y) { return hn::Max(x, y); });
    case BinaryOp::kMin:
      return Map2(d, dst, a, b, n, [](auto, V x, V y) { return hn::Min(x, y); });
    case BinaryOp::kAddRelu:  // NaN sums stay NaN (the compare is false)
      return Map2(d, dst, a, b, n, [](auto dd, V x, V y) {
        const V sum = hn::Add(x, y);
        return hn::IfThenElse(hn::Lt(sum, hn::Zero(dd)), hn::Zero(dd), sum);
      });
    case BinaryOp::kSubRelu:
      return Map2(d, dst, a, b, n, [](auto dd, V x, V y) {
        const V diff = hn::Sub(x, y);
        return hn::IfThenElse(hn::Lt(diff, hn::Zero(dd)), hn::Zero(dd), diff);
      });
  }
}

void BinaryImpl(BinaryOp op, DType t, void* dst, const void* a, const void* b, size_t n) {
  if (t == DType::kI32) {
    return BinaryT(op, static_cast<int32_t*>(dst), static_cast<const int32_t*>(a),
                   static_cast<const int32_t*>(b), n);
  }
  Via32(t, dst, a, b, n,
        [op](float* o, const float* x, const float* y, size_t m) { BinaryT(op, o, x, y, m); });
}

template <class T>
void ScalarT(ScalarOp op, T* dst, const T* src, T s, size_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const V vs = hn::Set(d, s);
  switch (op) {
    case ScalarOp::kAdds:
      return Map1(d, dst, src, n, [vs](auto, V x) { return hn::Add(x, vs); });
    case ScalarOp::kMuls:
      return Map1(d, dst, src, n, [vs](auto, V x) { return hn::Mul(x, vs); });
    case ScalarOp::kMaxs:
      return Map1(d, dst, src, n, [vs](auto, V x) { return hn::Max(x, vs); });
    case ScalarOp::kMins:
      return Map1(d, dst, src, n, [vs](auto, V x) { return hn::Min(x, vs); });
    case ScalarOp::kLeakyRelu:
      // Negative lanes scaled; NaN and -0 pass through unchanged.
      return Map1(d, dst, src, n, [vs](auto dd, V x) {
        return hn::IfThenElse(hn::Lt(x, hn::Zero(dd)), hn::Mul(x, vs), x);
      });
  }
}

void BinaryScalarImpl(ScalarOp op, DType t, void* dst, const void* src, Scalar s, size_t n) {
  if (t == DType::kI32) {
    return ScalarT(op, static_cast<int32_t*>(dst), static_cast<const int32_t*>(src), s.i, n);
  }
  Via32(t, dst, src, nullptr, n,
        [op, s](float* o, const float* x, const float*, size_t m) { ScalarT(op, o, x, s.f, m); });
}

template <class T>
void AxpyT(T* dst, const T* src, T s, size_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const V vs = hn::Set(d, s);
  // MulAdd: one rounding on FMA targets (AVX2, AVX-512), product and sum rounded apart on the
  // others; said explicitly so the compiler's contraction choice cannot vary it.
  if constexpr (std::is_same_v<T, float>) {
    Map2(d, dst, dst, src, n, [vs](auto, V acc, V x) { return hn::MulAdd(x, vs, acc); });
  } else {  // int32 wraps; Highway's MulAdd is for floating lanes
    Map2(d, dst, dst, src, n, [vs](auto, V acc, V x) { return hn::Add(acc, hn::Mul(x, vs)); });
  }
}

void AxpyImpl(DType t, void* dst, const void* src, Scalar s, size_t n) {
  if (t == DType::kI32) {
    return AxpyT(static_cast<int32_t*>(dst), static_cast<const int32_t*>(src), s.i, n);
  }
  // Via32 hands dst (widened, for 16-bit types) as both the output and the first operand.
  Via32(t, dst, dst, src, n,
        [s](float* o, const float*, const float* x, size_t m) { AxpyT(o, x, s.f, m); });
}

void UnaryF32(UnaryOp op, float* dst, const float* src, size_t n) {
  const DF d;
  switch (op) {
    case UnaryOp::kAbs:
      return Map1(d, dst, src, n, [](DF, VF x) { return hn::Abs(x); });
    case UnaryOp::kExp:
      return Map1(d, dst, src, n, [](DF dd, VF x) { return km::Exp(dd, x); });
    case UnaryOp::kLn:
      return Map1(d, dst, src, n, [](DF dd, VF x) { return km::Ln(dd, x); });
    case UnaryOp::kSqrt:
      return Map1(d, dst, src, n, [](DF, VF x) { return hn::Sqrt(x); });
    case UnaryOp::kRsqrt:
      return Map1(d, dst, src, n, [](DF dd, VF x) { return km::Rsqrt(dd, x); });
    case UnaryOp::kReciprocal:
      return Map1(d, dst, src, n, [](DF dd, VF x) { return km::Reciprocal(dd, x); });
    case UnaryOp::kRelu:
      return Map1(d, dst, src, n, [](DF dd, VF x) {
        return hn::IfThenElse(hn::Lt(x, hn::Zero(dd)), hn::Zero(dd), x);
      });
    case UnaryOp::kSigmoid:
      return Map1(d, dst, src, n, [](DF dd, VF x) { return km::Sigmoid(dd, x); });
    case UnaryOp::kTanh:
      return Map1(d, dst, src, n, [](DF dd, VF x) { return km::Tanh(dd, x); });
    case UnaryOp::kGelu:
      return Map1(d, dst, src, n, [](DF dd, VF x) { return km::GeluTanh(dd, x); });
    case UnaryOp::kGeluErf:
      return Map1(d, dst, src, n, [](DF dd, VF x) { return km::GeluErf(dd, x); });
    case UnaryOp::kSilu:
      return Map1(d, dst, src, n, [](DF dd, VF x) { return km::Silu(dd, x); });
  }
}

void UnaryI32(UnaryOp op, int32_t* dst, const int32_t* src, size_t n) {
  const DI d;
  if (op == UnaryOp::kAbs) return Map1(d, dst, src, n, [](DI, VI x) { return hn::Abs(x); });
  Map1(d, dst, src, n, [](DI dd, VI x) { return hn::Max(x, hn::Zero(dd)); });  // kRelu
}

void UnaryImpl(UnaryOp op, DType t, void* dst, const void* src, size_t n) {
  if (t == DType::kI32) {
    return UnaryI32(op, static_cast<int32_t*>(dst), static_cast<const int32_t*>(src), n);
  }
  Via32(t, dst, src, nullptr, n,
        [op](float* o, const float* x, const float*, size_t m) { UnaryF32(op, o, x, m); });
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tessera::kernel::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::kernel::vec {

HWY_EXPORT(BinaryImpl);
HWY_EXPORT(BinaryScalarImpl);
HWY_EXPORT(UnaryImpl);
HWY_EXPORT(AxpyImpl);

void Binary(BinaryOp op, DType t, void* dst, const void* a, const void* b, size_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryImpl)(op, t, dst, a, b, n);
}
void BinaryScalar(ScalarOp op, DType t, void* dst, const void* src, Scalar s, size_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryScalarImpl)(op, t, dst, src, s, n);
}
void Unary(UnaryOp op, DType t, void* dst, const void* src, size_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryImpl)(op, t, dst, src, n);
}
void Axpy(DType t, void* dst, const void* src, Scalar s, size_t n) {
  HWY_DYNAMIC_DISPATCH(AxpyImpl)(t, dst, src, s, n);
}

}  // namespace tessera::kernel::vec
#endif  // HWY_ONCE
