// Elementwise expressions against double-precision host references on random data, for every
// dtype and the sizes 1, 7, 4097 and 1000003 (tails, one tile, many tiles and blocks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tessera/elewise/elewise.h"
#include "test_util.h"

namespace tessera::elewise {
namespace {

using testing::DeviceBuffer;
using testing::ExpectAllNear;
using testing::RelTol;
using testing::RunAndSync;

constexpr auto OUT = ParamUsage::OUT;

template <class C>
using Op = DeviceAdapter<KernelBuilder<BlockBuilder<C>>>;

// out = (in1 + in2) * in3 - s, with s a runtime scalar.
template <class T>
struct NestedC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto in1 = PlaceHolder<1, Tn<T>>();
    auto in2 = PlaceHolder<2, Tn<T>>();
    auto in3 = PlaceHolder<3, Tn<T>>();
    auto s = PlaceHolder<4, float>();
    auto out = PlaceHolder<5, Tn<T>, OUT>();
    return (out = (in1 + in2) * in3 - s);
  }
};

// Binary ops, comparisons with Select, Pow with a runtime exponent, and two outputs through a
// named temporary.
template <class T>
struct MixC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto a = PlaceHolder<1, Tn<T>>();
    auto b = PlaceHolder<2, Tn<T>>();
    auto p = PlaceHolder<3, float>();
    auto o1 = PlaceHolder<4, Tn<T>, OUT>();
    auto o2 = PlaceHolder<5, Tn<T>, OUT>();
    auto o3 = PlaceHolder<6, Tn<T>, OUT>();
    auto t = PlaceHolderTmp<1>();
    return (t = Max(a, b) - Min(a, b) / (Abs(b) + 1.0f),
            o1 = Select(a > b, t, Where(a <= b * 0.5f, -t, t * 2.0f)), o2 = Pow(Abs(a) + 0.5f, p),
            o3 = t * t);
  }
};

template <class T>
class ElementwiseTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, half, bfloat16>;
TYPED_TEST_SUITE(ElementwiseTest, FloatTypes);

constexpr int64_t kSizes[] = {1, 7, 4097};

template <class T>
void CheckNested(int64_t n) {
  DeviceBuffer<T> a(n), b(n), c(n), out(n);
  a.Random(1);
  b.Random(2);
  c.Random(3);
  Op<NestedC<T>> op;
  const float s = 0.75f;
  ASSERT_TRUE(
      RunAndSync(op.run(ArgumentsBuilder{}
                            .inputOutput(a.Arg({n}), b.Arg({n}), c.Arg({n}), s, out.Arg({n}))
                            .build()))
          .ok());
  ExpectAllNear(
      out, n, [&](int64_t i) { return (a.At(i) + b.At(i)) * c.At(i) - s; }, 2e-6, RelTol<T>(2e-6),
      "nested n=" + std::to_string(n));
}

TYPED_TEST(ElementwiseTest, NestedExpressionWithRuntimeScalar) {
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{4097}, int64_t{1000003}}) {
    CheckNested<TypeParam>(n);
  }
}

TYPED_TEST(ElementwiseTest, CompareSelectPowAndSeveralOutputs) {
  using T = TypeParam;
  for (int64_t n : kSizes) {
    DeviceBuffer<T> a(n), b(n), o1(n), o2(n), o3(n);
    a.Random(7);
    b.Random(8);
    Op<MixC<T>> op;
    const float p = 2.5f;
    ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}
                                      .inputOutput(a.Arg({n}), b.Arg({n}), p, o1.Arg({n}),
                                                   o2.Arg({n}), o3.Arg({n}))
                                      .build()))
                    .ok());
    const auto t = [&](int64_t i) {
      const double x = a.At(i), y = b.At(i);
      return std::max(x, y) - std::min(x, y) / (std::fabs(y) + 1);
    };
    ExpectAllNear(
        o1, n,
        [&](int64_t i) {
          const double x = a.At(i), y = b.At(i);
          return x > y ? t(i) : (x <= y * 0.5 ? -t(i) : t(i) * 2);
        },
        2e-6, RelTol<T>(2e-6), "select");
    ExpectAllNear(
        o2, n, [&](int64_t i) { return std::pow(std::fabs(a.At(i)) + 0.5, 2.5); }, 1e-6,
        RelTol<T>(1e-5), "pow");
    ExpectAllNear(
        o3, n, [&](int64_t i) { return t(i) * t(i); }, 2e-6, RelTol<T>(4e-6), "t*t");
  }
}

// Pow special cases: negative bases with integer exponents, zero exponent, NaN for negative
// bases with fractional exponents.
struct PowC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>>();
    auto y = PlaceHolder<2, Tn<float>>();
    auto out = PlaceHolder<3, Tn<float>, OUT>();
    return (out = Pow(x, y));
  }
};

TEST(ElementwisePow, SpecialCases) {
  const std::vector<std::pair<float, float>> cases = {{-2.0f, 3.0f}, {-2.0f, 2.0f}, {-2.0f, 0.5f},
                                                      {0.0f, 2.0f},  {5.0f, 0.0f},  {2.0f, -1.0f}};
  const auto n = static_cast<int64_t>(cases.size());
  DeviceBuffer<float> x(n), y(n), out(n);
  for (size_t i = 0; i < cases.size(); ++i) {
    x.host[i] = cases[i].first;
    y.host[i] = cases[i].second;
  }
  x.Upload();
  y.Upload();
  Op<PowC> op;
  ASSERT_TRUE(
      RunAndSync(
          op.run(ArgumentsBuilder{}.inputOutput(x.Arg({n}), y.Arg({n}), out.Arg({n})).build()))
          .ok());
  ExpectAllNear(
      out, n, [&](int64_t i) { return std::pow(x.At(i), y.At(i)); }, 1e-6, 1e-5, "pow");
}

// int32: arithmetic, Abs/Neg/Relu, comparisons, and casts in both directions.
struct IntC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto a = PlaceHolder<1, Tn<int32_t>>();
    auto b = PlaceHolder<2, Tn<int32_t>>();
    auto k = PlaceHolder<3, int32_t>();
    auto o1 = PlaceHolder<4, Tn<int32_t>, OUT>();
    auto o2 = PlaceHolder<5, Tn<float>, OUT>();
    return (o1 = Select(a >= b, Max(a, b) * k - Abs(b), Relu(-a) + Min(a, b)),
            o2 = Cast<float>(a - b) * 0.5f);
  }
};

TEST(ElementwiseInt32, ArithmeticCompareAndCastToFloat) {
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{4097}, int64_t{1000003}}) {
    DeviceBuffer<int32_t> a(n), b(n), o1(n);
    DeviceBuffer<float> o2(n);
    a.Random(3, -1000, 1000);
    b.Random(4, -1000, 1000);
    Op<IntC> op;
    ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}
                                      .inputOutput(a.Arg({n}), b.Arg({n}), int32_t{3}, o1.Arg({n}),
                                                   o2.Arg({n}))
                                      .build()))
                    .ok());
    ExpectAllNear(
        o1, n,
        [&](int64_t i) {
          const double x = a.At(i), y = b.At(i);
          return x >= y ? std::max(x, y) * 3 - std::fabs(y) : std::max(-x, 0.0) + std::min(x, y);
        },
        0, 0, "int32 select");
    ExpectAllNear(
        o2, n, [&](int64_t i) { return (a.At(i) - b.At(i)) * 0.5; }, 0, 0, "cast to float");
  }
}

template <RoundMode Mode>
struct CastToIntC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>>();
    auto out = PlaceHolder<2, Tn<int32_t>, OUT>();
    return (out = Cast<int32_t, Mode>(x));
  }
};

template <RoundMode Mode>
void CheckCastToInt(double (*ref)(double)) {
  const std::vector<float> values = {-2.5f, -1.5f,       -0.5f, 0.5f,   1.5f,   2.5f,   -1.25f,
                                     1.75f, 0.49999997f, -7.0f, 3.999f, 100.5f, -100.5f};
  const auto n = static_cast<int64_t>(values.size());
  DeviceBuffer<float> x(n);
  DeviceBuffer<int32_t> out(n);
  x.host = values;
  x.Upload();
  Op<CastToIntC<Mode>> op;
  ASSERT_TRUE(
      RunAndSync(op.run(ArgumentsBuilder{}.inputOutput(x.Arg({n}), out.Arg({n})).build())).ok());
  ExpectAllNear(
      out, n, [&](int64_t i) { return ref(x.At(i)); }, 0, 0, "cast");
}

TEST(ElementwiseCast, FloatToIntRoundingModes) {
  CheckCastToInt<RoundMode::CAST_RINT>([](double v) { return std::nearbyint(v); });
  CheckCastToInt<RoundMode::CAST_NONE>([](double v) { return std::nearbyint(v); });
  CheckCastToInt<RoundMode::CAST_FLOOR>([](double v) { return std::floor(v); });
  CheckCastToInt<RoundMode::CAST_CEIL>([](double v) { return std::ceil(v); });
  CheckCastToInt<RoundMode::CAST_TRUNC>([](double v) { return std::trunc(v); });
  CheckCastToInt<RoundMode::CAST_ROUND>([](double v) { return std::round(v); });
}

struct RoundToNarrowC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>>();
    auto h = PlaceHolder<2, Tn<float>, OUT>();
    auto b = PlaceHolder<3, Tn<float>, OUT>();
    return (h = Cast<half>(x), b = Cast<bfloat16, RoundMode::CAST_RINT>(x));
  }
};

TEST(ElementwiseCast, RoundToHalfAndBfloat16InLanes) {
  const int64_t n = 4097;
  DeviceBuffer<float> x(n), h(n), b(n);
  x.Random(9, -70000, 70000);
  Op<RoundToNarrowC> op;
  ASSERT_TRUE(
      RunAndSync(op.run(ArgumentsBuilder{}.inputOutput(x.Arg({n}), h.Arg({n}), b.Arg({n})).build()))
          .ok());
  ExpectAllNear(
      h, n, [&](int64_t i) { return static_cast<float>(half(x.host[i])); }, 0, 0, "to half");
  ExpectAllNear(
      b, n, [&](int64_t i) { return static_cast<float>(bfloat16(x.host[i])); }, 0, 0,
      "to bfloat16");
}

// An IN_OUT tensor updated in place, next to a chain of temporaries.
struct InOutC {
  template <template <class> class Tn>
  constexpr auto Compute() const {
    auto x = PlaceHolder<1, Tn<float>, ParamUsage::IN_OUT>();
    auto t1 = PlaceHolderTmp<1>();
    auto t2 = PlaceHolderTmp<2>();
    auto t3 = PlaceHolderTmp<3>();
    return (t1 = x * 2.0f, t2 = t1 + 1.0f, t3 = t2 * t1, t1 = t3 - x, x = t1 + t2);
  }
};

TEST(ElementwiseStatements, InOutAndTemporaryChain) {
  const int64_t n = 4097;
  DeviceBuffer<float> x(n);
  x.Random(12);
  const std::vector<float> before = x.host;
  Op<InOutC> op;
  ASSERT_TRUE(RunAndSync(op.run(ArgumentsBuilder{}.inputOutput(x.Arg({n})).build())).ok());
  ExpectAllNear(
      x, n,
      [&](int64_t i) {
        const double v = before[static_cast<size_t>(i)];
        const double t1 = v * 2, t2 = t1 + 1, t3 = t2 * t1;
        return (t3 - v) + t2;
      },
      1e-6, 2e-6, "in-out");
}

// Lowering facts: registers are reused, reductions create passes, temporaries crossing a pass
// are spilled.
TEST(ElewiseLowering, RegistersAreReusedAcrossStatements) {
  constexpr auto p = expr::ProgramFor<InOutC>::View();
  EXPECT_EQ(p.passes.size(), 1u);
  EXPECT_EQ(p.num_spills, 0u);
  EXPECT_LE(p.num_regs, 4u);
  constexpr auto nested = expr::ProgramFor<NestedC<float>>::View();
  EXPECT_LE(nested.num_regs, 3u);
}

}  // namespace
}  // namespace tessera::elewise
