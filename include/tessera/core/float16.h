// half (IEEE 754 binary16) and bfloat16 storage types.
//
// Both are 16-bit containers converted to and from float with round-to-nearest-even. Conversions
// are exact for every value the narrower type can hold; NaN stays NaN with its sign and (as far as
// it fits) its payload; overflow rounds to infinity; float values below the smallest half subnormal
// round to signed zero. Arithmetic happens in float: convert, compute, convert back.
#pragma once

#include <bit>  // for files that reach std::bit_cast through this header (C++20 builds)
#include <cstdint>
#include <type_traits>

namespace tessera {

namespace detail {
// std::bit_cast for C++17 too (kernel-facing headers build as C++17, as CANN's kernels do).
template <class To, class From>
constexpr To BitCast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From), "BitCast: sizes differ");
  return __builtin_bit_cast(To, from);
}
}  // namespace detail

constexpr uint16_t FloatToHalfBits(float value) {
  const uint32_t x = detail::BitCast<uint32_t>(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {  // Inf or NaN
    if (abs == 0x7F800000u) return static_cast<uint16_t>(sign | 0x7C00u);
    uint32_t payload = (abs >> 13) & 0x3FFu;
    if (payload == 0) payload = 0x200u;  // keep it a NaN when the payload's high bits are zero
    return static_cast<uint16_t>(sign | 0x7C00u | payload);
  }
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520 -> Inf
  if (abs < 0x38800000u) {  // below 2^-14: half subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25 rounds to zero
    const uint32_t exponent = abs >> 23;
    const uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - exponent;  // result unit is 2^-24
    uint32_t rounded = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (rounded & 1u))) ++rounded;
    return static_cast<uint16_t>(sign | rounded);
  }
  uint32_t rebiased = abs - 0x38000000u;  // exponent bias 127 -> 15
  rebiased += 0xFFFu + ((rebiased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rebiased >> 13));
}

constexpr float HalfBitsToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1Fu) return detail::BitCast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    // Subnormal (or zero): mantissa * 2^-24 is exact in float.
    const float magnitude = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
    return sign ? -magnitude : magnitude;
  }
  return detail::BitCast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

constexpr uint16_t FloatToBfloat16Bits(float value) {
  const uint32_t x = detail::BitCast<uint32_t>(value);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

constexpr float Bfloat16BitsToFloat(uint16_t bits) {
  return detail::BitCast<float>(static_cast<uint32_t>(bits) << 16);
}

// A double rounded to float "to odd": an inexact result keeps its lowest bit set. Rounding that
// float again to half or bfloat16 (11 and 8 significant bits against float's 24) then gives what
// rounding the double once would; plain double -> float -> half rounds twice and can land on a
// half tie that the double was not on.
constexpr float DoubleToFloatRoundToOdd(double value) {
  const float f = static_cast<float>(value);
  const uint32_t bits = detail::BitCast<uint32_t>(f);
  if (static_cast<double>(f) == value || (bits & 0x7F800000u) == 0x7F800000u || (bits & 1u) != 0)
    return f;  // exact, infinite or NaN, or already odd
  const double magnitude = value < 0 ? -value : value;
  const double f_magnitude = f < 0 ? -static_cast<double>(f) : static_cast<double>(f);
  // One step of the magnitude toward the value (the sign bit stays).
  return detail::BitCast<float>(magnitude > f_magnitude ? bits + 1u : bits - 1u);
}

namespace detail {
template <class F>
constexpr float ToFloatForNarrowing(F value) {
  if constexpr (std::is_same_v<F, float>) {
    return value;
  } else {
    return DoubleToFloatRoundToOdd(static_cast<double>(value));
  }
}
}  // namespace detail

// IEEE binary16 storage type. Layout: exactly one uint16_t, so arrays map onto device buffers.
struct half {
  uint16_t bits = 0;

  constexpr half() = default;
  // Floating values convert implicitly, as the NPU's half does (`half alpha = 0.01;`), rounded
  // once to nearest even (a long double is rounded to double first).
  template <class F, std::enable_if_t<std::is_floating_point_v<F>, int> = 0>
  constexpr half(F value) : bits(FloatToHalfBits(detail::ToFloatForNarrowing(value))) {}  // NOLINT
  // Integers convert implicitly, as the NPU's half does (so `DataCopyPadExtParams<half> p =
  // {false, 0, 0, 0}` compiles): through float, exact below 2^24, then rounded once.
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  constexpr half(I value) : bits(FloatToHalfBits(static_cast<float>(value))) {}  // NOLINT
  static constexpr half FromBits(uint16_t raw) {
    half h;
    h.bits = raw;
    return h;
  }
  constexpr operator float() const { return HalfBitsToFloat(bits); }  // NOLINT: widening is exact
};

// bfloat16 (1 sign, 8 exponent, 7 mantissa bits) storage type.
struct bfloat16 {
  uint16_t bits = 0;

  constexpr bfloat16() = default;
  // Floating values convert implicitly, as half's do.
  template <class F, std::enable_if_t<std::is_floating_point_v<F>, int> = 0>
  constexpr bfloat16(F value)  // NOLINT
      : bits(FloatToBfloat16Bits(detail::ToFloatForNarrowing(value))) {}
  // Integers convert implicitly, as half's do (exact below 2^24).
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  constexpr bfloat16(I value) : bits(FloatToBfloat16Bits(static_cast<float>(value))) {}  // NOLINT
  static constexpr bfloat16 FromBits(uint16_t raw) {
    bfloat16 b;
    b.bits = raw;
    return b;
  }
  constexpr operator float() const { return Bfloat16BitsToFloat(bits); }  // NOLINT: exact
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);

}  // namespace tessera
