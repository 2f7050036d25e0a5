// Compare with a scalar (Compares), the register form of Compare (one repeat, result in the
// compare mask register) and GetCmpMask / SetCmpMask, with Ascend C's names. The count form of
// Compare and Select are in vector.h. Element types: float, half, bfloat16, int32; NaN compares
// false except NE (IEEE).
#pragma once

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
namespace detail {
// The running block's compare mask register: 128 bits, bit e in word e / 64.
uint64_t* CmpMaskRegister();
}  // namespace detail

namespace vec {
template <class T>
Scalar CompareScalarOf(T s) {
  Scalar out;
  if constexpr (std::is_same_v<T, int32_t>) {
    out.i = s;
  } else {
    out.f = static_cast<float>(s);  // half / bfloat16 widen exactly
  }
  return out;
}

template <class T>
void RunCompareToRegister(CMPMODE mode, bool is_set_mask, const LocalTensor<T>& a,
                          const LocalTensor<T>& b, uint64_t mask_len, const uint64_t* mask_bits,
                          const BinaryRepeatParams& p) {
  const detail::PipeScope phase(a.checked(), device::TracePipe::kV);
  const detail::RepeatSelection sel = detail::ResolveRepeats(sizeof(T), is_set_mask, mask_len,
                                                             mask_bits, 1, a.checked(), "Compare");
  // The third "operand" is the element's index within the repeat: its bit in the register.
  const detail::RepeatStride stride[3] = {
      {p.src0BlkStride, p.src0RepStride}, {p.src1BlkStride, p.src1RepStride}, {1, 8}};
  if (a.checked()) {
    a.CheckRange(detail::RepeatExtent(sizeof(T), sel, stride, 0), "Compare", "src0");
    b.CheckRange(detail::RepeatExtent(sizeof(T), sel, stride, 1), "Compare", "src1");
  }
  uint64_t bits[2] = {};
  detail::WalkRuns(sizeof(T), sel, stride, [&](const uint64_t* off, uint64_t len) {
    uint8_t run[16] = {};  // len <= 128 (COUNTER mode may name more: one repeat is kept)
    const uint64_t n = len > 128 ? 128 : len;
    vec::Compare(mode, DTypeOf<T>(), run, a.data() + off[0], b.data() + off[1], n);
    for (uint64_t e = 0; e < n && off[2] + e < 128; ++e) {
      if (run[e / 8] >> (e % 8) & 1) bits[(off[2] + e) / 64] |= uint64_t{1} << ((off[2] + e) % 64);
    }
  });
  uint64_t* reg = detail::CmpMaskRegister();
  reg[0] = bits[0];
  reg[1] = bits[1];
}
}  // namespace vec

#define TESSERA_VEC_CMP_TYPE(api)      \
  static_assert(vec::kIsVectorType<T>, \
                api ": supported element types are float, half, bfloat16 and int32_t")

// Compares: bit i of byte i / 8 of dst = (src0[i] cmp src1Scalar) for i < count (any count);
// bits past count in the last byte are 0, no byte past ceil(count / 8) is touched.
template <class T, class U>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, T src1Scalar, CMPMODE cmpMode,
              uint32_t count) {
  TESSERA_VEC_CMP_TYPE("Compares");
  static_assert(std::is_unsigned_v<U>, "Compares: the mask tensor must hold an unsigned type");
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  const uint64_t mask_bytes = (uint64_t{count} + 7) / 8;
  if (dst.checked()) {
    src0.CheckRange(count, "Compares", "src0");
    TESSERA_KERNEL_CHECK(
        true, mask_bytes <= uint64_t{dst.GetSize()} * sizeof(U) && dst.Live(), "Compares",
        "dst: count " + std::to_string(count) + " needs " + std::to_string(mask_bytes) +
            " mask bytes, the tensor has " + std::to_string(uint64_t{dst.GetSize()} * sizeof(U)));
    detail::ShadowWritten(dst.data(), mask_bytes);
  }
  if (count == 0) return;
  vec::CompareScalar(cmpMode, vec::DTypeOf<T>(), reinterpret_cast<uint8_t*>(dst.data()),
                     src0.data(), vec::CompareScalarOf(src1Scalar), count);
}

// Register form: compares the elements of one repeat the mask selects (addressed by the
// src0/src1 strides of repeatParams) and leaves bit e = result of element e of the repeat in the
// compare mask register, unselected bits 0. Read it with GetCmpMask.
template <class T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, uint64_t mask,
             const BinaryRepeatParams& repeatParams) {
  TESSERA_VEC_CMP_TYPE("Compare");
  vec::RunCompareToRegister(cmpMode, isSetMask, src0, src1, mask, nullptr, repeatParams);
}
template <class T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask[2], const BinaryRepeatParams& repeatParams) {
  TESSERA_VEC_CMP_TYPE("Compare");
  vec::RunCompareToRegister(cmpMode, isSetMask, src0, src1, 0, mask, repeatParams);
}

// GetCmpMask writes the compare mask register's 16 bytes to dst; SetCmpMask loads them from src.
template <class T>
void GetCmpMask(const LocalTensor<T>& dst) {
  const detail::PipeScope phase(dst.checked(), device::TracePipe::kV);
  TESSERA_KERNEL_CHECK(dst.checked(), uint64_t{dst.GetSize()} * sizeof(T) >= 16 && dst.Live(),
                       "GetCmpMask",
                       "dst: the register's 16 bytes do not fit the tensor's " +
                           std::to_string(uint64_t{dst.GetSize()} * sizeof(T)) + " bytes");
  if (dst.checked()) detail::ShadowWritten(dst.data(), 16);
  std::memcpy(dst.data(), detail::CmpMaskRegister(), 16);
}
template <class T>
void SetCmpMask(const LocalTensor<T>& src) {
  const detail::PipeScope phase(src.checked(), device::TracePipe::kV);
  TESSERA_KERNEL_CHECK(src.checked(), uint64_t{src.GetSize()} * sizeof(T) >= 16 && src.Live(),
                       "SetCmpMask",
                       "src: the register's 16 bytes exceed the tensor's " +
                           std::to_string(uint64_t{src.GetSize()} * sizeof(T)) + " bytes");
  std::memcpy(detail::CmpMaskRegister(), src.data(), 16);
}

#undef TESSERA_VEC_CMP_TYPE

}  // namespace tessera::kernel
