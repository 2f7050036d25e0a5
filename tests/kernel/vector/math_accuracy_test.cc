// The shared math library (tessera/kernel/detail/math-inl.h) through the vector instructions:
//   - a strided walk over the fp32 bit patterns (every 40009th, ~107k per function, all signs,
//     subnormals and both tails) against long double, max ulp within the docs' table, on every
//     compiled Highway target;
//   - every finite bfloat16 and half value (the fp32 result rounded once: <= 0.5 ulp + a hair)
//     on the best target, every 13th on the others;
//   - special values one by one: NaN, +-Inf, +-0, subnormals, and the overflow and underflow
//     thresholds.
// tessera_math_accuracy runs the same walk over all 2^32 patterns for the table itself.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "math_reference.h"
#include "vector_test_util.h"

namespace tessera::kernel::testing {
namespace {

constexpr uint64_t kStride = 40009;  // prime, so every exponent and mantissa pattern is hit

class MathTest : public TargetTest {};

// Max fp32 ulp allowed per function: the docs' table (measured on AVX3 over all 2^32 patterns)
// rounded up, and for targets without
// FMA (SSE4, SCALAR), where residuals are not exact, a looser bound.
struct Bound {
  const char* name;
  double fma;
  double no_fma;
};
constexpr Bound kBounds[] = {
    {"Exp", 0.85, 1.0}, {"Ln", 1.0, 1.0},      {"Sigmoid", 2.5, 3.0},
    {"Tanh", 1.6, 2.5}, {"Gelu", 220, 220},    {"GeluErf", 7.1, 64},
    {"Silu", 3.5, 4.0}, {"Rsqrt", 0.51, 0.51}, {"Reciprocal", 0.5, 0.5},
};

double BoundFor(const std::string& name, bool fma) {
  for (const Bound& b : kBounds) {
    if (name == b.name) return fma ? b.fma : b.no_fma;
  }
  ADD_FAILURE() << "no bound for " << name;
  return 0;
}

TEST_P(MathTest, MathFp32StridedWalkOverAllBitPatterns) {
  const bool fma = GetParam() == HWY_AVX2 || GetParam() == HWY_AVX3;
  for (const MathFunction& fn : MathFunctions()) {
    const Worst w = SweepF32(fn, 0, uint64_t{1} << 32, kStride);
    EXPECT_LE(w.ulp, BoundFor(fn.name, fma)) << fn.name << " at x=" << w.at;
  }
}

// Every value on the best target, every 13th bit pattern on the others.
TEST_P(MathTest, Math16BitTypesEveryValue) {
  const uint32_t step = GetParam() == CompiledTargets().back() ? 1 : 13;
  for (const MathFunction& fn : MathFunctions()) {
    for (vec::DType t : {vec::DType::kBF16, vec::DType::kF16}) {
      const Worst w = Sweep16(fn, t, step);
      EXPECT_LE(w.ulp, 0.51) << fn.name << (t == vec::DType::kBF16 ? " bf16" : " f16")
                             << " at x=" << w.at;
    }
  }
}

float F(uint32_t bits) {
  return std::bit_cast<float>(bits);
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kMin = std::numeric_limits<float>::min();
constexpr float kDen = std::numeric_limits<float>::denorm_min();

// One special input and what the function must give: an exact value (bit-exact, so the sign of
// zero counts), NaN, or "as the reference" (within the bound, and in the same class: zero,
// subnormal, normal or infinite as the correctly rounded result).
struct Special {
  float x;
  enum Kind { kExact, kNaN, kRef } kind;
  float want = 0;
};

std::vector<Special> SpecialsFor(const std::string& name) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<Special> s = {{nan, Special::kNaN}, {-nan, Special::kNaN}};
  const auto exact = [&](float x, float want) { s.push_back({x, Special::kExact, want}); };
  const auto ref = [&](float x) { s.push_back({x, Special::kRef}); };
  const auto is_nan = [&](float x) { s.push_back({x, Special::kNaN}); };
  for (float x : {kMin, -kMin, kDen, -kDen, kMax, -kMax, 1.0f, -1.0f})
    ref(x);
  if (name == "Exp") {
    exact(kInf, kInf), exact(-kInf, 0.0f), exact(0.0f, 1.0f), exact(-0.0f, 1.0f);
    ref(F(0x42B17217)), ref(F(0x42B17218));  // 88.72283 (largest finite result), next -> Inf
    ref(F(0xC2AEAC4F)), ref(F(0xC2AEAC50));  // about -87.3365: least normal result
    ref(F(0xC2CFF1B4)), ref(F(0xC2CFF1B5));  // about -103.972: least subnormal result, then 0
    ref(-104.0f), exact(-200.0f, 0.0f), exact(200.0f, kInf);
  } else if (name == "Ln") {
    exact(kInf, kInf), is_nan(-kInf), exact(0.0f, -kInf), exact(-0.0f, -kInf), exact(1.0f, 0.0f);
    is_nan(-kDen);
  } else if (name == "Sigmoid") {
    exact(kInf, 1.0f), exact(-kInf, 0.0f), exact(0.0f, 0.5f), exact(-0.0f, 0.5f);
    exact(20.0f, 1.0f), ref(-87.3f), ref(-100.0f), ref(-103.2f), ref(-103.3f), exact(-200.0f, 0.0f);
  } else if (name == "Tanh") {
    exact(kInf, 1.0f), exact(-kInf, -1.0f), exact(0.0f, 0.0f), exact(-0.0f, -0.0f);
    exact(10.0f, 1.0f), exact(-10.0f, -1.0f), ref(0.5493f), ref(0.5494f), ref(1e-20f);
  } else if (name == "Gelu" || name == "GeluErf" || name == "Silu") {
    exact(kInf, kInf), exact(-kInf, -0.0f), exact(0.0f, 0.0f), exact(-0.0f, -0.0f);
    exact(-200.0f, -0.0f), ref(-9.0f), ref(-13.0f), ref(-103.0f), ref(0.7f), ref(-0.7f);
  } else if (name == "Rsqrt") {
    exact(kInf, 0.0f), is_nan(-kInf), exact(0.0f, kInf), exact(-0.0f, -kInf), is_nan(-1.0f);
    exact(4.0f, 0.5f), exact(0.25f, 2.0f), ref(F(0x00000003)), ref(1e-31f);
  } else if (name == "Reciprocal") {
    exact(kInf, 0.0f), exact(-kInf, -0.0f), exact(0.0f, kInf), exact(-0.0f, -kInf);
    exact(kDen, kInf), ref(kMax), ref(F(0x7E800000));  // 2^126 -> 2^-126, the least normal
  }
  return s;
}

int ClassOf(long double v) {
  if (std::isnan(v)) return 0;
  if (std::isinf(v)) return 1;
  if (v == 0) return 2;
  return std::fabs(v) < kMin ? 3 : 4;
}

TEST_P(MathTest, MathSpecialValues) {
  const bool fma = GetParam() == HWY_AVX2 || GetParam() == HWY_AVX3;
  for (const MathFunction& fn : MathFunctions()) {
    const std::vector<Special> specials = SpecialsFor(fn.name);
    std::vector<float> in, out(specials.size());
    for (const Special& s : specials)
      in.push_back(s.x);
    vec::Unary(fn.op, vec::DType::kF32, out.data(), in.data(), in.size());
    for (size_t i = 0; i < specials.size(); ++i) {
      const Special& s = specials[i];
      const std::string what =
          std::string(fn.name) + "(" + std::to_string(s.x) + ") = " + std::to_string(out[i]);
      switch (s.kind) {
        case Special::kNaN:
          EXPECT_TRUE(std::isnan(out[i])) << what;
          break;
        case Special::kExact:
          EXPECT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(s.want))
              << what << ", want " << s.want;
          break;
        case Special::kRef: {
          const long double want = fn.ref(s.x);
          EXPECT_LE(UlpDistance(out[i], want, kF32), BoundFor(fn.name, fma)) << what;
          EXPECT_EQ(ClassOf(out[i]), ClassOf(static_cast<float>(want)))
              << what << ", correctly rounded " << static_cast<float>(want);
          break;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, MathTest, ::testing::ValuesIn(CompiledTargets()),
                         TargetParamName);

}  // namespace
}  // namespace tessera::kernel::testing
