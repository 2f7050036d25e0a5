// Max-ulp accuracy of the math functions added to tessera's math library for the vendor's
// advanced APIs (Acosh, Erf, Pow, Fmod, Frac, and the Log2 / Log10 / Swish / GeGLU / SwiGLU
// compositions), through the dispatched kernels every target runs, against long double
// references on random inputs over each function's range plus the special values.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tessera/compat/kernel/adv/detail/math_dispatch.h"

namespace {

namespace adv = tessera::compat::adv;
using adv::DType;

// |got - want| in units of the fp32 ulp at want (subnormal spacing below FLT_MIN); 0 when both
// are the same NaN class or the same infinity, a huge value when only one is.
double UlpError(float got, long double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0.0 : 1e30;
  if (std::isnan(got)) return 1e30;
  if (std::isinf(want) || std::fabs(want) > static_cast<long double>(FLT_MAX) * 1.0000001L) {
    return std::isinf(got) && (got > 0) == (want > 0) ? 0.0 : 1e30;
  }
  const long double a = std::fabs(want);
  const int e = a < static_cast<long double>(FLT_MIN) ? -126 : std::ilogb(static_cast<double>(a));
  const long double ulp = std::ldexp(1.0L, e - 23);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp);
}

std::vector<float> LogUniform(std::mt19937& rng, size_t n, float lo, float hi, bool signs) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  std::vector<float> v(n);
  for (auto& x : v) {
    x = static_cast<float>(std::exp(u(rng)));
    if (signs && (rng() & 1)) x = -x;
  }
  return v;
}

template <class Ref>
double MaxUlpUnary(adv::UnaryFn fn, const std::vector<float>& x, Ref ref, float param = 0.0f) {
  std::vector<float> y(x.size() + 1, 12345.0f);
  adv::Unary(fn, DType::kF32, y.data(), x.data(), x.size(), param);
  EXPECT_EQ(y.back(), 12345.0f) << "wrote past the count";
  double worst = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = UlpError(y[i], ref(static_cast<long double>(x[i])));
    EXPECT_LT(e, 1e29) << "x = " << x[i] << " got " << y[i];
    worst = std::max(worst, e);
  }
  return worst;
}

template <class Ref>
double MaxUlpBinary(adv::BinaryFn fn, const std::vector<float>& a, const std::vector<float>& b,
                    Ref ref, float param = 0.0f) {
  std::vector<float> y(a.size() + 1, 12345.0f);
  adv::Binary(fn, DType::kF32, y.data(), a.data(), b.data(), a.size(), 0.0f, 0.0f, param);
  EXPECT_EQ(y.back(), 12345.0f) << "wrote past the count";
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e =
        UlpError(y[i], ref(static_cast<long double>(a[i]), static_cast<long double>(b[i])));
    EXPECT_LT(e, 1e29) << "a = " << a[i] << " b = " << b[i] << " got " << y[i];
    worst = std::max(worst, e);
  }
  return worst;
}

constexpr size_t kN = 200003;  // odd: every target's tail path runs
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The measured figure, for the docs table (docs/ascendc_adv_math.md).
double Report(const char* name, double worst) {
  testing::Test::RecordProperty(name, std::to_string(worst));
  std::printf("max ulp %-8s %.3f\n", name, worst);
  return worst;
}

TEST(AdvMathAccuracy, Acosh) {
  std::mt19937 rng(11);
  std::vector<float> x = LogUniform(rng, kN, 1.0f, 3e38f, false);
  const std::vector<float> near = LogUniform(rng, kN, 1e-7f, 1.0f, false);
  for (float t : near)
    x.push_back(1.0f + t);
  x.insert(x.end(), {1.0f, 2.0f, 268435456.0f, FLT_MAX, kInf, 0.5f, -1.0f, kNaN});
  const double worst =
      Report("Acosh", MaxUlpUnary(adv::UnaryFn::kAcosh, x, [](long double v) {
               return v < 1 ? std::numeric_limits<long double>::quiet_NaN() : std::acosh(v);
             }));
  EXPECT_LE(worst, 3.0);
}

TEST(AdvMathAccuracy, Erf) {
  std::mt19937 rng(12);
  std::vector<float> x = LogUniform(rng, kN, 1e-30f, 6.0f, true);
  std::uniform_real_distribution<float> u(-4.5f, 4.5f);
  for (size_t i = 0; i < kN; ++i)
    x.push_back(u(rng));
  x.insert(x.end(), {0.0f, -0.0f, 0.5f, -0.5f, 4.0f, kInf, -kInf, FLT_MAX, kNaN, 1e-45f});
  const double worst =
      Report("Erf", MaxUlpUnary(adv::UnaryFn::kErf, x, [](long double v) { return std::erf(v); }));
  EXPECT_LE(worst, 3.0);
  std::vector<float> z = {-0.0f};
  std::vector<float> out(1);
  adv::Unary(adv::UnaryFn::kErf, DType::kF32, out.data(), z.data(), 1, 0.0f);
  EXPECT_TRUE(std::signbit(out[0])) << "erf(-0) = -0";
}

TEST(AdvMathAccuracy, Pow) {
  std::mt19937 rng(13);
  std::vector<float> a, b;
  std::uniform_real_distribution<float> ey(-30.0f, 30.0f);
  const std::vector<float> bases = LogUniform(rng, kN, 1e-6f, 1e6f, false);
  for (float x : bases) {
    a.push_back(x);
    // Keep |y ln x| <= 87 so the result stays finite and normal.
    const float lim = 87.0f / std::max(1e-3f, std::fabs(std::log(x)));
    b.push_back(std::max(-lim, std::min(lim, ey(rng))));
  }
  std::uniform_int_distribution<int> iy(-20, 20);
  std::uniform_real_distribution<float> nb(-8.0f, -0.125f);
  for (size_t i = 0; i < kN / 4; ++i) {
    a.push_back(nb(rng));
    b.push_back(static_cast<float>(iy(rng)));  // negative base, integral exponent
  }
  const float specials[][2] = {
      {2.0f, 0.0f},   {kNaN, 0.0f},  {1.0f, kNaN},   {-2.0f, 0.5f},   {0.0f, 3.0f},  {-0.0f, 3.0f},
      {-0.0f, -3.0f}, {0.0f, -2.0f}, {kInf, 2.0f},   {-kInf, 3.0f},   {-kInf, 2.0f}, {2.0f, kInf},
      {0.5f, kInf},   {-2.0f, kInf}, {2.0f, 200.0f}, {2.0f, -200.0f}, {kNaN, 1.0f},  {3.0f, kNaN}};
  for (const auto& s : specials) {
    a.push_back(s[0]);
    b.push_back(s[1]);
  }
  const double worst =
      Report("Pow", MaxUlpBinary(adv::BinaryFn::kPow, a, b, [](long double x, long double y) {
               if (y == 0 || x == 1) return 1.0L;
               return std::pow(x, y);
             }));
  EXPECT_LE(worst, 4.0);
}

TEST(AdvMathAccuracy, FmodIsExact) {
  std::mt19937 rng(14);
  std::vector<float> a = LogUniform(rng, kN, 1e-40f, 3e38f, true);
  std::vector<float> b = LogUniform(rng, kN, 1e-44f, 3e38f, true);
  const float specials[][2] = {{5.0f, 0.0f}, {kInf, 2.0f},  {kNaN, 2.0f},     {2.0f, kNaN},
                               {3.0f, kInf}, {-3.0f, kInf}, {-0.0f, 2.0f},    {0.0f, -2.0f},
                               {7.0f, 7.0f}, {-7.5f, 2.0f}, {FLT_MAX, 1e-45f}};
  for (const auto& s : specials) {
    a.push_back(s[0]);
    b.push_back(s[1]);
  }
  const double worst = MaxUlpBinary(adv::BinaryFn::kFmod, a, b,
                                    [](long double x, long double y) { return std::fmod(x, y); });
  EXPECT_EQ(worst, 0.0);
}

TEST(AdvMathAccuracy, RoundingAndFracAreExact) {
  std::mt19937 rng(15);
  std::vector<float> x = LogUniform(rng, kN, 1e-3f, 3e7f, true);
  x.insert(x.end(), {0.5f, -0.5f, 1.5f, 2.5f, -2.5f, kInf, -kInf, kNaN, -0.0f});
  EXPECT_EQ(MaxUlpUnary(adv::UnaryFn::kFrac, x,
                        [](long double v) {
                          if (std::isinf(v)) return std::copysign(0.0L, v);
                          return v - std::trunc(v);
                        }),
            0.0);
  EXPECT_EQ(MaxUlpUnary(adv::UnaryFn::kRint, x, [](long double v) { return std::nearbyint(v); }),
            0.0);
  EXPECT_EQ(MaxUlpUnary(adv::UnaryFn::kCeil, x, [](long double v) { return std::ceil(v); }), 0.0);
  EXPECT_EQ(MaxUlpUnary(adv::UnaryFn::kFloor, x, [](long double v) { return std::floor(v); }), 0.0);
  EXPECT_EQ(MaxUlpUnary(adv::UnaryFn::kTrunc, x, [](long double v) { return std::trunc(v); }), 0.0);
}

TEST(AdvMathAccuracy, LogarithmsAndGatedActivations) {
  std::mt19937 rng(16);
  const std::vector<float> pos = LogUniform(rng, kN, 1e-38f, 3e38f, false);
  EXPECT_LE(Report("Log2", MaxUlpUnary(adv::UnaryFn::kLog2, pos,
                                       [](long double v) { return std::log2(v); })),
            2.0);
  EXPECT_LE(Report("Log10", MaxUlpUnary(adv::UnaryFn::kLog10, pos,
                                        [](long double v) { return std::log10(v); })),
            2.0);
  std::uniform_real_distribution<float> u(-20.0f, 20.0f);
  std::vector<float> a(kN), b(kN);
  for (size_t i = 0; i < kN; ++i) {
    a[i] = u(rng);
    b[i] = u(rng);
  }
  const float beta = 1.702f;
  EXPECT_LE(
      Report("Swish", MaxUlpUnary(
                          adv::UnaryFn::kSwish, a,
                          [beta](long double v) { return v / (1 + std::exp(-beta * v)); }, beta)),
      40.0);  // the tail amplifies beta x's rounding: ~|beta x| ulp for x < 0
  EXPECT_LE(Report("SwiGLU", MaxUlpBinary(
                                 adv::BinaryFn::kSwiGlu, a, b,
                                 [beta](long double x, long double y) {
                                   return x * y / (1 + std::exp(-beta * y));
                                 },
                                 beta)),
            40.0);
  // GeGLU: a * gelu_tanh(b) on the range where gelu's tail is not subnormal.
  std::uniform_real_distribution<float> g(-5.0f, 20.0f);
  for (size_t i = 0; i < kN; ++i)
    b[i] = g(rng);
  EXPECT_LE(Report("GeGLU", MaxUlpBinary(adv::BinaryFn::kGeGlu, a, b,
                                         [](long double x, long double y) {
                                           const long double s =
                                               0.7978845608028654L * (y + 0.044715L * y * y * y);
                                           return x * y / (1 + std::exp(-2 * s));
                                         })),
            32.0);
}

}  // namespace
