// Bitwise and shift vector instructions on integer LocalTensors (2- or 4-byte elements: int16,
// uint16, int32, uint32), with Ascend C's names and argument orders. Exact (no rounding).
//
// Count forms touch exactly `count` elements; the mask + repeat forms of And / Or address their
// operands as the binary instructions do (vector.h, detail/repeat_walk.h). Checked mode reports a
// count or extent leaving a tensor, a freed tensor, and a scalar shift of the element width or
// more.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/kernel/check.h"
#include "tessera/kernel/detail/pipe_phase.h"
#include "tessera/kernel/detail/repeat_walk.h"
#include "tessera/kernel/detail/vector_dispatch.h"
#include "tessera/kernel/local_tensor.h"
#include "tessera/kernel/vector_types.h"

namespace tessera::kernel {
namespace vec {

template <class T>
inline constexpr bool kIsLogicType =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 2 || sizeof(T) == 4);

template <class T>
void CheckLogicCount(const LocalTensor<T>& t, int32_t count, const char* api, const char* role,
                     bool note_write = true) {
  TESSERA_KERNEL_CHECK(true, count >= 0, api, "count " + std::to_string(count) + " is negative");
  t.CheckRange(static_cast<uint32_t>(count), api, role, note_write);
}

template <class T>
uint32_t ScalarBits(T s) {
  return static_cast<uint32_t>(static_cast<std::make_unsigned_t<T>>(s));
}

template <class T>
void RunBitwise(BitOp op, const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a,
                const LocalTensor<T>* b, T s, int32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) {
    CheckLogicCount(dst, count, api, "dst", false);
    CheckLogicCount(a, count, api, "src0");
    if (b != nullptr) CheckLogicCount(*b, count, api, "src1");
    detail::ShadowPropagate(dst.data(), a.data(), b != nullptr ? b->data() : nullptr,
                            uint64_t(count) * sizeof(T));
  }
  if (count > 0) {
    Bitwise(op, sizeof(T), dst.data(), a.data(), b != nullptr ? b->data() : nullptr, ScalarBits(s),
            static_cast<size_t>(count));
  }
}

// The mask + repeat form of a two-tensor bitwise op.
template <class T>
void RunBitwiseRepeat(BitOp op, const char* api, bool is_set_mask, const LocalTensor<T>& dst,
                      const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t mask_len,
                      const uint64_t* mask_bits, uint8_t repeat, const BinaryRepeatParams& p) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  const detail::RepeatSelection sel = detail::ResolveRepeats(sizeof(T), is_set_mask, mask_len,
                                                             mask_bits, repeat, dst.checked(), api);
  const detail::RepeatStride stride[3] = {{p.dstBlkStride, p.dstRepStride},
                                          {p.src0BlkStride, p.src0RepStride},
                                          {p.src1BlkStride, p.src1RepStride}};
  if (dst.checked()) {
    dst.CheckRange(detail::RepeatExtent(sizeof(T), sel, stride, 0), api, "dst");
    a.CheckRange(detail::RepeatExtent(sizeof(T), sel, stride, 1), api, "src0");
    b.CheckRange(detail::RepeatExtent(sizeof(T), sel, stride, 2), api, "src1");
  }
  detail::WalkRuns(sizeof(T), sel, stride, [&](const uint64_t* off, uint64_t len) {
    Bitwise(op, sizeof(T), dst.data() + off[0], a.data() + off[1], b.data() + off[2], 0, len);
  });
}

template <class T>
void RunShift(ShiftOp op, const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const void* amounts, uint32_t bits, int32_t count) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) {
    CheckLogicCount(dst, count, api, "dst", false);
    CheckLogicCount(src, count, api, "src");
    TESSERA_KERNEL_CHECK(true, amounts != nullptr || bits < sizeof(T) * 8, api,
                         "shift " + std::to_string(bits) + " is not below the element width " +
                             std::to_string(sizeof(T) * 8));
    detail::ShadowPropagate(dst.data(), src.data(), amounts, uint64_t(count) * sizeof(T));
  }
  if (count <= 0) return;
  Shift(op, sizeof(T), std::is_signed_v<T>, dst.data(), src.data(), amounts, bits,
        static_cast<size_t>(count));
}

}  // namespace vec

#define TESSERA_VEC_LOGIC_TYPE(api)   \
  static_assert(vec::kIsLogicType<T>, \
                api ": supported element types are int16, uint16, int32, uint32")

// dst[i] = src0[i] & src1[i] / src0[i] | src1[i] for i < count.
template <class T>
void And(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         int32_t count) {
  TESSERA_VEC_LOGIC_TYPE("And");
  vec::RunBitwise(vec::BitOp::kAnd, "And", dst, src0, &src1, T{}, count);
}
template <class T>
void Or(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
        int32_t count) {
  TESSERA_VEC_LOGIC_TYPE("Or");
  vec::RunBitwise(vec::BitOp::kOr, "Or", dst, src0, &src1, T{}, count);
}

// Mask + repeat forms (see vector.h's binary instructions for the addressing and the mask).
#define TESSERA_VEC_LOGIC_REPEAT(Name, Op)                                                        \
  template <class T, bool isSetMask = true>                                                       \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,    \
            uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {          \
    TESSERA_VEC_LOGIC_TYPE(#Name);                                                                \
    vec::RunBitwiseRepeat(vec::BitOp::Op, #Name, isSetMask, dst, src0, src1, mask, nullptr,       \
                          repeatTime, repeatParams);                                              \
  }                                                                                               \
  template <class T, bool isSetMask = true>                                                       \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,    \
            const uint64_t mask[2], uint8_t repeatTime, const BinaryRepeatParams& repeatParams) { \
    TESSERA_VEC_LOGIC_TYPE(#Name);                                                                \
    vec::RunBitwiseRepeat(vec::BitOp::Op, #Name, isSetMask, dst, src0, src1, 0, mask, repeatTime, \
                          repeatParams);                                                          \
  }
TESSERA_VEC_LOGIC_REPEAT(And, kAnd)
TESSERA_VEC_LOGIC_REPEAT(Or, kOr)
#undef TESSERA_VEC_LOGIC_REPEAT

// dst[i] = ~src[i] for i < count.
template <class T>
void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) {
  TESSERA_VEC_LOGIC_TYPE("Not");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  if (dst.checked()) {
    vec::CheckLogicCount(dst, count, "Not", "dst", false);
    vec::CheckLogicCount(src, count, "Not", "src");
    detail::ShadowPropagate(dst.data(), src.data(), nullptr, uint64_t(count) * sizeof(T));
  }
  if (count > 0) vec::BitwiseNot(sizeof(T), dst.data(), src.data(), static_cast<size_t>(count));
}

// dst[i] = src[i] & scalar / src[i] | scalar for i < count.
template <class T, bool isSetMask = true>
void Ands(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalarValue, int32_t count) {
  TESSERA_VEC_LOGIC_TYPE("Ands");
  vec::RunBitwise(vec::BitOp::kAnd, "Ands", dst, src, static_cast<const LocalTensor<T>*>(nullptr),
                  scalarValue, count);
}
template <class T, bool isSetMask = true>
void Ors(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalarValue, int32_t count) {
  TESSERA_VEC_LOGIC_TYPE("Ors");
  vec::RunBitwise(vec::BitOp::kOr, "Ors", dst, src, static_cast<const LocalTensor<T>*>(nullptr),
                  scalarValue, count);
}

// The template form with the scalar in a tensor: config.scalarTensorIndex names the operand
// (0: src0, 1: src1) whose element 0 is the scalar; the other operand is the tensor.
// T is BinaryDefaultType (deduce) or the element type.
template <class T, bool isSetMask, const BinaryConfig& config, class E>
void Ands(const LocalTensor<E>& dst, const LocalTensor<E>& src0, const LocalTensor<E>& src1,
          int32_t count) {
  static_assert(std::is_same_v<T, BinaryDefaultType> || std::is_same_v<T, E>,
                "Ands: T is BinaryDefaultType or the tensors' element type");
  const bool first = config.scalarTensorIndex == 0;
  Ands<E>(dst, first ? src1 : src0, (first ? src0 : src1).GetValue(0), count);
}
template <class T, bool isSetMask, const BinaryConfig& config, class E>
void Ors(const LocalTensor<E>& dst, const LocalTensor<E>& src0, const LocalTensor<E>& src1,
         int32_t count) {
  static_assert(std::is_same_v<T, BinaryDefaultType> || std::is_same_v<T, E>,
                "Ors: T is BinaryDefaultType or the tensors' element type");
  const bool first = config.scalarTensorIndex == 0;
  Ors<E>(dst, first ? src1 : src0, (first ? src0 : src1).GetValue(0), count);
}

// dst[i] = src[i] << scalarValue / src[i] >> scalarValue (arithmetic for signed types) for
// i < count; scalarValue is below the element width.
template <class T, bool isSetMask = true>
void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalarValue, int32_t count) {
  TESSERA_VEC_LOGIC_TYPE("ShiftLeft");
  vec::RunShift(vec::ShiftOp::kLeft, "ShiftLeft", dst, src, nullptr, vec::ScalarBits(scalarValue),
                count);
}
template <class T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalarValue,
                int32_t count) {
  TESSERA_VEC_LOGIC_TYPE("ShiftRight");
  vec::RunShift(vec::ShiftOp::kRight, "ShiftRight", dst, src, nullptr, vec::ScalarBits(scalarValue),
                count);
}

// Per-element amounts: dst[i] = src0[i] << src1[i] / >> src1[i]. src1 holds integers of the
// same width (either signedness), read as unsigned: an amount of the width or more (or a
// negative one) shifts every bit out (0, or the sign for an arithmetic right shift).
template <class T, class U>
void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1,
               int32_t count) {
  TESSERA_VEC_LOGIC_TYPE("ShiftLeft");
  static_assert(std::is_integral_v<U> && sizeof(U) == sizeof(T),
                "ShiftLeft: the amounts are integers of the elements' width");
  if (dst.checked()) vec::CheckLogicCount(src1, count, "ShiftLeft", "src1");
  vec::RunShift(vec::ShiftOp::kLeft, "ShiftLeft", dst, src0, src1.data(), 0, count);
}
template <class T, class U>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1,
                int32_t count) {
  TESSERA_VEC_LOGIC_TYPE("ShiftRight");
  static_assert(std::is_integral_v<U> && sizeof(U) == sizeof(T),
                "ShiftRight: the amounts are integers of the elements' width");
  if (dst.checked()) vec::CheckLogicCount(src1, count, "ShiftRight", "src1");
  vec::RunShift(vec::ShiftOp::kRight, "ShiftRight", dst, src0, src1.data(), 0, count);
}

#undef TESSERA_VEC_LOGIC_TYPE

}  // namespace tessera::kernel
