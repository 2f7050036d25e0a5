// Integer vector instructions: And / Or / Not (tensor and scalar forms), shifts by a scalar or
// by a tensor of amounts, and index sequences (CreateVecIndex). 2- and 4-byte lanes.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "integer.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "vector-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::kernel::vec {
namespace HWY_NAMESPACE {
namespace {

// Like Map1 / Map2 for any lane type (the tails go through a stack vector).
template <class T, class Fn>
void MapAny(T* dst, const T* a, const T* b, size_t n, const Fn& fn) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto vb = b != nullptr ? hn::LoadU(d, b + i) : hn::Zero(d);
    hn::StoreU(fn(d, hn::LoadU(d, a + i), vb), d, dst + i);
  }
  if (i == n) return;
  HWY_ALIGN T ba[HWY_MAX_BYTES / sizeof(T)] = {};
  HWY_ALIGN T bb[HWY_MAX_BYTES / sizeof(T)] = {};
  std::memcpy(ba, a + i, (n - i) * sizeof(T));
  if (b != nullptr) std::memcpy(bb, b + i, (n - i) * sizeof(T));
  hn::Store(fn(d, hn::Load(d, ba), hn::Load(d, bb)), d, ba);
  std::memcpy(dst + i, ba, (n - i) * sizeof(T));
}

template <class T>
void BitwiseT(BitOp op, T* dst, const T* a, const T* b, T s, size_t n) {
  using V = hn::Vec<hn::ScalableTag<T>>;
  const V vs = hn::Set(hn::ScalableTag<T>(), s);
  if (op == BitOp::kAnd) {
    return MapAny(dst, a, b, n, [&](auto, V x, V y) { return hn::And(x, b != nullptr ? y : vs); });
  }
  MapAny(dst, a, b, n, [&](auto, V x, V y) { return hn::Or(x, b != nullptr ? y : vs); });
}

void BitwiseImpl(BitOp op, size_t elem_bytes, void* dst, const void* a, const void* b, uint32_t s,
                 size_t n) {
  if (elem_bytes == 4) {
    return BitwiseT(op, static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(a),
                    static_cast<const uint32_t*>(b), s, n);
  }
  BitwiseT(op, static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(a),
           static_cast<const uint16_t*>(b), static_cast<uint16_t>(s), n);
}

template <class T>
void NotT(T* dst, const T* src, size_t n) {
  MapAny(dst, src, static_cast<const T*>(nullptr), n,
         [](auto, auto x, auto) { return hn::Not(x); });
}

void BitwiseNotImpl(size_t elem_bytes, void* dst, const void* src, size_t n) {
  if (elem_bytes == 4) {
    return NotT(static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src), n);
  }
  NotT(static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src), n);
}

// T is the signed or unsigned lane type (the right shift's kind); amounts are read as unsigned.
template <class T>
void ShiftT(ShiftOp op, T* dst, const T* src, const T* amounts, uint32_t bits, size_t n) {
  const hn::ScalableTag<T> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  using V = hn::Vec<decltype(d)>;
  constexpr int kWidth = static_cast<int>(sizeof(T) * 8);
  if (amounts == nullptr) {
    // A shift of the width or more moves every bit out, as for per-element amounts below.
    if (bits >= static_cast<uint32_t>(kWidth)) {
      if (op == ShiftOp::kRight && hwy::IsSigned<T>()) {
        return MapAny(dst, src, static_cast<const T*>(nullptr), n,
                      [](auto, V x, V) { return hn::ShiftRight<kWidth - 1>(x); });
      }
      return MapAny(dst, src, static_cast<const T*>(nullptr), n,
                    [](auto d2, V, V) { return hn::Zero(d2); });
    }
    const int b = static_cast<int>(bits);
    if (op == ShiftOp::kLeft) {
      return MapAny(dst, src, static_cast<const T*>(nullptr), n,
                    [b](auto, V x, V) { return hn::ShiftLeftSame(x, b); });
    }
    return MapAny(dst, src, static_cast<const T*>(nullptr), n,
                  [b](auto, V x, V) { return hn::ShiftRightSame(x, b); });
  }
  // Amounts of kWidth or more (or negative) shift every bit out: 0, or the sign for an
  // arithmetic right shift. The shift itself runs on an amount kept in range.
  const auto width = hn::Set(du, static_cast<hn::TFromD<decltype(du)>>(kWidth));
  const auto top = hn::Set(du, static_cast<hn::TFromD<decltype(du)>>(kWidth - 1));
  MapAny(dst, src, amounts, n, [&](auto, V x, V amount) {
    const auto ua = hn::BitCast(du, amount);
    const auto out_of_range = hn::RebindMask(d, hn::Not(hn::Lt(ua, width)));
    const V in_range = hn::BitCast(d, hn::Min(ua, top));
    if (op == ShiftOp::kLeft) return hn::IfThenZeroElse(out_of_range, (x << in_range));
    const V shifted = (x >> in_range);
    if constexpr (hwy::IsSigned<T>()) {
      return hn::IfThenElse(out_of_range, hn::ShiftRight<kWidth - 1>(x), shifted);
    }
    return hn::IfThenZeroElse(out_of_range, shifted);
  });
}

void ShiftImpl(ShiftOp op, size_t elem_bytes, bool is_signed, void* dst, const void* src,
               const void* amounts, uint32_t bits, size_t n) {
  if (elem_bytes == 4) {
    if (is_signed) {
      return ShiftT(op, static_cast<int32_t*>(dst), static_cast<const int32_t*>(src),
                    static_cast<const int32_t*>(amounts), bits, n);
    }
    return ShiftT(op, static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src),
                  static_cast<const uint32_t*>(amounts), bits, n);
  }
  if (is_signed) {
    return ShiftT(op, static_cast<int16_t*>(dst), static_cast<const int16_t*>(src),
                  static_cast<const int16_t*>(amounts), bits, n);
  }
  ShiftT(op, static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src),
         static_cast<const uint16_t*>(amounts), bits, n);
}

// dst[i] = first + i, one vector at a time from an Iota advanced by the lane count.
template <class T>
void IotaT(T* dst, T first, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  auto v = hn::Iota(d, first);
  const auto step = hn::Set(d, static_cast<T>(N));
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(v, d, dst + i);
    v = hn::Add(v, step);
  }
  if (i == n) return;
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(v, d, buf);
  std::memcpy(dst + i, buf, (n - i) * sizeof(T));
}

// dst[j] = first + (base + j): base + j is exact in fp32 below 2^24, so each element is one
// rounding of the exact value (no accumulated error).
void IotaF32(float* dst, float first, size_t base, size_t n) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const VF lanes = hn::Iota(d, 0.0f);
  const VF vfirst = hn::Set(d, first);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(hn::Add(vfirst, hn::Add(lanes, hn::Set(d, static_cast<float>(base + i)))), d,
               dst + i);
  }
  if (i == n) return;
  HWY_ALIGN float buf[kMaxLanes32];
  hn::Store(hn::Add(vfirst, hn::Add(lanes, hn::Set(d, static_cast<float>(base + i)))), d, buf);
  std::memcpy(dst + i, buf, (n - i) * sizeof(float));
}

void IotaImpl(size_t elem_bytes, bool is_float, void* dst, Scalar first, size_t n) {
  if (!is_float) {
    if (elem_bytes == 4) return IotaT(static_cast<int32_t*>(dst), first.i, n);
    // int16 wraps modulo 2^16: compute in uint16 lanes.
    return IotaT(static_cast<uint16_t*>(dst), static_cast<uint16_t>(first.i), n);
  }
  if (elem_bytes == 4) return IotaF32(static_cast<float*>(dst), first.f, 0, n);
  HWY_ALIGN float buf[kChunk];
  auto* d16 = static_cast<uint16_t*>(dst);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    IotaF32(buf, first.f, i, m);
    Narrow16(DType::kF16, buf, d16 + i, m);
  }
}

// int16 arithmetic: Highway's integer Add/Sub/Mul wrap, as the vector unit's int16 ops do.
void BinaryI16Impl(BinaryOp op, int16_t* dst, const int16_t* a, const int16_t* b, size_t n) {
  using V = hn::Vec<hn::ScalableTag<int16_t>>;
  switch (op) {
    case BinaryOp::kAdd:
      return MapAny(dst, a, b, n, [](auto, V x, V y) { return hn::Add(x, y); });
    case BinaryOp::kSub:
      return MapAny(dst, a, b, n, [](auto, V x, V y) { return hn::Sub(x, y); });
    case BinaryOp::kMul:
      return MapAny(dst, a, b, n, [](auto, V x, V y) { return hn::Mul(x, y); });
    case BinaryOp::kMax:
      return MapAny(dst, a, b, n, [](auto, V x, V y) { return hn::Max(x, y); });
    case BinaryOp::kMin:
      return MapAny(dst, a, b, n, [](auto, V x, V y) { return hn::Min(x, y); });
    default:
      return;  // rejected at compile time in vector.h
  }
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tessera::kernel::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::kernel::vec {

HWY_EXPORT(BitwiseImpl);
HWY_EXPORT(BitwiseNotImpl);
HWY_EXPORT(ShiftImpl);
HWY_EXPORT(IotaImpl);
HWY_EXPORT(BinaryI16Impl);

void BinaryI16(BinaryOp op, int16_t* dst, const int16_t* a, const int16_t* b, size_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryI16Impl)(op, dst, a, b, n);
}

void Bitwise(BitOp op, size_t elem_bytes, void* dst, const void* a, const void* b, uint32_t s,
             size_t n) {
  HWY_DYNAMIC_DISPATCH(BitwiseImpl)(op, elem_bytes, dst, a, b, s, n);
}
void BitwiseNot(size_t elem_bytes, void* dst, const void* src, size_t n) {
  HWY_DYNAMIC_DISPATCH(BitwiseNotImpl)(elem_bytes, dst, src, n);
}
void Shift(ShiftOp op, size_t elem_bytes, bool is_signed, void* dst, const void* src,
           const void* amounts, uint32_t bits, size_t n) {
  HWY_DYNAMIC_DISPATCH(ShiftImpl)(op, elem_bytes, is_signed, dst, src, amounts, bits, n);
}
void Iota(size_t elem_bytes, bool is_float, void* dst, Scalar first, size_t n) {
  HWY_DYNAMIC_DISPATCH(IotaImpl)(elem_bytes, is_float, dst, first, n);
}

}  // namespace tessera::kernel::vec
#endif  // HWY_ONCE
