// The math library's accuracy measurement, shared by the ctest sweep (math_accuracy_test.cc, a
// strided walk over the fp32 bit patterns) and tessera_math_accuracy (every bit pattern, for the
// table in docs/kernel_vector.md): long double references, ulp distances in fp32, bfloat16 and
// half, and the sweep itself through the vector instructions' dispatch entry.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tessera/core/float16.h"
#include "tessera/kernel/detail/vector_dispatch.h"

namespace tessera::kernel::testing {

// `ref` is the long double reference; `ref_fast` the same formula in double, accurate to ~1e-8
// fp32 ulp, which the sweeps use to skip long double wherever the error is clearly below the
// worst seen so far or below 0.01 ulp (the reported maxima, all >= 0.5, are long double's).
struct MathFunction {
  const char* name;
  vec::UnaryOp op;
  long double (*ref)(long double);
  double (*ref_fast)(double);
};

template <class T>
T SigmoidRef(T x) {
  return T(1) / (T(1) + std::exp(-x));
}
// x * sigmoid(2u): the tanh form without 1 + tanh(u)'s cancellation, which would lose every
// digit of the reference in the tail.
template <class T>
T GeluTanhRef(T x) {
  const T u = T(0.79788456080286535587989211986876373L) * (x + T(0.044715L) * x * x * x);
  return x / (T(1) + std::exp(T(-2) * u));
}
template <class T>
T GeluErfRef(T x) {
  return T(0.5) * x * std::erfc(-x * T(0.70710678118654752440084436210484903L));
}

#define TESSERA_MATH_REF(NAME, OP, EXPR)                                                      \
  MathFunction {                                                                              \
    NAME, vec::UnaryOp::OP, [](long double x) { return EXPR; }, [](double x) { return EXPR; } \
  }

inline const std::vector<MathFunction>& MathFunctions() {
  static const std::vector<MathFunction> fns = {
      TESSERA_MATH_REF("Exp", kExp, std::exp(x)),
      TESSERA_MATH_REF("Ln", kLn, std::log(x)),
      TESSERA_MATH_REF("Sigmoid", kSigmoid, SigmoidRef(x)),
      TESSERA_MATH_REF("Tanh", kTanh, std::tanh(x)),
      TESSERA_MATH_REF("Gelu", kGelu, GeluTanhRef(x)),
      TESSERA_MATH_REF("GeluErf", kGeluErf, GeluErfRef(x)),
      TESSERA_MATH_REF("Silu", kSilu, x * SigmoidRef(x)),
      TESSERA_MATH_REF("Rsqrt", kRsqrt, 1 / std::sqrt(x)),
      TESSERA_MATH_REF("Reciprocal", kReciprocal, 1 / x),
  };
  return fns;
}
#undef TESSERA_MATH_REF

// A binary floating format: `digits` significand bits (with the implicit one), the exponent of
// the least normal value, and the largest finite value.
struct Format {
  int digits;
  int min_exp;
  long double max;
};
inline constexpr Format kF32{24, -126, 3.40282346638528859812e+38L};
inline constexpr Format kBF16{8, -126, 3.38953138925153547590e+38L};
inline constexpr Format kF16{11, -14, 65504.0L};

// Distance in units in the last place of `fmt` between `got` and the exact `want` (the ulp of
// the binade of `want`, subnormal ulp below the normal range). NaN must match NaN; an exact value
// that rounds past the largest finite value must give an infinity of its sign. Infinite or NaN
// mismatches count as 1e30.
inline double UlpDistance(long double got, long double want, const Format& fmt) {
  if (std::isnan(want)) return std::isnan(got) ? 0.0 : 1e30;
  const long double overflow = fmt.max + std::ldexp(1.0L, std::ilogb(fmt.max) - fmt.digits);
  if (std::fabs(want) >= overflow) {
    return std::isinf(got) && std::signbit(got) == std::signbit(want) ? 0.0 : 1e30;
  }
  if (std::isnan(got) || std::isinf(got)) return 1e30;
  const int e = want == 0 ? fmt.min_exp : std::max(std::ilogb(want), fmt.min_exp);
  const long double ulp = std::ldexp(1.0L, e - fmt.digits + 1);
  return static_cast<double>(std::fabs(got - want) / ulp);
}

// UlpDistance in fp32 for a double `want`, from the bits (a few ns); the edge cases take the
// general path.
inline double UlpDistanceF32Fast(float got, double want) {
  constexpr double kOverflow = 3.4028235677973366e38;  // FLT_MAX + half an ulp
  if (std::fabs(want) >= kOverflow) {
    return std::isinf(got) && std::signbit(got) == std::signbit(want) ? 0.0 : 1e30;
  }
  if (!std::isfinite(got) || std::isnan(want)) return UlpDistance(got, want, kF32);
  const auto bits = std::bit_cast<uint64_t>(want);
  const int e = std::max(static_cast<int>((bits >> 52) & 0x7FF) - 1023, -126);
  const double ulp = std::bit_cast<double>(static_cast<uint64_t>(e - 23 + 1023) << 52);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

struct Worst {
  double ulp = 0;
  float at = 0;           // the input with the largest error
  double ulp_normal = 0;  // the same over inputs whose exact result is a normal number
  float at_normal = 0;
  void Add(double u, float x, bool normal) {
    if (u > ulp) ulp = u, at = x;
    if (normal && u > ulp_normal) ulp_normal = u, at_normal = x;
  }
  void Merge(const Worst& o) {
    Add(o.ulp, o.at, false);
    Add(o.ulp_normal, o.at_normal, true);
  }
};

// Runs `fn` through the fp32 vector instruction over bit patterns begin, begin + stride, ... below
// `end` (NaN and infinities skipped: they are checked by value), in chunks, and returns the
// largest ulp error.
inline Worst SweepF32(const MathFunction& fn, uint64_t begin, uint64_t end, uint64_t stride) {
  constexpr size_t kChunk = 4096;
  std::vector<float> in(kChunk), out(kChunk);
  Worst worst;
  uint64_t bits = begin;
  while (bits < end) {
    size_t n = 0;
    for (; n < kChunk && bits < end; bits += stride) {
      const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
      if (std::isfinite(x)) in[n++] = x;
    }
    vec::Unary(fn.op, vec::DType::kF32, out.data(), in.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const double fast = fn.ref_fast(in[i]);
      const bool normal = std::fabs(fast) >= std::numeric_limits<float>::min();
      const double u = UlpDistanceF32Fast(out[i], fast);
      // Errors below 0.01 ulp never set the maximum (every function's is >= 0.5).
      if (u + 1e-3 < std::max(0.01, normal ? worst.ulp_normal : worst.ulp)) continue;
      const long double want = fn.ref(in[i]);
      worst.Add(UlpDistance(out[i], want, kF32), in[i],
                std::fabs(want) >= std::numeric_limits<float>::min());
    }
  }
  return worst;
}

// Every finite value (every `step`-th bit pattern) of a 16-bit type (vec::DType::kBF16 or kF16)
// through the instruction, in ulps of that type.
inline Worst Sweep16(const MathFunction& fn, vec::DType t, uint32_t step = 1) {
  std::vector<uint16_t> in, out;
  for (uint32_t b = 0; b < 65536; b += step) {
    const auto bits = static_cast<uint16_t>(b);
    const float x = t == vec::DType::kBF16 ? Bfloat16BitsToFloat(bits) : HalfBitsToFloat(bits);
    if (std::isfinite(x)) in.push_back(bits);
  }
  out.resize(in.size());
  vec::Unary(fn.op, t, out.data(), in.data(), in.size());
  const Format& fmt = t == vec::DType::kBF16 ? kBF16 : kF16;
  Worst worst;
  for (size_t i = 0; i < in.size(); ++i) {
    const auto to_f = [t](uint16_t b) {
      return t == vec::DType::kBF16 ? Bfloat16BitsToFloat(b) : HalfBitsToFloat(b);
    };
    const float x = to_f(in[i]);
    const long double least_normal = std::ldexp(1.0L, fmt.min_exp);
    const double fast = fn.ref_fast(x);
    const bool normal = std::fabs(fast) >= least_normal;
    if (UlpDistance(to_f(out[i]), fast, fmt) + 1e-3 <
        std::max(0.01, normal ? worst.ulp_normal : worst.ulp)) {
      continue;
    }
    const long double want = fn.ref(x);
    worst.Add(UlpDistance(to_f(out[i]), want, fmt), x, std::fabs(want) >= least_normal);
  }
  return worst;
}

}  // namespace tessera::kernel::testing
