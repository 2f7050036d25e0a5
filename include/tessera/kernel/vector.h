// Vector instructions on LocalTensor, with Ascend C names and argument orders.
//
// Every instruction reads and writes exactly the elements its count (or mask + repeat) names:
// nothing past the count is touched. dst may be the same tensor as a source (in place). Floating
// types are float, half and bfloat16; half and bfloat16 are computed in fp32 and rounded once to
// nearest even, bit-exact with tessera/core/float16.h. int32 arithmetic wraps modulo 2^32.
// Accuracy per instruction is documented below and measured in docs/kernel_vector.md.
//
// Checked mode (TESSERA_CHECK=1): each instruction fails the block when a count or extent leaves
// a tensor, a mask is out of range, or a tensor was freed; the stream error names the API and
// the values. In fast mode that costs one predictable branch on dst.checked() per call.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "tessera/core/float16.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/detail/pipe_phase.h"
#include "tessera/kernel/detail/repeat_walk.h"
#include "tessera/kernel/detail/vector_dispatch.h"
#include "tessera/kernel/local_tensor.h"
#include "tessera/kernel/vector_types.h"

namespace tessera::kernel {
namespace vec {

template <class T>
void CheckCount(const LocalTensor<T>& t, int32_t count, const char* api, const char* role,
                bool note_write = true) {
  TESSERA_KERNEL_CHECK(true, count >= 0, api, "count " + std::to_string(count) + " is negative");
  t.CheckRange(static_cast<uint32_t>(count), api, role, note_write);
}

template <class T>
Scalar ToScalar(T s) {
  Scalar out;
  if constexpr (std::is_same_v<T, int32_t>) {
    out.i = s;
  } else {
    out.f = static_cast<float>(s);
  }
  return out;
}

template <class T>
void RunBinary(BinaryOp op, const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a,
               const LocalTensor<T>& b, int32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) {
    CheckCount(dst, count, api, "dst", false);
    CheckCount(a, count, api, "src0");
    CheckCount(b, count, api, "src1");
    detail::ShadowPropagate(dst.data(), a.data(), b.data(), uint64_t(count) * sizeof(T));
  }
  if (count <= 0) return;
  if constexpr (std::is_same_v<T, int16_t>) {
    BinaryI16(op, dst.data(), a.data(), b.data(), count);
  } else {
    Binary(op, DTypeOf<T>(), dst.data(), a.data(), b.data(), count);
  }
}

template <class T>
void RunScalar(ScalarOp op, const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
               T s, int32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) {
    CheckCount(dst, count, api, "dst", false);
    CheckCount(src, count, api, "src");
    detail::ShadowPropagate(dst.data(), src.data(), nullptr, uint64_t(count) * sizeof(T));
  }
  if (count > 0) BinaryScalar(op, DTypeOf<T>(), dst.data(), src.data(), ToScalar(s), count);
}

template <class T>
void RunUnary(UnaryOp op, const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
              int32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) {
    CheckCount(dst, count, api, "dst", false);
    CheckCount(src, count, api, "src");
    detail::ShadowPropagate(dst.data(), src.data(), nullptr, uint64_t(count) * sizeof(T));
  }
  if (count > 0) Unary(op, DTypeOf<T>(), dst.data(), src.data(), count);
}

// Checked mode: the elements one operand of a mask + repeat instruction touches lie inside it.
template <class T>
void CheckRepeatExtent(const LocalTensor<T>& t, uint64_t end, uint64_t repeat, uint64_t blk_stride,
                       uint64_t rep_stride, const char* api, const char* role) {
  TESSERA_KERNEL_CHECK(true, end <= t.GetSize() && t.Live(), api,
                       std::string(role) + ": mask + repeat (repeatTimes " +
                           std::to_string(repeat) + ", repStride " + std::to_string(rep_stride) +
                           ", blkStride " + std::to_string(blk_stride) +
                           ") touches elements up to " + std::to_string(end) +
                           ", beyond the tensor's " + std::to_string(t.GetSize()) + " elements" +
                           (t.Live() ? "" : " (or the tensor was freed: use after FreeTensor)"));
  // The elements between masked lanes count as written too (no propagation through masks).
  if (role[0] == 'd') detail::ShadowWritten(t.data(), end * sizeof(T));
}

// The mask + repeat form: `mask_bits` (a bit per element) or, when null, the first `mask_len`
// elements of each repeat; COUNTER mode and isSetMask = false as in vector_mask.h.
template <class T>
void RunRepeat(BinaryOp op, const char* api, bool is_set_mask, const LocalTensor<T>& dst,
               const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t mask_len,
               const uint64_t* mask_bits, uint8_t repeat, const BinaryRepeatParams& p) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  const detail::RepeatSelection sel = detail::ResolveRepeats(sizeof(T), is_set_mask, mask_len,
                                                             mask_bits, repeat, dst.checked(), api);
  const detail::RepeatStride stride[3] = {{p.dstBlkStride, p.dstRepStride},
                                          {p.src0BlkStride, p.src0RepStride},
                                          {p.src1BlkStride, p.src1RepStride}};
  if (dst.checked() && sel.repeats > 0) {
    CheckRepeatExtent(dst, detail::RepeatExtent(sizeof(T), sel, stride, 0), sel.repeats,
                      p.dstBlkStride, p.dstRepStride, api, "dst");
    CheckRepeatExtent(a, detail::RepeatExtent(sizeof(T), sel, stride, 1), sel.repeats,
                      p.src0BlkStride, p.src0RepStride, api, "src0");
    CheckRepeatExtent(b, detail::RepeatExtent(sizeof(T), sel, stride, 2), sel.repeats,
                      p.src1BlkStride, p.src1RepStride, api, "src1");
  }
  detail::WalkRuns(sizeof(T), sel, stride, [&](const uint64_t* off, uint64_t len) {
    Binary(op, DTypeOf<T>(), dst.data() + off[0], a.data() + off[1], b.data() + off[2], len);
  });
}

// The mask + repeat form of the tensor-scalar and unary instructions (UnaryRepeatParams).
template <class T, class Kernel>
void RunUnaryRepeat(const char* api, bool is_set_mask, const LocalTensor<T>& dst,
                    const LocalTensor<T>& src, uint64_t mask_len, const uint64_t* mask_bits,
                    uint8_t repeat, const UnaryRepeatParams& p, const Kernel& kernel) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  const detail::RepeatSelection sel = detail::ResolveRepeats(sizeof(T), is_set_mask, mask_len,
                                                             mask_bits, repeat, dst.checked(), api);
  const detail::RepeatStride stride[2] = {{p.dstBlkStride, p.dstRepStride},
                                          {p.srcBlkStride, p.srcRepStride}};
  if (dst.checked() && sel.repeats > 0) {
    CheckRepeatExtent(dst, detail::RepeatExtent(sizeof(T), sel, stride, 0), sel.repeats,
                      p.dstBlkStride, p.dstRepStride, api, "dst");
    CheckRepeatExtent(src, detail::RepeatExtent(sizeof(T), sel, stride, 1), sel.repeats,
                      p.srcBlkStride, p.srcRepStride, api, "src");
  }
  detail::WalkRuns(sizeof(T), sel, stride, [&](const uint64_t* off, uint64_t len) {
    kernel(dst.data() + off[0], src.data() + off[1], len);
  });
}

}  // namespace vec

// ---------------------------------------------------------------------------------------------
// Binary, count form: dst[i] = src0[i] op src1[i] for i < count.
// float/half/bfloat16: correctly rounded (IEEE fp32 op; 16-bit types then rounded once).
// int32 / int16 (Add, Sub, Mul, Max, Min): wrap modulo 2^32 / 2^16. Max/Min with a NaN operand
// return the second operand (x86 rule).

#define TESSERA_VEC_ANY_TYPE(api)                       \
  static_assert(vec::kIsVectorType<T>, api              \
                ": supported element types are float, " \
                "half, bfloat16 and int32_t")
#define TESSERA_VEC_ARITH_TYPE(api)                                  \
  static_assert(vec::kIsVectorType<T> || std::is_same_v<T, int16_t>, \
                api ": supported element types are float, half, bfloat16, int32_t and int16_t")
#define TESSERA_VEC_FLOAT_TYPE(api)                              \
  static_assert(vec::kIsFloatType<T>, api                        \
                ": supported element types are float, half and " \
                "bfloat16")

template <class T>
void Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         int32_t count) {
  TESSERA_VEC_ARITH_TYPE("Add");
  vec::RunBinary(vec::BinaryOp::kAdd, "Add", dst, src0, src1, count);
}
template <class T>
void Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         int32_t count) {
  TESSERA_VEC_ARITH_TYPE("Sub");
  vec::RunBinary(vec::BinaryOp::kSub, "Sub", dst, src0, src1, count);
}
template <class T>
void Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         int32_t count) {
  TESSERA_VEC_ARITH_TYPE("Mul");
  vec::RunBinary(vec::BinaryOp::kMul, "Mul", dst, src0, src1, count);
}
template <class T>
void Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Div");
  vec::RunBinary(vec::BinaryOp::kDiv, "Div", dst, src0, src1, count);
}
template <class T>
void Max(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         int32_t count) {
  TESSERA_VEC_ARITH_TYPE("Max");
  vec::RunBinary(vec::BinaryOp::kMax, "Max", dst, src0, src1, count);
}
template <class T>
void Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         int32_t count) {
  TESSERA_VEC_ARITH_TYPE("Min");
  vec::RunBinary(vec::BinaryOp::kMin, "Min", dst, src0, src1, count);
}

// ---------------------------------------------------------------------------------------------
// Fused: dst[i] = max(src0[i] + src1[i], 0) / max(src0[i] - src1[i], 0), the sum rounded once
// then clamped (NaN stays NaN). float, half, bfloat16.
template <class T>
void AddRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("AddRelu");
  vec::RunBinary(vec::BinaryOp::kAddRelu, "AddRelu", dst, src0, src1, count);
}
template <class T>
void SubRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("SubRelu");
  vec::RunBinary(vec::BinaryOp::kSubRelu, "SubRelu", dst, src0, src1, count);
}

// ---------------------------------------------------------------------------------------------
// Binary, mask + repeat form. Per repeat r, block k (0..7) of 32 bytes, element j of the block:
//   dst[(r * dstRepStride + k * dstBlkStride) * E + j] = src0[...] op src1[...]   (E = 32/sizeof T)
// for the elements the mask selects: `mask` = the first `mask` elements of each repeat
// (1..256/sizeof(T)), or `mask[2]` = a bit per element (bit e of mask[e / 64]; mask[1] must be 0
// for 32-bit types). Unselected elements of dst keep their values. isSetMask = false takes the
// mask register instead of `mask` (pass MASK_PLACEHOLDER); in COUNTER mode `mask` (or the
// register) is the element count of the whole instruction and repeatTimes is ignored
// (vector_mask.h).

#define TESSERA_VEC_REPEAT_OP(Name, Op, Check)                                                     \
  template <class T, bool isSetMask = true>                                                        \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,     \
            uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {          \
    Check(#Name);                                                                                  \
    vec::RunRepeat(vec::BinaryOp::Op, #Name, isSetMask, dst, src0, src1, mask, nullptr,            \
                   repeatTimes, repeatParams);                                                     \
  }                                                                                                \
  template <class T, bool isSetMask = true>                                                        \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,     \
            const uint64_t mask[2], uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) { \
    Check(#Name);                                                                                  \
    vec::RunRepeat(vec::BinaryOp::Op, #Name, isSetMask, dst, src0, src1, 0, mask, repeatTimes,     \
                   repeatParams);                                                                  \
  }

TESSERA_VEC_REPEAT_OP(Add, kAdd, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_REPEAT_OP(Sub, kSub, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_REPEAT_OP(Mul, kMul, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_REPEAT_OP(Div, kDiv, TESSERA_VEC_FLOAT_TYPE)
TESSERA_VEC_REPEAT_OP(Max, kMax, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_REPEAT_OP(Min, kMin, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_REPEAT_OP(AddRelu, kAddRelu, TESSERA_VEC_FLOAT_TYPE)
TESSERA_VEC_REPEAT_OP(SubRelu, kSubRelu, TESSERA_VEC_FLOAT_TYPE)
#undef TESSERA_VEC_REPEAT_OP

// ---------------------------------------------------------------------------------------------
// Tensor-scalar: dst[i] = src[i] op scalar. Same accuracy as the binary ops.

template <class T>
void Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, int32_t count) {
  TESSERA_VEC_ANY_TYPE("Adds");
  vec::RunScalar(vec::ScalarOp::kAdds, "Adds", dst, src, scalar, count);
}
template <class T>
void Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, int32_t count) {
  TESSERA_VEC_ANY_TYPE("Muls");
  vec::RunScalar(vec::ScalarOp::kMuls, "Muls", dst, src, scalar, count);
}
template <class T>
void Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, int32_t count) {
  TESSERA_VEC_ANY_TYPE("Maxs");
  vec::RunScalar(vec::ScalarOp::kMaxs, "Maxs", dst, src, scalar, count);
}
template <class T>
void Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, int32_t count) {
  TESSERA_VEC_ANY_TYPE("Mins");
  vec::RunScalar(vec::ScalarOp::kMins, "Mins", dst, src, scalar, count);
}
// dst = src < 0 ? src * alpha : src (NaN and -0 pass through). Correctly rounded.
template <class T>
void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, T alpha, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("LeakyRelu");
  vec::RunScalar(vec::ScalarOp::kLeakyRelu, "LeakyRelu", dst, src, alpha, count);
}
// Mask + repeat forms of the tensor-scalar instructions: the addressing of the binary forms with
// UnaryRepeatParams{dstBlkStride, srcBlkStride, dstRepStride, srcRepStride}.
#define TESSERA_VEC_SCALAR_REPEAT(Name, Op, Check)                                               \
  template <class T, bool isSetMask = true>                                                      \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalarValue, uint64_t mask,  \
            uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {                         \
    Check(#Name);                                                                                \
    vec::RunUnaryRepeat(#Name, isSetMask, dst, src, mask, nullptr, repeatTime, repeatParams,     \
                        [&](T* d, const T* x, uint64_t n) {                                      \
                          vec::BinaryScalar(vec::ScalarOp::Op, vec::DTypeOf<T>(), d, x,          \
                                            vec::ToScalar(scalarValue), n);                      \
                        });                                                                      \
  }                                                                                              \
  template <class T, bool isSetMask = true>                                                      \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalarValue,                 \
            const uint64_t mask[2], uint8_t repeatTime, const UnaryRepeatParams& repeatParams) { \
    Check(#Name);                                                                                \
    vec::RunUnaryRepeat(#Name, isSetMask, dst, src, 0, mask, repeatTime, repeatParams,           \
                        [&](T* d, const T* x, uint64_t n) {                                      \
                          vec::BinaryScalar(vec::ScalarOp::Op, vec::DTypeOf<T>(), d, x,          \
                                            vec::ToScalar(scalarValue), n);                      \
                        });                                                                      \
  }
TESSERA_VEC_SCALAR_REPEAT(Adds, kAdds, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_SCALAR_REPEAT(Muls, kMuls, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_SCALAR_REPEAT(Maxs, kMaxs, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_SCALAR_REPEAT(Mins, kMins, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_SCALAR_REPEAT(LeakyRelu, kLeakyRelu, TESSERA_VEC_FLOAT_TYPE)
#undef TESSERA_VEC_SCALAR_REPEAT

// dst[i] = dst[i] + src[i] * scalarValue in fp32: a fused multiply-add (one rounding) on FMA
// targets (AVX2, AVX-512), product and sum rounded apart on SSE4; 16-bit types then rounded once. T
// and U are the same type (float, half, bfloat16, int32; int32 wraps).
template <class T, class U>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, U scalarValue, int32_t count) {
  static_assert(std::is_same_v<T, U>,
                "Axpy: dst and src have the same type (the mixed half -> float form is not "
                "provided)");
  TESSERA_VEC_ANY_TYPE("Axpy");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) {
    vec::CheckCount(dst, count, "Axpy", "dst", false);
    vec::CheckCount(src, count, "Axpy", "src");
    detail::ShadowPropagate(dst.data(), dst.data(), src.data(), uint64_t(count) * sizeof(T));
  }
  if (count > 0)
    vec::Axpy(vec::DTypeOf<T>(), dst.data(), src.data(), vec::ToScalar(scalarValue), count);
}

// dst[i] = scalar for i < count. Any 1-, 2-, 4- or 8-byte trivially copyable element type.
template <class T>
void Duplicate(const LocalTensor<T>& dst, T scalar, int32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  static_assert(std::is_trivially_copyable_v<T> &&
                    (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                "Duplicate: elements are 1, 2, 4 or 8 bytes");
  if (dst.checked()) vec::CheckCount(dst, count, "Duplicate", "dst");
  T* p = dst.data();
  for (int32_t i = 0; i < count; ++i)
    p[i] = scalar;  // the compiler vectorises this store loop
}

// ---------------------------------------------------------------------------------------------
// Unary. Abs, Relu, Sqrt, Reciprocal: exact / correctly rounded. Exp, Ln, Rsqrt and the
// activations below are the shared math library (kernel/detail/math-inl.h, also elewise's):
// max fp32 ulp over every input in docs/kernel_vector.md (Exp 0.82, Ln 0.97, Rsqrt 0.5). Exp:
// +Inf above 88.7228, subnormal results down to -103.97, 0 below. ln(+-0) = -Inf, ln(x<0) = NaN.
// rsqrt(+-0) = +-Inf. half/bfloat16: the fp32 result rounded once.

template <class T>
void Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_ANY_TYPE("Abs");  // int32: Abs(INT32_MIN) wraps to INT32_MIN
  vec::RunUnary(vec::UnaryOp::kAbs, "Abs", dst, src, count);
}
template <class T>
void Relu(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_ANY_TYPE("Relu");
  vec::RunUnary(vec::UnaryOp::kRelu, "Relu", dst, src, count);
}
template <class T>
void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Exp");
  vec::RunUnary(vec::UnaryOp::kExp, "Exp", dst, src, count);
}
template <class T>
void Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Ln");
  vec::RunUnary(vec::UnaryOp::kLn, "Ln", dst, src, count);
}
template <class T>
void Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Sqrt");
  vec::RunUnary(vec::UnaryOp::kSqrt, "Sqrt", dst, src, count);
}
template <class T>
void Rsqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Rsqrt");
  vec::RunUnary(vec::UnaryOp::kRsqrt, "Rsqrt", dst, src, count);
}
template <class T>
void Reciprocal(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Reciprocal");
  vec::RunUnary(vec::UnaryOp::kReciprocal, "Reciprocal", dst, src, count);
}

// Mask + repeat forms of the unary instructions (UnaryRepeatParams addressing).
#define TESSERA_VEC_UNARY_REPEAT(Name, Op, Check)                                            \
  template <class T, bool isSetMask = true>                                                  \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,             \
            uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {                     \
    Check(#Name);                                                                            \
    vec::RunUnaryRepeat(#Name, isSetMask, dst, src, mask, nullptr, repeatTime, repeatParams, \
                        [](T* d, const T* x, uint64_t n) {                                   \
                          vec::Unary(vec::UnaryOp::Op, vec::DTypeOf<T>(), d, x, n);          \
                        });                                                                  \
  }                                                                                          \
  template <class T, bool isSetMask = true>                                                  \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[2],    \
            uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {                     \
    Check(#Name);                                                                            \
    vec::RunUnaryRepeat(#Name, isSetMask, dst, src, 0, mask, repeatTime, repeatParams,       \
                        [](T* d, const T* x, uint64_t n) {                                   \
                          vec::Unary(vec::UnaryOp::Op, vec::DTypeOf<T>(), d, x, n);          \
                        });                                                                  \
  }
TESSERA_VEC_UNARY_REPEAT(Abs, kAbs, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_UNARY_REPEAT(Relu, kRelu, TESSERA_VEC_ANY_TYPE)
TESSERA_VEC_UNARY_REPEAT(Exp, kExp, TESSERA_VEC_FLOAT_TYPE)
TESSERA_VEC_UNARY_REPEAT(Ln, kLn, TESSERA_VEC_FLOAT_TYPE)
TESSERA_VEC_UNARY_REPEAT(Sqrt, kSqrt, TESSERA_VEC_FLOAT_TYPE)
TESSERA_VEC_UNARY_REPEAT(Rsqrt, kRsqrt, TESSERA_VEC_FLOAT_TYPE)
TESSERA_VEC_UNARY_REPEAT(Reciprocal, kReciprocal, TESSERA_VEC_FLOAT_TYPE)
#undef TESSERA_VEC_UNARY_REPEAT

// ---------------------------------------------------------------------------------------------
// Activations (the shared math library; max fp32 ulp over every input in docs/kernel_vector.md).
// Sigmoid = 1 / (1 + e^-x), without overflow and with subnormal results. Tanh. Gelu: tanh
// approximation (Ascend's default), evaluated as x * sigmoid(2u) to avoid cancellation for
// x < 0. GeluErf: x * Phi(x) with an erfc fit of relative error < 1.2e-7. Silu = x * sigmoid(x).
// Limits at -Inf are -0 (not NaN).

template <class T>
void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Sigmoid");
  vec::RunUnary(vec::UnaryOp::kSigmoid, "Sigmoid", dst, src, count);
}
template <class T>
void Tanh(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Tanh");
  vec::RunUnary(vec::UnaryOp::kTanh, "Tanh", dst, src, count);
}
template <class T>
void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Gelu");
  vec::RunUnary(vec::UnaryOp::kGelu, "Gelu", dst, src, count);
}
template <class T>
void GeluErf(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("GeluErf");
  vec::RunUnary(vec::UnaryOp::kGeluErf, "GeluErf", dst, src, count);
}
template <class T>
void Silu(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_FLOAT_TYPE("Silu");
  vec::RunUnary(vec::UnaryOp::kSilu, "Silu", dst, src, count);
}

// ---------------------------------------------------------------------------------------------
// Cast(dst<U>, src<T>, mode, count). Supported pairs: half/bfloat16 -> float (exact, mode
// ignored); float/half/bfloat16/int32 -> half, float/half -> bfloat16, float/half/bfloat16 ->
// int32, int32 -> float, int8/uint8/int4b_t -> half (exact), half -> int8/uint8/int4b_t
// (saturating, NaN gives 0), each with every RoundMode except ODD to an integer type (a
// checked-mode error; fast mode writes nothing). To int32: out-of-range values saturate, NaN gives
// 0. Overflow to half/bfloat16 follows IEEE: RINT/ROUND/away directions give Inf, FLOOR of a large
// positive (and TRUNC, ODD) give the largest finite value.

namespace vec {
template <class U, class T>
inline constexpr bool kCastPair =
    (std::is_same_v<U, float> &&
     (std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || std::is_same_v<T, int32_t>)) ||
    (std::is_same_v<U, half> && !std::is_same_v<T, half> && kIsVectorType<T>) ||
    (std::is_same_v<U, bfloat16> && (std::is_same_v<T, float> || std::is_same_v<T, half>)) ||
    (std::is_same_v<U, int32_t> && kIsFloatType<T>) ||
    (std::is_same_v<U, half> &&
     (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int4b_t>)) ||
    (std::is_same_v<T, half> &&
     (std::is_same_v<U, int8_t> || std::is_same_v<U, uint8_t> || std::is_same_v<U, int4b_t>));

// Elements [first, first + n) of a packed int4b_t tensor from / to one int8 value each.
inline void UnpackInt4(int8_t* out, const void* bytes, uint64_t first, size_t n) {
  const auto* b = static_cast<const uint8_t*>(bytes);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t e = first + i;
    out[i] = static_cast<int8_t>(int4b_t(uint32_t{b[e / 2]} >> (e % 2 * 4)));
  }
}
inline void PackInt4(void* bytes, uint64_t first, const int8_t* v, size_t n) {
  auto* b = static_cast<uint8_t*>(bytes);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t e = first + i;
    const unsigned shift = e % 2 * 4;
    b[e / 2] = static_cast<uint8_t>((b[e / 2] & ~(0xFu << shift)) | ((v[i] & 0xFu) << shift));
  }
}

// dst elements [dst_first, +n) = src elements [src_first, +n) converted; false for CAST_ODD to an
// integer type (nothing written).
template <class U, class T>
bool CastRun(U* dst, uint64_t dst_first, const T* src, uint64_t src_first, RoundMode mode,
             size_t n) {
  if constexpr (std::is_same_v<U, int4b_t>) {
    if (mode == RoundMode::CAST_ODD) return false;
    int8_t buf[256];
    for (size_t i = 0; i < n; i += 256) {
      const size_t m = std::min<size_t>(256, n - i);
      CastHalfToInt4(mode, buf, src + src_first + i, m);
      PackInt4(dst, dst_first + i, buf, m);
    }
    return true;
  } else if constexpr (std::is_same_v<T, int4b_t>) {
    int8_t buf[256];
    for (size_t i = 0; i < n; i += 256) {
      const size_t m = std::min<size_t>(256, n - i);
      UnpackInt4(buf, src, src_first + i, m);
      CastByteToHalf(true, dst + dst_first + i, buf, m);
    }
    return true;
  } else if constexpr (std::is_same_v<U, half> &&
                       (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>)) {
    CastByteToHalf(std::is_signed_v<T>, dst + dst_first, src + src_first, n);
    return true;
  } else if constexpr (std::is_same_v<T, half> &&
                       (std::is_same_v<U, int8_t> || std::is_same_v<U, uint8_t>)) {
    return CastHalfToByte(std::is_signed_v<U>, mode, dst + dst_first, src + src_first, n);
  } else {
    return Cast(DTypeOf<U>(), DTypeOf<T>(), mode, dst + dst_first, src + src_first, n);
  }
}

// The mask + repeat form of Cast. A repeat covers 8 blocks of the wider type (128 elements for
// half <-> int4b_t or int8, 64 for float <-> half); element e of a repeat lives in block
// e / (32 bytes of elements) of each operand, at the operand's block and repeat strides.
template <class U, class T>
void RunCastRepeat(bool is_set_mask, const LocalTensor<U>& dst, const LocalTensor<T>& src,
                   RoundMode mode, uint64_t mask_len, const uint64_t* mask_bits, uint8_t repeat,
                   const UnaryRepeatParams& p) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  constexpr uint32_t kWideBits = std::max(kElemBits<U>, kElemBits<T>);
  const detail::RepeatSelection sel = detail::ResolveRepeats(
      kWideBits / 8, is_set_mask, mask_len, mask_bits, repeat, dst.checked(), "Cast");
  constexpr uint64_t kPerRepeat = 2048 / kWideBits;
  constexpr uint64_t kDstPerBlk = 256 / kElemBits<U>, kSrcPerBlk = 256 / kElemBits<T>;
  // Runs contiguous in both operands, as (dst element, src element, length).
  uint64_t run_d = 0, run_s = 0, run_n = 0, max_d = 0, max_s = 0;
  bool ok = true;
  auto flush = [&] {
    if (run_n == 0) return;
    max_d = std::max(max_d, run_d + run_n);
    max_s = std::max(max_s, run_s + run_n);
    if (dst.checked()) {
      TESSERA_KERNEL_CHECK(true, dst.Live() && src.Live(), "Cast",
                           "an operand's buffer was freed (FreeTensor) or handed on before the "
                           "Cast");
      TESSERA_KERNEL_CHECK(true, max_d <= dst.GetSize() && max_s <= src.GetSize(), "Cast",
                           "the repeats reach element " + std::to_string(max_d) + " of dst (" +
                               std::to_string(dst.GetSize()) + ") and " + std::to_string(max_s) +
                               " of src (" + std::to_string(src.GetSize()) + ")");
      // Every byte the run touches, including a partly written first or last int4b_t byte.
      const uint64_t first = run_d * kElemBits<U> / 8;
      const uint64_t last = ((run_d + run_n) * kElemBits<U> + 7) / 8;
      detail::ShadowWritten(reinterpret_cast<const uint8_t*>(dst.data()) + first, last - first);
    }
    ok = CastRun(dst.data(), run_d, src.data(), run_s, mode, run_n) && ok;
    run_n = 0;
  };
  for (uint64_t r = 0; r < sel.repeats; ++r) {
    const uint64_t* bits = r + 1 == sel.repeats ? sel.last : sel.bits;
    for (uint64_t e = 0; e < kPerRepeat; ++e) {
      if ((bits[e / 64] >> (e % 64) & 1) == 0) continue;
      const uint64_t d =
          (r * p.dstRepStride + e / kDstPerBlk * p.dstBlkStride) * kDstPerBlk + e % kDstPerBlk;
      const uint64_t s =
          (r * p.srcRepStride + e / kSrcPerBlk * p.srcBlkStride) * kSrcPerBlk + e % kSrcPerBlk;
      if (run_n > 0 && d == run_d + run_n && s == run_s + run_n) {
        ++run_n;
        continue;
      }
      flush();
      run_d = d, run_s = s, run_n = 1;
    }
  }
  flush();
  TESSERA_KERNEL_CHECK(dst.checked(), ok, "Cast",
                       "RoundMode CAST_ODD is not defined for a conversion to an integer type");
}
}  // namespace vec

template <class U, class T>
void Cast(const LocalTensor<U>& dst, const LocalTensor<T>& src, RoundMode mode, uint32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  static_assert(vec::kCastPair<U, T>,
                "Cast: unsupported type pair. Supported: half/bfloat16/int32 -> float, "
                "float/bfloat16/int32 -> half, float/half -> bfloat16, float/half/bfloat16 -> "
                "int32, int8/uint8/int4b_t <-> half (int32 -> bfloat16 would round twice: cast "
                "to float first)");
  if (dst.checked()) {
    constexpr bool kBytes = kElemBits<U> % 8 == 0 && kElemBits<T> % 8 == 0;
    vec::CheckCount(dst, static_cast<int32_t>(count), "Cast", "dst", !kBytes);
    vec::CheckCount(src, static_cast<int32_t>(count), "Cast", "src");
    if constexpr (kBytes)
      detail::ShadowPropagateCast(dst.data(), sizeof(U), src.data(), sizeof(T), count);
  }
  if (count == 0) return;
  const bool ok = vec::CastRun(dst.data(), 0, src.data(), 0, mode, count);
  TESSERA_KERNEL_CHECK(dst.checked(), ok, "Cast",
                       "RoundMode CAST_ODD is not defined for a conversion to an integer type");
}
// Mask + repeat forms (see vec::RunCastRepeat): `mask` = the first `mask` elements of each
// repeat, or a bit per element; isSetMask = false takes the mask register.
template <class U, class T, bool isSetMask = true>
void Cast(const LocalTensor<U>& dst, const LocalTensor<T>& src, RoundMode mode, uint64_t mask,
          uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
  static_assert(vec::kCastPair<U, T>, "Cast: unsupported type pair (see the count form)");
  vec::RunCastRepeat(isSetMask, dst, src, mode, mask, nullptr, repeatTime, repeatParams);
}
template <class U, class T, bool isSetMask = true>
void Cast(const LocalTensor<U>& dst, const LocalTensor<T>& src, RoundMode mode,
          const uint64_t mask[], uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
  static_assert(vec::kCastPair<U, T>, "Cast: unsupported type pair (see the count form)");
  vec::RunCastRepeat(isSetMask, dst, src, mode, 0, mask, repeatTime, repeatParams);
}

// ---------------------------------------------------------------------------------------------
// Compare: bit i of byte i / 8 of dst = (src0[i] cmp src1[i]) for i < count (any count; Ascend's
// 256-byte multiple is not required). Bits past count in the last byte are written as 0; no
// byte past ceil(count / 8) is touched. dst may be any unsigned integer tensor (seen as bytes).

template <class U, class T>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             CMPMODE mode, uint32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  TESSERA_VEC_ANY_TYPE("Compare");
  static_assert(std::is_unsigned_v<U>, "Compare: the mask tensor must hold an unsigned type");
  const uint64_t mask_bytes = (uint64_t{count} + 7) / 8;
  if (dst.checked()) {
    vec::CheckCount(src0, static_cast<int32_t>(count), "Compare", "src0");
    vec::CheckCount(src1, static_cast<int32_t>(count), "Compare", "src1");
    TESSERA_KERNEL_CHECK(
        true, mask_bytes <= uint64_t{dst.GetSize()} * sizeof(U) && dst.Live(), "Compare",
        "dst: count " + std::to_string(count) + " needs " + std::to_string(mask_bytes) +
            " mask bytes, the tensor has " + std::to_string(uint64_t{dst.GetSize()} * sizeof(U)));
    detail::ShadowWritten(dst.data(), mask_bytes);
  }
  if (count == 0) return;
  vec::Compare(mode, vec::DTypeOf<T>(), reinterpret_cast<uint8_t*>(dst.data()), src0.data(),
               src1.data(), count);
}

// Select: dst[i] = bit i of selMask ? src0[i] : src1[i] (VSEL_TENSOR_TENSOR_MODE), or
// ? src0[i] : scalar (VSEL_TENSOR_SCALAR_MODE), or bit i % (256 / sizeof(T)) ? src0[i] : src1[i]
// (VSEL_CMPMASK_SPR: the first repeat's bits reused). Bit-exact (no arithmetic).

namespace vec {
template <class T, class U>
void RunSelect(const LocalTensor<T>& dst, const LocalTensor<U>& mask, const LocalTensor<T>& a,
               const LocalTensor<T>* b, T scalar, SELMODE mode, SELMODE expected, uint32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  static_assert(std::is_unsigned_v<U>, "Select: the mask tensor must hold an unsigned type");
  if (dst.checked()) {
    const bool repeated_mask = mode == SELMODE::VSEL_CMPMASK_SPR && b != nullptr;
    TESSERA_KERNEL_CHECK(true, mode == expected || repeated_mask, "Select",
                         expected == SELMODE::VSEL_TENSOR_TENSOR_MODE
                             ? "a tensor src1 needs SELMODE::VSEL_TENSOR_TENSOR_MODE or "
                               "VSEL_CMPMASK_SPR"
                             : "a scalar src1 needs SELMODE::VSEL_TENSOR_SCALAR_MODE");
    CheckCount(dst, static_cast<int32_t>(count), "Select", "dst");
    CheckCount(a, static_cast<int32_t>(count), "Select", "src0");
    if (b != nullptr) CheckCount(*b, static_cast<int32_t>(count), "Select", "src1");
    const uint64_t mask_bits = repeated_mask ? std::min<uint64_t>(count, 256 / sizeof(T)) : count;
    const uint64_t need = (mask_bits + 7) / 8;
    TESSERA_KERNEL_CHECK(
        true, need <= uint64_t{mask.GetSize()} * sizeof(U) && mask.Live(), "Select",
        "selMask: count " + std::to_string(count) + " needs " + std::to_string(need) +
            " mask bytes, the tensor has " + std::to_string(uint64_t{mask.GetSize()} * sizeof(U)));
  }
  if (count == 0) return;
  uint32_t bits = 0;
  if constexpr (sizeof(T) == 2) {
    bits = ::tessera::detail::BitCast<uint16_t>(scalar);
  } else {
    bits = ::tessera::detail::BitCast<uint32_t>(scalar);
  }
  const auto* m = reinterpret_cast<const uint8_t*>(mask.data());
  if (mode == SELMODE::VSEL_CMPMASK_SPR && b != nullptr) {
    // The same 256 / sizeof(T) mask bits for every repeat.
    constexpr uint32_t kPerRepeat = 256 / sizeof(T);
    for (uint32_t i = 0; i < count; i += kPerRepeat) {
      Select(sizeof(T), dst.data() + i, m, a.data() + i, b->data() + i, bits,
             std::min(kPerRepeat, count - i));
    }
    return;
  }
  Select(sizeof(T), dst.data(), m, a.data(), b != nullptr ? b->data() : nullptr, bits, count);
}
}  // namespace vec

template <class T, class U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
  TESSERA_VEC_ANY_TYPE("Select");
  vec::RunSelect(dst, selMask, src0, &src1, T{}, selMode, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
}
template <class T, class U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            T src1, SELMODE selMode, uint32_t count) {
  TESSERA_VEC_ANY_TYPE("Select");
  vec::RunSelect(dst, selMask, src0, static_cast<const LocalTensor<T>*>(nullptr), src1, selMode,
                 SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
}

// ---------------------------------------------------------------------------------------------
// Reductions over count >= 1 elements, result in dst[0]. workLocal is accepted for Ascend C
// compatibility and not used. Sums accumulate in fp32 over 4 x lanes partial sums (error
// <= ~count / (4 lanes) * eps * sum|x|, far less in practice); int32 sums wrap. With calIndex,
// Max/Min also write the first index of the extreme into dst[1] as the element type's bit
// pattern (uint32 for 32-bit types, uint16 for half/bfloat16), as Ascend does. NaN inputs give
// an unspecified value.

namespace vec {
template <class T>
void RunReduce(ReduceOp op, const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
               uint32_t rows, uint32_t cols, uint32_t dst_needed, bool index) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) {
    TESSERA_KERNEL_CHECK(
        true, cols >= 1 && cols <= 0x7FFFFFFF, api,
        "count " + std::to_string(static_cast<int32_t>(cols)) + " must be at least 1");
    src.CheckRange(static_cast<uint32_t>(uint64_t{rows} * cols), api, "src");
    dst.CheckRange(dst_needed, api, "dst");
    TESSERA_KERNEL_CHECK(
        true, !index || sizeof(T) == 4 || cols <= 65536, api,
        "calIndex with 16-bit types needs count <= 65536, got " + std::to_string(cols));
  }
  if (cols == 0 || cols > 0x7FFFFFFF || rows == 0) return;
  Reduce(op, DTypeOf<T>(), dst.data(), index ? 2 : 1, src.data(), rows, cols, index);
  if (rows == 1) {  // a whole-tensor reduction sets the reduction special registers
    detail::ReduceSpr& spr = detail::ReduceRegister();
    spr.value = static_cast<float>(dst.data()[0]);
    spr.index = 0;
    if (index) {
      if constexpr (sizeof(T) == 2) {
        uint16_t i16;
        std::memcpy(&i16, static_cast<const void*>(dst.data() + 1), 2);
        spr.index = i16;
      } else {
        std::memcpy(&spr.index, static_cast<const void*>(dst.data() + 1), 4);
      }
    }
  }
}
}  // namespace vec

template <class T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& workLocal, int32_t count) {
  TESSERA_VEC_ANY_TYPE("ReduceSum");
  (void)workLocal;
  vec::RunReduce(vec::ReduceOp::kSum, "ReduceSum", dst, src, 1, static_cast<uint32_t>(count), 1,
                 false);
}
template <class T>
void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& workLocal, int32_t count, bool calIndex = false) {
  TESSERA_VEC_ANY_TYPE("ReduceMax");
  (void)workLocal;
  vec::RunReduce(vec::ReduceOp::kMax, "ReduceMax", dst, src, 1, static_cast<uint32_t>(count),
                 calIndex ? 2 : 1, calIndex);
}
template <class T>
void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& workLocal, int32_t count, bool calIndex = false) {
  TESSERA_VEC_ANY_TYPE("ReduceMin");
  (void)workLocal;
  vec::RunReduce(vec::ReduceOp::kMin, "ReduceMin", dst, src, 1, static_cast<uint32_t>(count),
                 calIndex ? 2 : 1, calIndex);
}

// Per row of a row-major rows x cols src: dst[r] = reduction of row r (cols >= 1).
template <class T>
void ReduceSumRows(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t rows,
                   uint32_t cols) {
  TESSERA_VEC_ANY_TYPE("ReduceSumRows");
  vec::RunReduce(vec::ReduceOp::kSum, "ReduceSumRows", dst, src, rows, cols, rows, false);
}
template <class T>
void ReduceMaxRows(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t rows,
                   uint32_t cols) {
  TESSERA_VEC_ANY_TYPE("ReduceMaxRows");
  vec::RunReduce(vec::ReduceOp::kMax, "ReduceMaxRows", dst, src, rows, cols, rows, false);
}
template <class T>
void ReduceMinRows(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t rows,
                   uint32_t cols) {
  TESSERA_VEC_ANY_TYPE("ReduceMinRows");
  vec::RunReduce(vec::ReduceOp::kMin, "ReduceMinRows", dst, src, rows, cols, rows, false);
}

// Row softmax of a row-major rows x cols tensor: dst[r][c] = e^(x - max_r) / sum_r. Rows holding
// +-Inf or NaN give NaN. dst may alias src.
template <class T>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t rows, uint32_t cols) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  TESSERA_VEC_FLOAT_TYPE("SoftMax");
  if (dst.checked()) {
    const uint64_t n = uint64_t{rows} * cols;
    TESSERA_KERNEL_CHECK(true, n <= 0xFFFFFFFFu, "SoftMax",
                         "rows * cols = " + std::to_string(n) + " overflows");
    dst.CheckRange(static_cast<uint32_t>(n), "SoftMax", "dst");
    src.CheckRange(static_cast<uint32_t>(n), "SoftMax", "src");
  }
  if (rows == 0 || cols == 0) return;
  vec::SoftMax(vec::DTypeOf<T>(), dst.data(), src.data(), rows, cols);
}

#undef TESSERA_VEC_ANY_TYPE
#undef TESSERA_VEC_FLOAT_TYPE
#undef TESSERA_VEC_ARITH_TYPE

}  // namespace tessera::kernel

#include "tessera/kernel/vector_compare.h"
#include "tessera/kernel/vector_gather.h"
#include "tessera/kernel/vector_logic.h"
#include "tessera/kernel/vector_mask.h"
#include "tessera/kernel/vector_move.h"
#include "tessera/kernel/vector_reduce_repeat.h"

namespace tessera::kernel {
template <class T>
template <TensorSymbolOp op>
void LocalTensor<T>::operator=(const TensorSymbol<T, op>& symbol) const {
  const int32_t count = static_cast<int32_t>(GetSize());
  if constexpr (op == TensorSymbolOp::kAdd) Add(*this, symbol.src0, symbol.src1, count);
  if constexpr (op == TensorSymbolOp::kSub) Sub(*this, symbol.src0, symbol.src1, count);
  if constexpr (op == TensorSymbolOp::kMul) Mul(*this, symbol.src0, symbol.src1, count);
  if constexpr (op == TensorSymbolOp::kDiv) Div(*this, symbol.src0, symbol.src1, count);
  if constexpr (op == TensorSymbolOp::kOr) Or(*this, symbol.src0, symbol.src1, count);
  if constexpr (op == TensorSymbolOp::kAnd) And(*this, symbol.src0, symbol.src1, count);
}
}  // namespace tessera::kernel
