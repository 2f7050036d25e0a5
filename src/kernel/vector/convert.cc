// Cast with rounding modes, Compare to a bit mask, and Select by a bit mask.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convert.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "vector-inl.h"

#ifndef TESSERA_SRC_KERNEL_VECTOR_CONVERT_ONCE_
#define TESSERA_SRC_KERNEL_VECTOR_CONVERT_ONCE_
#include <bit>
#include <cmath>
#endif

HWY_BEFORE_NAMESPACE();
namespace tessera::kernel::vec {
namespace HWY_NAMESPACE {
namespace {

// Rounds the exact value w to the 16-bit type `to` with `mode`. Starts from round-to-nearest-
// even and moves one step (+-1 on the sign-magnitude bit pattern) where the mode disagrees,
// deciding by comparing w with the narrowed value widened back (exact).
HWY_INLINE VU NarrowBits(DType to, RoundMode mode, VF w) {
  const DU du;
  const bool f16 = to == DType::kF16;
  const VU n = f16 ? F32ToHalfBits(w) : F32ToBf16Bits(w);
  if (mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT) return n;
  const auto widen = [f16](VU bits) { return f16 ? HalfBitsToF32(bits) : Bf16BitsToF32(bits); };
  const VF b = widen(n);
  const VU one = hn::Set(du, 1u);
  const auto negative = hn::Ne(hn::And(n, hn::Set(du, 0x8000u)), hn::Zero(du));
  const VU toward_zero = hn::Sub(n, one);
  const VU away = hn::Add(n, one);
  const auto trunc = [&] {
    return hn::IfThenElse(hn::RebindMask(du, hn::Gt(hn::Abs(b), hn::Abs(w))), toward_zero, n);
  };
  switch (mode) {
    case RoundMode::CAST_FLOOR:
      return hn::IfThenElse(hn::RebindMask(du, hn::Gt(b, w)),
                            hn::IfThenElse(negative, away, toward_zero), n);
    case RoundMode::CAST_CEIL:
      return hn::IfThenElse(hn::RebindMask(du, hn::Lt(b, w)),
                            hn::IfThenElse(negative, toward_zero, away), n);
    case RoundMode::CAST_TRUNC:
      return trunc();
    case RoundMode::CAST_ROUND: {
      // Differs from nearest-even only on a tie that went toward zero. Both differences are
      // exact (Sterbenz), so the tie test is exact.
      const VF aw = hn::Abs(w);
      const VF ab = hn::Abs(b);
      const auto tie =
          hn::And(hn::Lt(ab, aw), hn::Eq(hn::Sub(aw, ab), hn::Sub(hn::Abs(widen(away)), aw)));
      return hn::IfThenElse(hn::RebindMask(du, tie), away, n);
    }
    case RoundMode::CAST_ODD: {
      const auto inexact = hn::AndNot(hn::IsNaN(w), hn::Ne(b, w));
      const VU t = trunc();
      return hn::IfThenElse(hn::RebindMask(du, inexact), hn::Or(t, one), t);
    }
    default:
      return n;
  }
}

HWY_INLINE VI RoundToI32(RoundMode mode, VF w) {
  const DF df;
  const DI di;
  VF r;
  switch (mode) {
    case RoundMode::CAST_FLOOR:
      r = hn::Floor(w);
      break;
    case RoundMode::CAST_CEIL:
      r = hn::Ceil(w);
      break;
    case RoundMode::CAST_TRUNC:
      r = hn::Trunc(w);
      break;
    case RoundMode::CAST_ROUND: {
      const VF t = hn::Trunc(w);  // w - t is exact
      const auto up = hn::Ge(hn::Abs(hn::Sub(w, t)), hn::Set(df, 0.5f));
      r = hn::IfThenElse(up, hn::Add(t, hn::CopySign(hn::Set(df, 1.0f), w)), t);
      break;
    }
    default:  // NONE and RINT
      r = hn::Round(w);
      break;
  }
  // ConvertTo saturates out-of-range values; NaN becomes 0 on every target.
  return hn::IfThenZeroElse(hn::RebindMask(di, hn::IsNaN(w)), hn::ConvertTo(di, r));
}

// float chunk -> destination of type `to` (F16/BF16/I32).
void FromF32(DType to, RoundMode mode, const float* src, void* dst, size_t n) {
  const DF df;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  if (to == DType::kI32) {
    auto* out = static_cast<int32_t*>(dst);
    for (; i + N <= n; i += N)
      hn::StoreU(RoundToI32(mode, hn::LoadU(df, src + i)), DI(), out + i);
    if (i == n) return;
    HWY_ALIGN float buf[kMaxLanes32] = {};
    HWY_ALIGN int32_t res[kMaxLanes32];
    std::memcpy(buf, src + i, (n - i) * sizeof(float));
    hn::Store(RoundToI32(mode, hn::Load(df, buf)), DI(), res);
    std::memcpy(out + i, res, (n - i) * sizeof(int32_t));
    return;
  }
  auto* out = static_cast<uint16_t*>(dst);
  for (; i + N <= n; i += N)
    StoreU16(NarrowBits(to, mode, hn::LoadU(df, src + i)), out + i);
  if (i == n) return;
  HWY_ALIGN float buf[kMaxLanes32] = {};
  HWY_ALIGN uint32_t res[kMaxLanes32];
  std::memcpy(buf, src + i, (n - i) * sizeof(float));
  hn::Store(NarrowBits(to, mode, hn::Load(df, buf)), DU(), res);
  for (size_t j = 0; j < n - i; ++j)
    out[i + j] = static_cast<uint16_t>(res[j]);
}

// int32 -> float rounded to nearest even (exact up to 2^24).
void I32ToF32(const int32_t* src, float* dst, size_t n) {
  Map1(DI(), reinterpret_cast<int32_t*>(dst), src, n,
       [](DI, VI v) { return hn::BitCast(DI(), hn::ConvertTo(DF(), v)); });
}

bool CastImpl(DType to, DType from, RoundMode mode, void* dst, const void* src, size_t n) {
  if (to == DType::kI32 && mode == RoundMode::CAST_ODD) return false;
  if (to == DType::kF32 && from == DType::kI32) {  // NONE/RINT only; the caller does the rest
    I32ToF32(static_cast<const int32_t*>(src), static_cast<float*>(dst), n);
    return true;
  }
  if (to == DType::kF32) {  // half/bfloat16 widen exactly; the mode has nothing to round
    Widen16(from, static_cast<const uint16_t*>(src), static_cast<float*>(dst), n);
    return true;
  }
  if (from == DType::kF32) {
    FromF32(to, mode, static_cast<const float*>(src), dst, n);
    return true;
  }
  // From half/bfloat16/int32 through an exact (or, for int32 -> half, range-preserving) fp32
  // chunk: int32 values beyond 2^24 overflow half whatever the first rounding did.
  HWY_ALIGN float buf[kChunk];
  const size_t out_bytes = to == DType::kI32 ? 4 : 2;
  const size_t in_bytes = from == DType::kI32 ? 4 : 2;
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    const auto* in = static_cast<const uint8_t*>(src) + i * in_bytes;
    if (from == DType::kI32) {
      I32ToF32(reinterpret_cast<const int32_t*>(in), buf, m);
    } else {
      Widen16(from, reinterpret_cast<const uint16_t*>(in), buf, m);
    }
    FromF32(to, mode, buf, static_cast<uint8_t*>(dst) + i * out_bytes, m);
  }
  return true;
}

// ---- Compare: results packed 64 at a time, written as whole bytes.

template <class D>
HWY_INLINE auto CompareVec(D, CMPMODE mode, hn::Vec<D> a, hn::Vec<D> b) {
  switch (mode) {
    case CMPMODE::LT:
      return hn::Lt(a, b);
    case CMPMODE::GT:
      return hn::Gt(a, b);
    case CMPMODE::EQ:
      return hn::Eq(a, b);
    case CMPMODE::LE:  // Highway 1.0.3 has Le/Ge for floats only; integers have no NaN
      if constexpr (hwy::IsFloat<hn::TFromD<D>>()) return hn::Le(a, b);
      return hn::Not(hn::Gt(a, b));
    case CMPMODE::GE:
      if constexpr (hwy::IsFloat<hn::TFromD<D>>()) return hn::Ge(a, b);
      return hn::Not(hn::Lt(a, b));
    default:  // NE is true for NaN (IEEE); Highway's float Ne is ordered on some targets
      return hn::Not(hn::Eq(a, b));
  }
}

// b == nullptr compares with the broadcast scalar s.
template <class T>
void CompareT(CMPMODE mode, uint8_t* dst, const T* a, const T* b, size_t n, T s = T{}) {
  const hn::ScalableTag<T> d;
  const auto vs = hn::Set(d, s);
  const size_t N = hn::Lanes(d);  // divides 64, so full vectors keep the packing byte-aligned
  uint64_t acc = 0;
  size_t fill = 0;
  const auto push = [&](auto mask, size_t lanes) {
    uint8_t tmp[8] = {};
    hn::StoreMaskBits(d, mask, tmp);
    uint64_t bits;
    std::memcpy(&bits, tmp, 8);
    if (lanes < 64) bits &= (uint64_t{1} << lanes) - 1;
    acc |= bits << fill;
    fill += lanes;
    if (fill == 64) {
      std::memcpy(dst, &acc, 8);
      dst += 8;
      acc = 0;
      fill = 0;
    }
  };
  size_t i = 0;
  for (; i + N <= n; i += N) {
    push(CompareVec(d, mode, hn::LoadU(d, a + i), b != nullptr ? hn::LoadU(d, b + i) : vs), N);
  }
  if (i < n) {
    HWY_ALIGN T ba[kMaxLanes32] = {};
    HWY_ALIGN T bb[kMaxLanes32] = {};
    std::memcpy(ba, a + i, (n - i) * sizeof(T));
    if (b != nullptr) std::memcpy(bb, b + i, (n - i) * sizeof(T));
    push(CompareVec(d, mode, hn::Load(d, ba), b != nullptr ? hn::Load(d, bb) : vs), n - i);
  }
  if (fill > 0) std::memcpy(dst, &acc, (fill + 7) / 8);
}

void CompareImpl(CMPMODE mode, DType t, uint8_t* dst, const void* a, const void* b, size_t n) {
  if (t == DType::kI32) {
    return CompareT(mode, dst, static_cast<const int32_t*>(a), static_cast<const int32_t*>(b), n);
  }
  if (t == DType::kF32) {
    return CompareT(mode, dst, static_cast<const float*>(a), static_cast<const float*>(b), n);
  }
  // Widening is exact, so comparing in fp32 is comparing the 16-bit values. kChunk is a
  // multiple of 64: each chunk starts on a whole output byte.
  HWY_ALIGN float fa[kChunk];
  HWY_ALIGN float fb[kChunk];
  const auto* a16 = static_cast<const uint16_t*>(a);
  const auto* b16 = static_cast<const uint16_t*>(b);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    Widen16(t, a16 + i, fa, m);
    Widen16(t, b16 + i, fb, m);
    CompareT(mode, dst + i / 8, fa, fb, m);
  }
}

void CompareScalarImpl(CMPMODE mode, DType t, uint8_t* dst, const void* a, Scalar s, size_t n) {
  if (t == DType::kI32) {
    return CompareT<int32_t>(mode, dst, static_cast<const int32_t*>(a), nullptr, n, s.i);
  }
  if (t == DType::kF32) {
    return CompareT<float>(mode, dst, static_cast<const float*>(a), nullptr, n, s.f);
  }
  // The 16-bit scalar widened exactly (Scalar::f), compared in fp32 like Compare.
  HWY_ALIGN float fa[kChunk];
  const auto* a16 = static_cast<const uint16_t*>(a);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    Widen16(t, a16 + i, fa, m);
    CompareT(mode, dst + i / 8, fa, static_cast<const float*>(nullptr), m, s.f);
  }
}

// ---- Select: bitwise on the element's bits (no widening), 16- or 32-bit lanes.

// Mask of `lanes` elements starting at element i of the bit mask; reads only bytes holding them.
template <class D>
HWY_INLINE auto MaskAt(D d, const uint8_t* mask, size_t i, size_t lanes) {
  const size_t shift = i % 8;
  uint64_t bits = 0;
  std::memcpy(&bits, mask + i / 8, (shift + lanes + 7) / 8);
  bits >>= shift;
  if (lanes < 64) bits &= (uint64_t{1} << lanes) - 1;  // not every target ignores extra bits
  uint8_t tmp[8];
  std::memcpy(tmp, &bits, 8);
  return hn::LoadMaskBits(d, tmp);
}

template <class T>
void SelectT(T* dst, const uint8_t* mask, const T* a, const T* b, T s, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const auto vs = hn::Set(d, s);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto vb = b != nullptr ? hn::LoadU(d, b + i) : vs;
    hn::StoreU(hn::IfThenElse(MaskAt(d, mask, i, N), hn::LoadU(d, a + i), vb), d, dst + i);
  }
  if (i == n) return;
  HWY_ALIGN T ba[HWY_MAX_BYTES / sizeof(T)] = {};
  HWY_ALIGN T bb[HWY_MAX_BYTES / sizeof(T)] = {};
  std::memcpy(ba, a + i, (n - i) * sizeof(T));
  if (b != nullptr) std::memcpy(bb, b + i, (n - i) * sizeof(T));
  const auto vb = b != nullptr ? hn::Load(d, bb) : vs;
  hn::Store(hn::IfThenElse(MaskAt(d, mask, i, n - i), hn::Load(d, ba), vb), d, ba);
  std::memcpy(dst + i, ba, (n - i) * sizeof(T));
}

void SelectImpl(size_t elem_bytes, void* dst, const uint8_t* mask, const void* a, const void* b,
                uint32_t s, size_t n) {
  if (elem_bytes == 4) {
    return SelectT(static_cast<uint32_t*>(dst), mask, static_cast<const uint32_t*>(a),
                   static_cast<const uint32_t*>(b), s, n);
  }
  SelectT(static_cast<uint16_t*>(dst), mask, static_cast<const uint16_t*>(a),
          static_cast<const uint16_t*>(b), static_cast<uint16_t>(s), n);
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tessera::kernel::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::kernel::vec {
namespace {

// int32 -> float with a directed, away or odd mode: rare enough (only |v| > 2^24 is inexact)
// to be done one element at a time in double, where v is exact.
float I32ToF32Rounded(int32_t v, RoundMode mode) {
  const double w = v;
  float f = static_cast<float>(w);  // nearest even
  const double b = f;
  const float inf = std::numeric_limits<float>::infinity();
  switch (mode) {
    case RoundMode::CAST_FLOOR:
      return b > w ? std::nextafter(f, -inf) : f;
    case RoundMode::CAST_CEIL:
      return b < w ? std::nextafter(f, inf) : f;
    case RoundMode::CAST_TRUNC:
      return std::fabs(b) > std::fabs(w) ? std::nextafter(f, 0.0f) : f;
    case RoundMode::CAST_ROUND: {
      if (!(std::fabs(b) < std::fabs(w))) return f;
      const float away = std::nextafter(f, std::copysign(inf, f));
      return std::fabs(double{away}) - std::fabs(w) == std::fabs(w) - std::fabs(b) ? away : f;
    }
    case RoundMode::CAST_ODD: {
      if (b == w) return f;
      const float t = std::fabs(b) > std::fabs(w) ? std::nextafter(f, 0.0f) : f;
      return std::bit_cast<float>(std::bit_cast<uint32_t>(t) | 1u);
    }
    default:
      return f;
  }
}

}  // namespace

HWY_EXPORT(CastImpl);
HWY_EXPORT(CompareImpl);
HWY_EXPORT(CompareScalarImpl);
HWY_EXPORT(SelectImpl);

bool Cast(DType to, DType from, RoundMode mode, void* dst, const void* src, size_t n) {
  if (to == DType::kF32 && from == DType::kI32 && mode != RoundMode::CAST_NONE &&
      mode != RoundMode::CAST_RINT) {
    const auto* in = static_cast<const int32_t*>(src);
    auto* out = static_cast<float*>(dst);
    for (size_t i = 0; i < n; ++i)
      out[i] = I32ToF32Rounded(in[i], mode);
    return true;
  }
  return HWY_DYNAMIC_DISPATCH(CastImpl)(to, from, mode, dst, src, n);
}
// Through an int32 chunk: bytes widen exactly, and half -> int32 already rounds by `mode` and
// saturates (NaN to 0), so clamping to the byte range saturates as the vendor's Cast does.
void CastByteToHalf(bool is_signed, half* dst, const void* src, size_t n) {
  constexpr size_t kChunk = 1024;
  int32_t buf[kChunk];
  const auto* in = static_cast<const uint8_t*>(src);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    for (size_t j = 0; j < m; ++j)
      buf[j] = is_signed ? int32_t{static_cast<int8_t>(in[i + j])} : int32_t{in[i + j]};
    HWY_DYNAMIC_DISPATCH(CastImpl)(DType::kF16, DType::kI32, RoundMode::CAST_NONE, dst + i, buf, m);
  }
}
namespace {
bool CastHalfToClamped(int32_t lo, int32_t hi, RoundMode mode, uint8_t* out, const half* src,
                       size_t n) {
  if (mode == RoundMode::CAST_ODD) return false;
  constexpr size_t kChunk = 1024;
  int32_t buf[kChunk];
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    HWY_DYNAMIC_DISPATCH(CastImpl)(DType::kI32, DType::kF16, mode, buf, src + i, m);
    for (size_t j = 0; j < m; ++j)
      out[i + j] = static_cast<uint8_t>(std::clamp(buf[j], lo, hi));
  }
  return true;
}
}  // namespace
bool CastHalfToByte(bool is_signed, RoundMode mode, void* dst, const half* src, size_t n) {
  return CastHalfToClamped(is_signed ? -128 : 0, is_signed ? 127 : 255, mode,
                           static_cast<uint8_t*>(dst), src, n);
}
bool CastHalfToInt4(RoundMode mode, int8_t* dst, const half* src, size_t n) {
  return CastHalfToClamped(-8, 7, mode, reinterpret_cast<uint8_t*>(dst), src, n);
}
void Compare(CMPMODE mode, DType t, uint8_t* dst, const void* a, const void* b, size_t n) {
  HWY_DYNAMIC_DISPATCH(CompareImpl)(mode, t, dst, a, b, n);
}
void CompareScalar(CMPMODE mode, DType t, uint8_t* dst, const void* a, Scalar s, size_t n) {
  HWY_DYNAMIC_DISPATCH(CompareScalarImpl)(mode, t, dst, a, s, n);
}
void Select(size_t elem_bytes, void* dst, const uint8_t* mask, const void* a, const void* b,
            uint32_t s, size_t n) {
  HWY_DYNAMIC_DISPATCH(SelectImpl)(elem_bytes, dst, mask, a, b, s, n);
}

}  // namespace tessera::kernel::vec
#endif  // HWY_ONCE
