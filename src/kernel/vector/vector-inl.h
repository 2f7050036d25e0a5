// Per-target building blocks of the vector instructions: the one loop shape and exact
// half/bfloat16 conversions; the fp32 math is the shared library
// (tessera/kernel/detail/math-inl.h). Included once per Highway target by each implementation file
// (hence the toggle guard instead of #pragma once).
#if defined(TESSERA_SRC_KERNEL_VECTOR_VECTOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_SRC_KERNEL_VECTOR_VECTOR_INL_H_
#undef TESSERA_SRC_KERNEL_VECTOR_VECTOR_INL_H_
#else
#define TESSERA_SRC_KERNEL_VECTOR_VECTOR_INL_H_
#endif

#include <algorithm>
#include <cstring>
#include <limits>

#include "hwy/highway.h"
#include "tessera/core/float16.h"
#include "tessera/kernel/detail/math-inl.h"
#include "tessera/kernel/detail/vector_dispatch.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::kernel::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace km = ::tessera::kernel::math::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using DU = hn::RebindToUnsigned<DF>;
using D16 = hn::Rebind<uint16_t, DF>;  // half-width lanes, as many as DF
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
using VU = hn::Vec<DU>;

// Upper bound of lanes of any 4-byte vector, for the stack buffers of tails.
inline constexpr size_t kMaxLanes32 = HWY_MAX_BYTES / 4;

// The one loop shape for fp32 (and int32) maps: full vectors, then the tail through a
// zero-padded stack vector so the math runs unchanged and nothing past n is read or written.
template <class D, class T, class Fn>
HWY_INLINE void Map1(D d, T* dst, const T* src, size_t n, const Fn& fn) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(fn(d, hn::LoadU(d, src + i)), d, dst + i);
  if (i == n) return;
  HWY_ALIGN T buf[kMaxLanes32] = {};
  std::memcpy(buf, src + i, (n - i) * sizeof(T));
  hn::Store(fn(d, hn::Load(d, buf)), d, buf);
  std::memcpy(dst + i, buf, (n - i) * sizeof(T));
}

template <class D, class T, class Fn>
HWY_INLINE void Map2(D d, T* dst, const T* a, const T* b, size_t n, const Fn& fn) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(fn(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, dst + i);
  }
  if (i == n) return;
  HWY_ALIGN T ba[kMaxLanes32] = {};
  HWY_ALIGN T bb[kMaxLanes32] = {};
  std::memcpy(ba, a + i, (n - i) * sizeof(T));
  std::memcpy(bb, b + i, (n - i) * sizeof(T));
  hn::Store(fn(d, hn::Load(d, ba), hn::Load(d, bb)), d, ba);
  std::memcpy(dst + i, ba, (n - i) * sizeof(T));
}

// ---- half / bfloat16 <-> float, bit-exact with tessera/core/float16.h (including NaN payloads,
// which the F16C instructions would quiet, and round-to-nearest-even to bfloat16, which Highway
// 1.0.3's DemoteTo does not do: it truncates). Narrow values travel in 32-bit lanes.

HWY_INLINE VF HalfBitsToF32(VU h) {
  const DF df;
  const DU du;
  const DI di;
  const VU sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
  const VU exponent = hn::And(hn::ShiftRight<10>(h), hn::Set(du, 0x1Fu));
  const VU mantissa = hn::And(h, hn::Set(du, 0x3FFu));
  const VU normal =
      hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du, 112u))), hn::ShiftLeft<13>(mantissa));
  const VU special = hn::Or(hn::Set(du, 0x7F800000u), hn::ShiftLeft<13>(mantissa));
  // Subnormal or zero: mantissa * 2^-24 is exact in float.
  const VU subnormal = hn::BitCast(
      du, hn::Mul(hn::ConvertTo(df, hn::BitCast(di, mantissa)), hn::Set(df, 1.0f / 16777216.0f)));
  VU magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 31u)), special, normal);
  magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Zero(du)), subnormal, magnitude);
  return hn::BitCast(df, hn::Or(sign, magnitude));
}

HWY_INLINE VU F32ToHalfBits(VF v) {
  const DF df;
  const DU du;
  const DI di;
  const VU x = hn::BitCast(du, v);
  const VU sign = hn::And(hn::ShiftRight<16>(x), hn::Set(du, 0x8000u));
  const VU abs = hn::And(x, hn::Set(du, 0x7FFFFFFFu));
  const VI abs_i = hn::BitCast(di, abs);  // < 2^31, so signed compares order it correctly
  // Normal range: rebias the exponent and round the 13 dropped bits to nearest even.
  VU rebiased = hn::Sub(abs, hn::Set(du, 0x38000000u));
  rebiased = hn::Add(rebiased, hn::Add(hn::Set(du, 0xFFFu),
                                       hn::And(hn::ShiftRight<13>(rebiased), hn::Set(du, 1u))));
  VU result = hn::ShiftRight<13>(rebiased);
  // Below 2^-14: adding 0.5f leaves a float whose last bit is worth 2^-24, the half subnormal
  // unit, so the FPU does the round-to-nearest-even; the bit difference is the half mantissa.
  const VF half_f = hn::Set(df, 0.5f);
  const VU subnormal =
      hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, abs), half_f)), hn::BitCast(du, half_f));
  result =
      hn::IfThenElse(hn::RebindMask(du, hn::Lt(abs_i, hn::Set(di, 0x38800000))), subnormal, result);
  result = hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x477FEFFF))),
                          hn::Set(du, 0x7C00u), result);
  // NaN keeps its payload's high bits, forced non-zero so it stays a NaN.
  VU payload = hn::And(hn::ShiftRight<13>(abs), hn::Set(du, 0x3FFu));
  payload = hn::IfThenElse(hn::Eq(payload, hn::Zero(du)), hn::Set(du, 0x200u), payload);
  result = hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x7F800000))),
                          hn::Or(hn::Set(du, 0x7C00u), payload), result);
  return hn::Or(sign, result);
}

HWY_INLINE VF Bf16BitsToF32(VU b) {
  return hn::BitCast(DF(), hn::ShiftLeft<16>(b));
}

HWY_INLINE VU F32ToBf16Bits(VF v) {
  return km::Bf16Bits(DF(), v);
}

HWY_INLINE VU LoadU16(const uint16_t* p) {
  return hn::PromoteTo(DU(), hn::LoadU(D16(), p));
}
HWY_INLINE void StoreU16(VU bits, uint16_t* p) {
  hn::StoreU(km::NarrowU16(D16(), bits), D16(), p);
}

// Widens n 16-bit values of type t (kF16 or kBF16) to float; the tail uses the scalar conversion
// the vector code reproduces.
HWY_INLINE void Widen16(DType t, const uint16_t* src, float* dst, size_t n) {
  const DF df;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  if (t == DType::kF16) {
    for (; i + N <= n; i += N)
      hn::StoreU(HalfBitsToF32(LoadU16(src + i)), df, dst + i);
    for (; i < n; ++i)
      dst[i] = HalfBitsToFloat(src[i]);
  } else {
    for (; i + N <= n; i += N)
      hn::StoreU(Bf16BitsToF32(LoadU16(src + i)), df, dst + i);
    for (; i < n; ++i)
      dst[i] = Bfloat16BitsToFloat(src[i]);
  }
}

HWY_INLINE void Narrow16(DType t, const float* src, uint16_t* dst, size_t n) {
  const DF df;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  if (t == DType::kF16) {
    for (; i + N <= n; i += N)
      StoreU16(F32ToHalfBits(hn::LoadU(df, src + i)), dst + i);
    for (; i < n; ++i)
      dst[i] = FloatToHalfBits(src[i]);
  } else {
    for (; i + N <= n; i += N)
      StoreU16(F32ToBf16Bits(hn::LoadU(df, src + i)), dst + i);
    for (; i < n; ++i)
      dst[i] = FloatToBfloat16Bits(src[i]);
  }
}

// Elements per chunk when 16-bit data is computed through fp32 stack buffers (3 x 2 KiB).
inline constexpr size_t kChunk = 512;

// Runs the fp32 kernel fn(out, a, b, n) on data of type t: directly for fp32, otherwise chunk by
// chunk through widened stack copies, narrowing each result once (round to nearest even).
template <class Fn>
HWY_INLINE void Via32(DType t, void* dst, const void* a, const void* b, size_t n, const Fn& fn) {
  if (t == DType::kF32) {
    fn(static_cast<float*>(dst), static_cast<const float*>(a), static_cast<const float*>(b), n);
    return;
  }
  HWY_ALIGN float fa[kChunk];
  HWY_ALIGN float fb[kChunk];
  const auto* a16 = static_cast<const uint16_t*>(a);
  const auto* b16 = static_cast<const uint16_t*>(b);
  auto* d16 = static_cast<uint16_t*>(dst);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    Widen16(t, a16 + i, fa, m);
    if (b16 != nullptr) Widen16(t, b16 + i, fb, m);
    fn(fa, fa, b16 != nullptr ? fb : nullptr, m);
    Narrow16(t, fa, d16 + i, m);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::kernel::vec
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
